#!/usr/bin/env python3
"""Eager PyTorch and torch.compile on the issue-10 reduction workloads, timed
as torch_pointwise.py times (CUDA events, median of N after warm-up), with the
device's measured copy bandwidth. Runs on the lent GPU:

    python3 benchmarks/torch_reduction.py --json $OUT/torch_reduction.json

Each workload mirrors a script in benchmarks/workloads/ (gelu_bias_grad:
examples/gelu_bias_grad.py; same shapes, same math). GB/s counts the bytes a fusion must move: every input read once, every
output written once.
"""
import torch

from torch_pointwise import run

K = 0.7978845608028654


def gelu_bias_grad(grad, x, bias):
    # examples/gelu_bias_grad.py: the GELU backward and the bias gradient.
    y = x + bias
    y2 = y * y
    t = torch.tanh(K * (y + 0.044715 * y2 * y))
    dgelu = 0.5 * (1.0 + t) + 0.5 * (y * ((1.0 - t * t) * (K * (1.0 + 0.134145 * y2))))
    grad_x = grad * dgelu
    return grad_x, grad_x.sum(dim=(0, 1))


def workloads():
    dev = "cuda"
    f32, bf16 = torch.float32, torch.bfloat16
    return {
        "sum_rows_f32": (lambda x: x.sum(1), lambda: [torch.randn(32768, 4096, device=dev)]),
        "sum_cols_f32": (lambda x: x.sum(0), lambda: [torch.randn(32768, 4096, device=dev)]),
        "sum_rows_bf16": (lambda x: x.sum(1),
                          lambda: [torch.randn(16384, 4096, dtype=bf16, device=dev)]),
        "gelu_bias_grad": (gelu_bias_grad, lambda: [torch.randn(16, 512, 4096, device=dev),
                                                    torch.randn(16, 512, 4096, device=dev),
                                                    torch.randn(4096, device=dev)]),
        "sum_cols_wide_f32": (lambda x: x.sum(0), lambda: [torch.randn(128, 1048576, device=dev)]),
        "sum_short_rows_f32": (lambda x: x.sum(1),
                               lambda: [torch.randn(1048576, 32, dtype=f32, device=dev)]),
    }


if __name__ == "__main__":
    run(workloads())
