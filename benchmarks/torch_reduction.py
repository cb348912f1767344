#!/usr/bin/env python3
"""Eager PyTorch and torch.compile on the issue-10 reduction workloads, timed
as torch_pointwise.py times (CUDA events, median of N after warm-up), with the
device's measured copy bandwidth. Runs on the lent GPU:

    python3 benchmarks/torch_reduction.py --json $OUT/torch_reduction.json

Each workload mirrors a script in benchmarks/workloads/ (same shapes, same
math). GB/s counts the bytes a fusion must move: every input read once, every
output written once.
"""
import argparse
import json

import torch

from torch_pointwise import copy_bandwidth, time_ms

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


def main():
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
    print(f"{'workload':22s} {'bytes':>12s} {'eager ms':>9s} {'GB/s':>7s} {'compile ms':>11s} "
          f"{'GB/s':>7s} {'%copy':>6s}")
    for name, (fn, make) in workloads().items():
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
        print(f"{name:22s} {moved:12d} {eager:9.3f} {gbs(eager):7.0f} {compiled:11.3f} "
              f"{gbs(compiled):7.0f} {100 * gbs(compiled) / copy_gbs:5.1f}%")
        del inputs, outs
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
