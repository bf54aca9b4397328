"""Where tensors live, and what running something there costs. Everything else in the course
follows the input's device."""
import contextlib
import os
import statistics
import sys
import time

import torch

from .messages import t


def pick_device() -> torch.device:
    """CUDA when present (Colab with a GPU), else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def device_name(device: torch.device) -> str:
    """What a learner would call the machine: the GPU's model, or the CPU with its core count."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return t("cpu_name", cores=os.cpu_count(), threads=torch.get_num_threads())


def _sync(device: torch.device) -> None:
    # CUDA kernels run asynchronously: without a sync we would time the launch, not the work.
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@contextlib.contextmanager
def _quiet_stderr():
    """Some torch builds' profiler prints start/stop lines from C++ straight to file descriptor 2,
    which a notebook would show as an error-coloured output."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def peak_memory(fn, device: torch.device) -> int:
    """Bytes allocated at the peak while fn() runs, above what was allocated before it."""
    device = torch.device(device)
    if device.type == "cuda":
        _sync(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        fn()
        _sync(device)
        return torch.cuda.max_memory_allocated(device) - before
    # The CPU allocator keeps no peak counter; the profiler records every allocation and free,
    # and their running sum in time order peaks where memory did.
    with _quiet_stderr(), torch.autograd.profiler.profile(profile_memory=True, use_kineto=False) as prof:
        fn()
    current = peak = 0
    for event in sorted(prof.function_events, key=lambda e: e.time_range.start):
        current += event.self_cpu_memory_usage
        peak = max(peak, current)
    return peak


def time_it(fn, device: torch.device, repeat: int = 3) -> float:
    """Median seconds of fn() over `repeat` runs, after one warm-up run."""
    device = torch.device(device)
    fn()
    _sync(device)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
