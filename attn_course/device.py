"""Where tensors live, and what running something there costs. Everything else in the course
follows the input's device."""
import contextlib
import os
import re
import statistics
import sys
import time
import warnings

import torch
import torch.nn.functional as F

from .messages import t


def pick_device() -> torch.device:
    """CUDA when present (Colab with a GPU), else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def compute_dtype(device: torch.device, cpu: torch.dtype = torch.float32) -> torch.dtype:
    """The dtype to measure or autocast in on `device`: `cpu` on the CPU; on a GPU, the 16-bit float
    its fused attention kernels take, bfloat16 from compute capability 8.0 (A100) on, float16 below.
    Colab's T4 is 7.5: there float16 runs SDPA's memory-efficient kernel (FlashAttention needs 8.0),
    and bfloat16 no fused kernel at all.

    Not torch.cuda.is_bf16_supported(): since torch 2.3 it also counts emulation and answers True
    on a T4, where SDPA would fall back to the math backend, which by default computes half types
    in float32 and so builds a T × T float32 matrix, more than the naive bfloat16 version lesson 6
    measures it against. is_bf16_supported(including_emulation=False) (torch 2.4 on) is this same
    test on NVIDIA GPUs, for the current device; this one reads the device it is given.
    """
    device = torch.device(device)
    if device.type != "cuda" or not torch.cuda.is_available():
        return cpu
    major, _minor = torch.cuda.get_device_capability(device)
    return torch.bfloat16 if major >= 8 else torch.float16


# --------------------------------------------------------------------------- SDPA's backends
SDPA_BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")
# The ATen op each backend runs, as the profiler names it (the CPU has a flash kernel of its own).
_SDPA_OPS = {
    "aten::_scaled_dot_product_flash_attention": "FLASH_ATTENTION",
    "aten::_scaled_dot_product_flash_attention_for_cpu": "FLASH_ATTENTION",
    "aten::_scaled_dot_product_efficient_attention": "EFFICIENT_ATTENTION",
    "aten::_scaled_dot_product_cudnn_attention": "CUDNN_ATTENTION",
    "aten::_scaled_dot_product_attention_math": "MATH",
}
# When a forced backend cannot run, torch warns a heading per backend, then that backend's reasons.
_WARN_HEADINGS = {"Flash attention": "FLASH_ATTENTION", "Memory efficient": "EFFICIENT_ATTENTION",
                  "cuDNN attention": "CUDNN_ATTENTION"}
_NEEDS = {"FLASH_ATTENTION": "sdpa_needs_flash", "EFFICIENT_ATTENTION": "sdpa_needs_efficient",
          "CUDNN_ATTENTION": "sdpa_needs_cudnn", "MATH": "sdpa_needs_math"}
_TRIGGERED = re.compile(r"\s*\(Triggered internally at .*?\)\s*$", re.S)


def sdpa_priority_order() -> list[str]:
    """The order in which SDPA tries its backends, by name: it runs the first whose conditions pass
    and times none of them. On CUDA, torch settles its default order (cuDNN first on sm90 and
    sm100 with a recent cuDNN) at the first SDPA call, so read this after one. [] when this torch
    cannot tell (torch._C._get_sdp_priority_order is missing)."""
    from torch.nn.attention import SDPBackend
    order = getattr(torch._C, "_get_sdp_priority_order", None)
    if order is None:
        return []
    names = [SDPBackend(int(i)).name for i in order()]
    return [name for name in names if name in SDPA_BACKENDS]


def sdpa_backend_used(q, k, v, **kwargs) -> str | None:
    """The backend F.scaled_dot_product_attention(q, k, v, **kwargs) ran, read from the op it called."""
    with torch.no_grad(), _quiet_stderr(), torch.autograd.profiler.profile(use_kineto=False) as prof:
        F.scaled_dot_product_attention(q, k, v, **kwargs)
    return next((_SDPA_OPS[e.name] for e in prof.function_events if e.name in _SDPA_OPS), None)


def sdpa_backend_reasons(q, k, v, **kwargs) -> dict:
    """Each backend alone (torch.nn.attention.sdpa_kernel) on these inputs: None when it runs them,
    else why not, in torch's own words (its warnings, or the error when it gives no reason)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    reasons = {}
    for name in SDPA_BACKENDS:
        with warnings.catch_warnings(record=True) as caught, torch.no_grad():
            warnings.simplefilter("always")
            try:
                with sdpa_kernel(getattr(SDPBackend, name)):
                    F.scaled_dot_product_attention(q, k, v, **kwargs)
                reasons[name] = None
                continue
            except RuntimeError as error:
                first_line = str(error).strip().splitlines()[0]
        said, heading = [], None
        for w in caught:
            line = _TRIGGERED.sub("", str(w.message))
            if line.endswith("not used because:"):
                heading = next((b for prefix, b in _WARN_HEADINGS.items() if line.startswith(prefix)), None)
            elif heading in (None, name):
                said.append(line)
        reasons[name] = " ".join(said) or first_line
    return reasons


def sdpa_backend_table(q, k, v, **kwargs) -> tuple[str | None, list]:
    """The backend SDPA chose, and a row per backend: its name, ✔ or ✘ here, what it needs, why not."""
    used, reasons = sdpa_backend_used(q, k, v, **kwargs), sdpa_backend_reasons(q, k, v, **kwargs)
    rows = []
    for name in SDPA_BACKENDS:
        why = reasons[name]
        if why is not None and q.device.type != "cuda" and name in ("EFFICIENT_ATTENTION", "CUDNN_ATTENTION"):
            why = t("sdpa_gpu_only")  # torch says only "no viable backend" on the CPU
        mark = "✔" if why is None else "✘"
        rows.append([name + (" ←" if name == used else ""), mark, t(_NEEDS[name]), why or ""])
    return used, rows


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
