"""What the window shows about the GPU."""

import torch


def describe_gpu():
    if torch.cuda.is_available():  # initializes CUDA (without PYTORCH_NVML_BASED_CUDA_CHECK)
        return torch.cuda.get_device_name(0)
    return "no GPU"
