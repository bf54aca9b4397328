"""Lesson 6's figure for SDPA's math backend in bfloat16: peak memory of the naive attention and of
SDPA forced to MATH, on the CPU, B = 2, H = 4, T = 1024, D = 32, causal.

The math backend turns float16/bfloat16 inputs into float32 before it computes (unless
torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)), so its T × T matrices are float32:
more memory than the naive bfloat16 version, which is what a T4 gets from SDPA in bfloat16.

The peak is the running sum of the allocator's own allocation and free events in time order
(torch.profiler's memory events): the math backend is one op, and attn_course.device.peak_memory,
which charges each op's net allocation at the op's start, cannot see the peak inside one op.

    python tools/sdpa_math_memory.py [--T 1024] [--dtype bfloat16]
"""
import argparse
import math

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

MiB = 2**20


def peak_bytes(fn) -> int:
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = sorted((e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"),
                    key=lambda e: e.start_ns())
    current = peak = 0
    for event in events:
        current += event.nbytes()
        peak = max(peak, current)
    return peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--T", type=int, default=1024)
    parser.add_argument("--dtype", default="bfloat16")
    args = parser.parse_args()
    B, H, T, D, dtype = 2, 4, args.T, 32, getattr(torch, args.dtype)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(B, H, T, D, generator=g).to(dtype) for _ in range(3))
    keep = torch.ones(T, T, dtype=torch.bool).tril()

    def naive():
        return torch.softmax((q @ k.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float("-inf")), dim=-1) @ v

    def math_backend():
        with sdpa_kernel(SDPBackend.MATH):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    print(f"B={B} H={H} T={T} D={D} {args.dtype}, causal, CPU")
    print(f"naive:              {peak_bytes(naive) / MiB:6.1f} MiB")
    print(f"SDPA, MATH backend: {peak_bytes(math_backend) / MiB:6.1f} MiB "
          f"(output {math_backend().dtype}; one float32 (B, H, T, T) matrix is {B * H * T * T * 4 / MiB:.0f} MiB)")


if __name__ == "__main__":
    main()
