#!/usr/bin/env python3
"""Eager PyTorch and torch.compile on the issue-5 pointwise workloads, plus the
device's measured copy bandwidth, timed the way fusebox's --bench times its
kernels (CUDA events, median of N after warm-up). Runs on the lent GPU:

    python3 benchmarks/torch_pointwise.py --json $OUT/torch.json

Each workload mirrors a script in benchmarks/workloads/ (same shapes, same math).
GB/s counts the bytes a fusion must move: every input read once, every output
written once.
"""
import argparse
import json
import math
import statistics

import torch

K = math.sqrt(2.0 / math.pi)


def bias_gelu(x, bias):
    y = x + bias
    return 0.5 * (y * (1.0 + torch.tanh(K * (y + 0.044715 * y * y * y))))


def gelu_backward_pointwise(grad, x, bias):
    y = x + bias
    y2 = y * y
    t = torch.tanh(K * (y + 0.044715 * y2 * y))
    left = 0.5 * (1.0 + t)
    right = 0.5 * (y * ((1.0 - t * t) * (K * (1.0 + 0.134145 * y2))))
    return grad * (left + right)


def bf16_cast_mul_add(a, b, c):
    return (a.float() * b.float() + c.float()).to(torch.bfloat16)


def broadcast_heavy(x, scale, shift, row):
    return x * scale[None, :, None] + shift[None, None, :] - row[:, None, None]


def rope_bf16(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:].float().to(torch.bfloat16), x[..., :half]], dim=-1)
    return (x.float() * cos.float() + rotated.float() * sin.float()).to(torch.bfloat16)


def workloads():
    dev = "cuda"
    return {
        "bias_gelu": (bias_gelu, lambda: [torch.randn(32768, 4096, device=dev),
                                          torch.randn(4096, device=dev)]),
        "gelu_backward_pointwise": (gelu_backward_pointwise,
                                    lambda: [torch.randn(16, 512, 4096, device=dev),
                                             torch.randn(16, 512, 4096, device=dev),
                                             torch.randn(4096, device=dev)]),
        "bf16_cast_mul_add": (bf16_cast_mul_add,
                              lambda: [torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
                                       for _ in range(3)]),
        "broadcast_heavy": (broadcast_heavy, lambda: [torch.randn(64, 1024, 1024, device=dev),
                                                      torch.randn(1024, device=dev),
                                                      torch.randn(1024, device=dev),
                                                      torch.randn(64, device=dev)]),
        "rope_bf16": (rope_bf16, lambda: [torch.randn(8, 32, 4096, 128, dtype=torch.bfloat16,
                                                      device=dev),
                                          torch.rand(4096, 128, dtype=torch.bfloat16, device=dev),
                                          torch.rand(4096, 128, dtype=torch.bfloat16, device=dev)]),
    }


def time_ms(fn, iters, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def copy_bandwidth(iters):
    # A large device-to-device copy: read n bytes, write n bytes.
    src = torch.empty(2 * 1024**3 // 4, dtype=torch.float32, device="cuda").normal_()
    dst = torch.empty_like(src)
    ms = time_ms(lambda: dst.copy_(src), iters, 5)
    return 2 * src.numel() * src.element_size() / (ms * 1e-3) / 1e9, ms


def run(all_workloads):
    """Times each workload (name -> (fn, make inputs)) eager and compiled, with
    the copy bandwidth first; --only, --iters and --json from the command line.
    A workload may return one tensor or a tuple (every output counts as written)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--json", default=None)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()

    copy_gbs, copy_ms = copy_bandwidth(args.iters)
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "copy_bandwidth_gbs": copy_gbs, "copy_ms": copy_ms, "workloads": {}}
    print(f"device: {results['device']}  torch {torch.__version__}")
    print(f"copy bandwidth: {copy_gbs:.0f} GB/s (2 GiB copy, {copy_ms:.3f} ms)")
    print(f"{'workload':26s} {'bytes':>12s} {'eager ms':>9s} {'GB/s':>7s} {'compile ms':>11s} {'GB/s':>7s} {'%copy':>6s}")
    for name, (fn, make) in all_workloads.items():
        if args.only and name not in args.only:
            continue
        inputs = make()
        outs = fn(*inputs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        moved = sum(t.numel() * t.element_size() for t in list(inputs) + list(outs))
        eager = time_ms(lambda: fn(*inputs), args.iters, 5)
        compiled_fn = torch.compile(fn)
        compiled = time_ms(lambda: compiled_fn(*inputs), args.iters, 5)
        gbs = lambda ms: moved / (ms * 1e-3) / 1e9
        results["workloads"][name] = {"bytes": moved, "eager_ms": eager, "eager_gbs": gbs(eager),
                                      "compile_ms": compiled, "compile_gbs": gbs(compiled)}
        print(f"{name:26s} {moved:12d} {eager:9.3f} {gbs(eager):7.0f} {compiled:11.3f} "
              f"{gbs(compiled):7.0f} {100 * gbs(compiled) / copy_gbs:5.1f}%")
        del inputs, outs
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    run(workloads())
