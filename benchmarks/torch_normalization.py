#!/usr/bin/env python3
"""Eager PyTorch and torch.compile on the issue-11 normalization workloads,
timed as torch_pointwise.py times (CUDA events, median of N after warm-up),
with the device's measured copy bandwidth. Runs on the lent GPU:

    python3 benchmarks/torch_normalization.py --json $OUT/torch_normalization.json

Each workload is the math of a script in benchmarks/workloads/ (bfloat16
inputs, float32 math, the same outputs): layernorm_fwd_bf16, rmsnorm_fwd_bf16,
softmax_fwd_bf16 and layernorm_bwd_bf16 at 16384x4096 and 32768x1024,
softmax_bwd_bf16 and rmsnorm_bwd_bf16 at 16384x4096, batchnorm_fwd_bf16
(channels-last, statistics over the rows) at 4096x2048 (on chip) and
16384x1024 (too large for the registers: split into two kernels), and
layernorm_fwd_bf16 at 2048x131072 (rows wider than the registers), layernorm
and softmax forward at 1024x262144 (split: too wide for any persistent
kernel). GB/s counts the bytes a
fusion must move: every input read once, every output written once.
"""
import torch

from torch_pointwise import run

BF16, F32 = torch.bfloat16, torch.float32


def layernorm_fwd(x, w, b):
    xf = x.float()
    var, mean = torch.var_mean(xf, dim=1, correction=0, keepdim=True)
    rstd = torch.rsqrt(var + 1e-5)
    y = (xf - mean) * rstd * w.float() + b.float()
    return y.to(BF16), mean, rstd


def rmsnorm_fwd(x, w):
    xf = x.float()
    rstd = torch.rsqrt((xf * xf).sum(dim=1, keepdim=True) / x.shape[1] + 1e-6)
    return (xf * rstd * w.float()).to(BF16), rstd


def softmax_fwd(x):
    xf = x.float()
    e = torch.exp(xf - xf.amax(dim=1, keepdim=True))
    return (e / e.sum(dim=1, keepdim=True)).to(BF16)


def layernorm_bwd(dy, x, mean, rstd, w):
    dyf, xf = dy.float(), x.float()
    h = x.shape[1]
    xhat = (xf - mean[:, None]) * rstd[:, None]
    g = dyf * w.float()
    dx = rstd[:, None] / h * (g * h - g.sum(dim=1, keepdim=True)
                              - xhat * (g * xhat).sum(dim=1, keepdim=True))
    return dx.to(BF16), (dyf * xhat).sum(dim=0).to(BF16), dyf.sum(dim=0).to(BF16)


def rmsnorm_bwd(dy, x, rstd, w):
    dyf, xf = dy.float(), x.float()
    xhat = xf * rstd[:, None]
    g = dyf * w.float()
    dx = rstd[:, None] * (g - xhat * (g * xhat).sum(dim=1, keepdim=True) / x.shape[1])
    return dx.to(BF16), (dyf * xhat).sum(dim=0).to(BF16)


def softmax_bwd(dy, y):
    dyf, yf = dy.float(), y.float()
    return (yf * (dyf - (dyf * yf).sum(dim=1, keepdim=True))).to(BF16)


def batchnorm_fwd(x, w, b):
    xf = x.float()
    var, mean = torch.var_mean(xf, dim=0, correction=0)
    rstd = torch.rsqrt(var + 1e-5)
    return ((xf - mean) * rstd * w.float() + b.float()).to(BF16), mean, rstd


def workloads():
    dev = "cuda"
    rows = lambda n, h: torch.randn(n, h, dtype=BF16, device=dev)
    vec = lambda h: torch.randn(h, dtype=BF16, device=dev)
    out = {}
    for n, h in ((16384, 4096), (32768, 1024)):
        tag = f"{n}x{h}"
        out[f"layernorm_fwd_{tag}"] = (layernorm_fwd, lambda n=n, h=h: [rows(n, h), vec(h), vec(h)])
        out[f"rmsnorm_fwd_{tag}"] = (rmsnorm_fwd, lambda n=n, h=h: [rows(n, h), vec(h)])
        out[f"softmax_fwd_{tag}"] = (softmax_fwd, lambda n=n, h=h: [rows(n, h)])
        out[f"layernorm_bwd_{tag}"] = (
            layernorm_bwd, lambda n=n, h=h: [rows(n, h), rows(n, h),
                                             torch.randn(n, dtype=F32, device=dev),
                                             torch.rand(n, dtype=F32, device=dev), vec(h)])
    out["softmax_bwd_16384x4096"] = (
        softmax_bwd, lambda: [rows(16384, 4096),
                              torch.rand(16384, 4096, dtype=BF16, device=dev)])
    out["rmsnorm_bwd_16384x4096"] = (
        rmsnorm_bwd, lambda: [rows(16384, 4096), rows(16384, 4096),
                              torch.rand(16384, dtype=F32, device=dev), vec(4096)])
    # A row too wide for the registers alone (fusebox keeps part of it in
    # shared memory; persistent_buffers = "registers" splits the fusion).
    out["layernorm_fwd_2048x131072"] = (
        layernorm_fwd, lambda: [rows(2048, 131072), vec(131072), vec(131072)])
    # Rows too wide for any persistent kernel: fusebox splits these fusions
    # into reduction and pointwise kernels (input forwarding: each reads the
    # bf16 input).
    out["layernorm_fwd_1024x262144"] = (
        layernorm_fwd, lambda: [rows(1024, 262144), vec(262144), vec(262144)])
    out["softmax_fwd_1024x262144"] = (softmax_fwd, lambda: [rows(1024, 262144)])
    for n, c in ((4096, 2048), (16384, 1024)):
        out[f"batchnorm_fwd_{n}x{c}"] = (
            batchnorm_fwd, lambda n=n, c=c: [rows(n, c), vec(c), vec(c)])
    return out


if __name__ == "__main__":
    run(workloads())
