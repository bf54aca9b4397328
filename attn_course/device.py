"""Where tensors live. Everything else in the course follows the input's device."""
import torch


def pick_device() -> torch.device:
    """CUDA when present (Colab with a GPU), else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
