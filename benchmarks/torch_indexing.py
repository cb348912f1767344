#!/usr/bin/env python3
"""Eager PyTorch and torch.compile on the issue-14 indexing and scan workloads
(benchmarks/workloads/embedding_bf16.py, gather_rows_f32.py,
cumsum_rows_f32.py: same shapes, same math), timed as torch_pointwise.py
times (CUDA events, median of N after warm-up), with the device's measured
copy bandwidth. Runs on the lent GPU:

    python3 benchmarks/torch_indexing.py --json $OUT/torch_indexing.json
"""
import torch
import torch.nn.functional as F

from torch_pointwise import run


def embedding_bf16(ids, table):
    return (F.embedding(ids, table).float() * 64.0).to(torch.bfloat16)


def gather_rows_f32(x, idx):
    return torch.gather(x, 1, idx)


def cumsum_rows_f32(x):
    return torch.cumsum(x, dim=1) * 0.5


def workloads():
    dev = "cuda"
    return {
        "embedding_bf16": (embedding_bf16,
                           lambda: [torch.arange(16383, -1, -1, dtype=torch.int64, device=dev),
                                    torch.randn(16384, 4096, dtype=torch.bfloat16, device=dev)]),
        "gather_rows_f32": (gather_rows_f32,
                            lambda: [torch.randn(8192, 4096, device=dev),
                                     torch.randint(0, 4096, (8192, 4096), device=dev)]),
        "cumsum_rows_f32": (cumsum_rows_f32, lambda: [torch.randn(16384, 4096, device=dev)]),
    }


if __name__ == "__main__":
    run(workloads())
