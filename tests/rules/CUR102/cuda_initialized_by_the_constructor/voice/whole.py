"""Recognition of a whole file in a child process, started from a recognizer's method."""

import multiprocessing

from voice import decode
from voice.base import CpuRecognizer, GpuRecognizer


class WholeFile(GpuRecognizer):
    def __init__(self, audio, language):
        super().__init__(audio)
        self.language = language

    def run(self):
        child = multiprocessing.Process(target=decode.recognize, args=(self.audio,))  # error: CUR102
        child.start()
        child.join()

    def run_spawned(self):
        context = multiprocessing.get_context("spawn")
        child = context.Process(target=decode.recognize, args=(self.audio,))  # ok: CUR102
        child.start()
        child.join()

    @staticmethod
    def run_alone(audio):
        child = multiprocessing.Process(target=decode.recognize, args=(audio,))  # ok: CUR102
        child.start()
        child.join()


class Inherited(GpuRecognizer):
    def run(self):
        child = multiprocessing.Process(target=decode.recognize, args=(self.audio,))  # error: CUR102
        child.start()
        child.join()


class OwnSetup(GpuRecognizer):
    def __init__(self, audio):  # does not call the GPU recognizer's __init__
        self.audio = audio

    def run(self):
        child = multiprocessing.Process(target=decode.recognize, args=(self.audio,))  # ok: CUR102
        child.start()
        child.join()


class OnCpu(CpuRecognizer):
    def __init__(self, audio):
        super().__init__(audio)

    def run(self):
        child = multiprocessing.Process(target=decode.recognize, args=(self.audio,))  # ok: CUR102
        child.start()
        child.join()


class Local:
    def __init__(self, audio):
        self.audio = audio
        self.warm = decode.recognize(audio)

    def run(self):
        child = multiprocessing.Process(target=decode.recognize, args=(self.audio,))  # error: CUR102
        child.start()
        child.join()
