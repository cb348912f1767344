#!/usr/bin/env python3
"""The PyTorch twins of benchmarks/reduction_sizes/ and
benchmarks/normalization_sizes/ (the same math, the same outputs, the same
shapes and dtypes), eager and torch.compile, timed with
triton.testing.do_bench (median; L2 flushed between calls), beside fusebox's
kernel times from a `fusebox bench --json` file of the same folder. Runs on
the lent GPU:

    python3 benchmarks/torch_reduction_sizes.py [--suite normalization_sizes] \
        --fusebox NEW.json [--json OUT.json]

Prints one row a workload: fusebox's kernel time (median over the JSON's
samples), its GB/s (each input read once, each output written once) and %
of the measured copy bandwidth, eager and torch.compile times, and
fusebox / torch.compile.
"""
import argparse
import json
import statistics

import torch
import triton.testing

from torch_normalization import layernorm_bwd, rmsnorm_bwd

DEV = "cuda"


def batchnorm_fwd(x, w, b):
    xf = x.float()
    var, mean = torch.var_mean(xf, dim=0, correction=0)
    rstd = torch.rsqrt(var + 1e-5)
    y = (xf - mean) * rstd * w.float() + b.float()
    return y.to(torch.bfloat16), mean, rstd


def normalization_workloads():
    bf16, f32 = torch.bfloat16, torch.float32

    def ln(rows, cols):
        return lambda: [torch.randn(rows, cols, dtype=bf16, device=DEV),
                        torch.randn(rows, cols, dtype=bf16, device=DEV),
                        torch.randn(rows, dtype=f32, device=DEV),
                        torch.rand(rows, dtype=f32, device=DEV),
                        torch.randn(cols, dtype=bf16, device=DEV)]

    def rms(rows, cols):
        return lambda: [torch.randn(rows, cols, dtype=bf16, device=DEV),
                        torch.randn(rows, cols, dtype=bf16, device=DEV),
                        torch.rand(rows, dtype=f32, device=DEV),
                        torch.randn(cols, dtype=bf16, device=DEV)]

    return {
        "layernorm_bwd_bf16_8192x5120": (layernorm_bwd, ln(8192, 5120)),
        "layernorm_bwd_bf16_32768x1024": (layernorm_bwd, ln(32768, 1024)),
        "rmsnorm_bwd_bf16_4096x8192": (rmsnorm_bwd, rms(4096, 8192)),
        "rmsnorm_bwd_bf16_65536x768": (rmsnorm_bwd, rms(65536, 768)),
    }


def workloads():
    f32, bf16 = torch.float32, torch.bfloat16

    def randn(*shape, dtype=f32):
        return lambda: [torch.randn(*shape, dtype=dtype, device=DEV)]

    return {
        "sum_cols_f32_8192x8192": (lambda x: x.sum(0), randn(8192, 8192)),
        "sum_cols_f32_65536x512": (lambda x: x.sum(0), randn(65536, 512)),
        "sum_cols_bf16_16384x8192": (lambda x: x.sum(0), randn(16384, 8192, dtype=bf16)),
        "max_cols_f32_32768x1024": (lambda x: x.amax(0), randn(32768, 1024)),
        "var_cols_f32_16384x2048": (lambda x: x.var(0, correction=1), randn(16384, 2048)),
        "sum_rows_f32_32x4194304": (lambda x: x.sum(1), randn(32, 4194304)),
        "sum_rows_f32_256x262144": (lambda x: x.sum(1), randn(256, 262144)),
        "sum_cols_f32_4096x3000": (lambda x: x.sum(0), randn(4096, 3000)),
        "batchnorm_fwd_bf16_16384x2048": (batchnorm_fwd, lambda: [
            torch.randn(16384, 2048, dtype=bf16, device=DEV),
            torch.randn(2048, dtype=bf16, device=DEV),
            torch.randn(2048, dtype=bf16, device=DEV)]),
    }


def nbytes(tensors):
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    return sum(t.numel() * t.element_size() for t in tensors)


def bench_ms(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def copy_gbps():
    src = torch.empty(1 << 28, dtype=torch.float32, device=DEV)  # 1 GiB
    dst = torch.empty_like(src)
    ms = bench_ms(lambda: dst.copy_(src))
    return 2 * src.numel() * 4 / ms / 1e6


def fusebox_us(path):
    samples = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") == "iteration":
            samples.setdefault(b["name"].removesuffix(".py"), []).append(b["real_time"])
    return {k: statistics.median(v) for k, v in samples.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="reduction_sizes",
                    choices=["reduction_sizes", "normalization_sizes"])
    ap.add_argument("--fusebox", help="fusebox bench --json of the suite's folder")
    ap.add_argument("--json")
    args = ap.parse_args()
    fb = fusebox_us(args.fusebox) if args.fusebox else {}
    copy = copy_gbps()
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, copy {copy:.0f} GB/s")
    print(f"{'workload':32} {'fusebox us':>10} {'GB/s':>6} {'%copy':>6} {'eager us':>9} "
          f"{'compile us':>10} {'fb/compile':>10}")
    rows = []
    suite = workloads() if args.suite == "reduction_sizes" else normalization_workloads()
    for name, (fn, make) in suite.items():
        inputs = make()
        outputs = fn(*inputs)
        moved = nbytes(inputs) + nbytes(outputs)
        compiled = torch.compile(fn)
        compiled(*inputs)
        eager = bench_ms(lambda: fn(*inputs)) * 1e3
        comp = bench_ms(lambda: compiled(*inputs)) * 1e3
        f = fb.get(name)
        row = {"workload": name, "bytes": moved, "eager_us": eager, "compile_us": comp,
               "fusebox_us": f, "copy_gbps": copy}
        rows.append(row)
        if f:
            gbps = moved / f / 1e3
            print(f"{name:32} {f:10.1f} {gbps:6.0f} {100 * gbps / copy:5.0f}% {eager:9.1f} "
                  f"{comp:10.1f} {f / comp:10.2f}")
        else:
            print(f"{name:32} {'-':>10} {'-':>6} {'-':>6} {eager:9.1f} {comp:10.1f} {'-':>10}")
        del inputs, outputs, compiled
        torch.cuda.empty_cache()
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
