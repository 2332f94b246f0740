"""Recognizers: the GPU one asks for the device when it is made."""

import torch


class GpuRecognizer:
    def __init__(self, audio):
        self.audio = audio
        self.device = "cuda" if torch.cuda.is_available() else "cpu"


class CpuRecognizer:
    def __init__(self, audio):
        self.audio = audio
        self.device = "cpu"
