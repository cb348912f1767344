#!/usr/bin/env python3
"""The benchmark corpus in one command (issue 31): each workload is a script of
benchmarks/workloads/ (or examples/) at a size LLMs use, with its PyTorch twin
(the same math, the same outputs). On the lent GPU, for each workload:

  - fusebox: `fusebox run SCRIPT --backend cuda --bench N` (inputs resized with
    --input), the median of its `bench: call` line: the whole cache-hit call
    between CUDA events, the L2 flushed once before it, as do_bench times
    torch's function (the JSON keeps the kernels' own medians, each flushed
    before its launch, summed as `kernel_sum_us`); segments that ran on the
    host (expr_eval) are inside that figure and flagged;
  - eager PyTorch and torch.compile of the twin on the same shapes and dtypes,
    timed with triton.testing.do_bench (median; it flushes the L2 between
    calls), the lowest of --torch-repeats such medians (3);

then prints one row a workload (time, GB/s and % of the measured copy
bandwidth for the bytes a fusion must move: each input read once, each output
written once; fusebox / torch.compile; kernel count) and the geometric mean
of the ratios.

`%copy` is against a 1 GiB copy. `%fcopy` is against a copy that moves the
workload's own bytes (half read, half written), timed by do_bench as torch
is: the flush leaves the L2 full of dirty lines, which the timed kernel's
reads evict and write back, and that costs a 64 MB copy 9% of its bandwidth
(36.4 us against 33.1 after a flush that only reads, on an H200), less as
sizes grow. `%fcopy` is the share of that reachable figure a kernel reaches.

    python3 benchmarks/corpus.py --fusebox build/gpu-rel/bin/fusebox \
        [--only REGEX] [--list] [--json OUT.json]

An A/B of fusebox builds or options against one set of torch figures:
`--torch-json EARLIER.json` takes eager, torch.compile and the flushed copies
from an earlier run's JSON on the same GPU and times fusebox alone;
`--fusebox-args "--shapes symbolic"` passes more arguments to `fusebox run`.

The torch inputs are the script's own `inputs = [...]`, resized where the entry resizes them: a float
input that the script made non-negative (torch.rand) stays non-negative, an
integer one stays within its old range.
"""
import argparse
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from torch_indexing import cumsum_rows_f32, embedding_bf16, gather_rows_f32  # noqa: E402
from torch_normalization import (batchnorm_fwd, layernorm_bwd, layernorm_fwd,  # noqa: E402
                                 rmsnorm_bwd, rmsnorm_fwd, softmax_bwd, softmax_fwd)
from torch_pointwise import (bf16_cast_mul_add, bias_gelu, broadcast_heavy,  # noqa: E402
                             gelu_backward_pointwise, rope_bf16)
from torch_reduction import gelu_bias_grad  # noqa: E402


def adam_step(p, g, m, v):
    # The fusion writes the parameter and both moments into their inputs.
    m.mul_(0.9).add_(g * 0.1)
    v.mul_(0.999).add_(g * g * 0.001)
    p.sub_(m / (v.sqrt() + 1e-8) * 0.001)
    return p, m, v


def transpose_add(a, b):
    return a + b.t()


def cross_entropy(logits, labels):
    return F.cross_entropy(logits.float(), labels)


def cross_entropy_smoothed(logits, labels):
    return F.cross_entropy(logits.float(), labels, label_smoothing=0.1)


def cross_entropy_bwd(logits, labels, grad):
    # The gradient of the mean loss: the fusion recomputes the softmax too.
    one_hot = F.one_hot(labels, logits.shape[1]).float()
    scale = grad / logits.shape[0]
    return ((torch.softmax(logits.float(), dim=1) - one_hot) * scale).to(torch.bfloat16)


def dropout_residual(x, residual, seed, offset):
    # The same math as the fusion; torch's generator draws other values.
    keep = torch.rand(x.shape, dtype=torch.bfloat16, device=x.device) < 0.9
    out = x.float() * keep.float() * 1.11111 + residual.float()
    return out.to(torch.bfloat16), keep


def twin_sum(dim, dtype=None):
    return lambda x: x.sum(dim, dtype=dtype)


W = "benchmarks/workloads/"


def sizes(**shapes):
    return shapes


# (name, script, input sizes by script variable, twin). A name says the size.
CORPUS = [
    # pointwise
    ("bias_gelu_f32_32768x4096", W + "bias_gelu.py", {}, bias_gelu),
    ("bias_gelu_f32_8192x1024", W + "bias_gelu.py", sizes(T0=(8192, 1024), T1=(1024,)), bias_gelu),
    ("gelu_bwd_f32_16x512x4096", W + "gelu_backward_pointwise.py", {}, gelu_backward_pointwise),
    ("bf16_cast_mul_add_8192x8192", W + "bf16_cast_mul_add.py", {}, bf16_cast_mul_add),
    ("bf16_cast_mul_add_4096x2048", W + "bf16_cast_mul_add.py",
     sizes(T0=(4096, 2048), T1=(4096, 2048), T2=(4096, 2048)), bf16_cast_mul_add),
    ("broadcast_heavy_f32_64x1024x1024", W + "broadcast_heavy.py", {}, broadcast_heavy),
    ("rope_bf16_8x32x4096x128", W + "rope_bf16.py", {}, rope_bf16),
    # random numbers
    ("dropout_residual_bf16_8192x4096", W + "dropout_residual_bf16.py", {}, dropout_residual),
    ("dropout_residual_bf16_16384x1024", W + "dropout_residual_bf16.py",
     sizes(T0=(16384, 1024), T1=(16384, 1024)), dropout_residual),
    # in-place updates
    ("adam_step_f32_16M", W + "adam_step_f32.py", {}, adam_step),
    ("adam_step_f32_4M", W + "adam_step_f32.py",
     sizes(T0=(1 << 22,), T1=(1 << 22,), T2=(1 << 22,), T3=(1 << 22,)), adam_step),
    # transposes
    ("transpose_add_f32_8192x8192", W + "transpose_add_f32.py", {}, transpose_add),
    ("transpose_add_f32_4096x4096", W + "transpose_add_f32.py",
     sizes(T0=(4096, 4096), T1=(4096, 4096)), transpose_add),
    # reductions
    ("sum_rows_f32_32768x4096", W + "sum_rows_f32.py", {}, twin_sum(1)),
    ("sum_cols_f32_32768x4096", W + "sum_cols_f32.py", {}, twin_sum(0)),
    ("sum_rows_bf16_16384x4096", W + "sum_rows_bf16.py", {}, twin_sum(1)),
    ("sum_cols_f32_128x1048576", W + "sum_cols_wide_f32.py", {}, twin_sum(0)),
    ("sum_rows_f32_1048576x32", W + "sum_short_rows_f32.py", {}, twin_sum(1)),
    ("gelu_bias_grad_f32_16x512x4096", "examples/gelu_bias_grad.py", {}, gelu_bias_grad),
    # normalizations, forward
    ("layernorm_fwd_bf16_16384x4096", W + "layernorm_fwd_bf16.py", {}, layernorm_fwd),
    ("layernorm_fwd_bf16_32768x1024", W + "layernorm_fwd_bf16.py",
     sizes(T0=(32768, 1024), T1=(1024,), T2=(1024,)), layernorm_fwd),
    ("layernorm_fwd_bf16_8192x8192", W + "layernorm_fwd_bf16.py",
     sizes(T0=(8192, 8192), T1=(8192,), T2=(8192,)), layernorm_fwd),
    ("rmsnorm_fwd_bf16_16384x4096", W + "rmsnorm_fwd_bf16.py", {}, rmsnorm_fwd),
    ("rmsnorm_fwd_bf16_32768x1024", W + "rmsnorm_fwd_bf16.py",
     sizes(T0=(32768, 1024), T1=(1024,)), rmsnorm_fwd),
    ("rmsnorm_fwd_bf16_8192x5120", W + "rmsnorm_fwd_bf16.py",
     sizes(T0=(8192, 5120), T1=(5120,)), rmsnorm_fwd),
    ("softmax_fwd_bf16_16384x4096", W + "softmax_fwd_bf16.py", {}, softmax_fwd),
    ("softmax_fwd_bf16_4096x32000", W + "softmax_fwd_bf16.py", sizes(T0=(4096, 32000)),
     softmax_fwd),
    ("softmax_fwd_bf16_2048x131072", W + "softmax_fwd_bf16.py", sizes(T0=(2048, 131072)),
     softmax_fwd),
    # a vocabulary no vector divides (GPT-2's)
    ("softmax_fwd_bf16_4096x50257", W + "softmax_fwd_bf16.py", sizes(T0=(4096, 50257)),
     softmax_fwd),
    ("batchnorm_fwd_bf16_4096x2048", W + "batchnorm_fwd_bf16.py", {}, batchnorm_fwd),
    # normalizations, backward
    ("layernorm_bwd_bf16_16384x4096", W + "layernorm_bwd_bf16.py", {}, layernorm_bwd),
    ("layernorm_bwd_bf16_8192x5120", W + "layernorm_bwd_bf16.py",
     sizes(T0=(8192, 5120), T1=(8192, 5120), T2=(8192,), T3=(8192,), T4=(5120,)), layernorm_bwd),
    ("layernorm_bwd_bf16_32768x1024", W + "layernorm_bwd_bf16.py",
     sizes(T0=(32768, 1024), T1=(32768, 1024), T2=(32768,), T3=(32768,), T4=(1024,)),
     layernorm_bwd),
    ("rmsnorm_bwd_bf16_16384x4096", W + "rmsnorm_bwd_bf16.py", {}, rmsnorm_bwd),
    ("rmsnorm_bwd_bf16_4096x8192", W + "rmsnorm_bwd_bf16.py",
     sizes(T0=(4096, 8192), T1=(4096, 8192), T2=(4096,), T3=(8192,)), rmsnorm_bwd),
    ("rmsnorm_bwd_bf16_65536x768", W + "rmsnorm_bwd_bf16.py",
     sizes(T0=(65536, 768), T1=(65536, 768), T2=(65536,), T3=(768,)), rmsnorm_bwd),
    ("softmax_bwd_bf16_16384x4096", W + "softmax_bwd_bf16.py", {}, softmax_bwd),
    ("softmax_bwd_bf16_4096x32000", W + "softmax_bwd_bf16.py",
     sizes(T0=(4096, 32000), T1=(4096, 32000)), softmax_bwd),
    # losses
    ("cross_entropy_bf16_4096x32000", "examples/cross_entropy.py",
     sizes(T0=(4096, 32000), T1=(4096,)), cross_entropy),
    ("cross_entropy_bf16_2048x131072", "examples/cross_entropy.py",
     sizes(T0=(2048, 131072), T1=(2048,)), cross_entropy),
    ("cross_entropy_bf16_8192x50257", "examples/cross_entropy.py",
     sizes(T0=(8192, 50257), T1=(8192,)), cross_entropy),
    ("cross_entropy_smoothed_bf16_4096x32000", W + "cross_entropy_smoothed_bf16.py", {},
     cross_entropy_smoothed),
    ("cross_entropy_bwd_bf16_4096x32000", W + "cross_entropy_bwd_bf16.py", {}, cross_entropy_bwd),
    ("cross_entropy_bwd_bf16_2048x131072", W + "cross_entropy_bwd_bf16.py",
     sizes(T0=(2048, 131072), T1=(2048,)), cross_entropy_bwd),
    ("cross_entropy_bwd_bf16_8192x50257", W + "cross_entropy_bwd_bf16.py",
     sizes(T0=(8192, 50257), T1=(8192,)), cross_entropy_bwd),
    # indexing and scans
    ("embedding_bf16_16384x4096", W + "embedding_bf16.py", {}, embedding_bf16),
    ("gather_rows_f32_8192x4096", W + "gather_rows_f32.py", {}, gather_rows_f32),
    ("cumsum_rows_f32_16384x4096", W + "cumsum_rows_f32.py", {}, cumsum_rows_f32),
]

DTYPE_NAMES = {torch.float32: "float", torch.bfloat16: "bfloat16", torch.float16: "half",
               torch.int64: "int64", torch.int32: "int32", torch.bool: "bool",
               torch.float64: "double"}


def script_inputs(path):
    """The script's `inputs = [...]` list, evaluated on its own (with torch)."""
    lines = (ROOT / path).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("inputs = ["))
    end = next(i for i in range(start, len(lines)) if lines[i].rstrip() == "]")
    scope = {"torch": torch}
    exec(compile("\n".join(lines[start:end + 1]), str(path), "exec"), scope)
    return scope["inputs"]


def input_names(path):
    text = (ROOT / path).read_text()
    return re.findall(r"^\s*(T\d+) = fd\.define_tensor\(", text, re.M)


def resized(t, shape):
    if t.dtype.is_floating_point:
        fresh = torch.randn(shape, dtype=t.dtype, device=t.device)
        return fresh.abs() if bool((t >= 0).all()) else fresh
    return torch.randint(int(t.min()), int(t.max()) + 1, shape, dtype=t.dtype, device=t.device)


def nbytes(tensors):
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    return sum(t.numel() * t.element_size() for t in tensors if isinstance(t, torch.Tensor))


def bench_ms(fn, repeats=1):
    """The lowest of `repeats` do_bench medians: a torch call whose Python
    overhead outlasts the flush before it leaves the GPU idle inside the timed
    span now and then (torch.compile's Adam step over 4M floats took 33.0 us
    in one call and 62.3 in another), and the best of several keeps that out
    of torch's figures."""
    import triton.testing
    return min(triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
               for _ in range(repeats))


def copy_gbps():
    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda")  # 1 GiB
    dst = torch.empty_like(src)
    return 2 * src.numel() * 4 / bench_ms(lambda: dst.copy_(src)) / 1e6


def flushed_copy_us(nbytes, repeats):
    """do_bench of a copy moving `nbytes` (half read, half written), the
    lowest of `repeats` medians as torch's own figures."""
    half = max(16, nbytes // 2) // 16 * 16
    src = torch.empty(half, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return bench_ms(lambda: dst.copy_(src), repeats) * 1e3


def run_fusebox(fusebox, script, shapes, dtypes, launches, extra):
    cmd = [fusebox, "run", str(ROOT / script), "--backend", "cuda", "--no-ir",
           "--bench", str(launches)] + extra
    for name, shape in shapes.items():
        cmd += ["--input", f"{name}={'x'.join(map(str, shape))}:{dtypes[name]}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}
    kernels = [float(m) for m in re.findall(r"^bench: group \d+ kernel \S+: median ([\d.]+) ms",
                                            p.stdout, re.M)]
    call = re.search(r"^bench: call: median ([\d.]+) ms", p.stdout, re.M)
    run_line = re.search(r"^run 1: .*", p.stdout, re.M).group(0)
    schedulers = re.findall(r"group \d+ by (\w+)", run_line)
    if call is None:
        return {"error": "no `bench: call` line in fusebox's output"}
    return {"us": float(call.group(1)) * 1e3, "kernel_sum_us": sum(kernels) * 1e3,
            "kernels": len(kernels), "schedulers": schedulers}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fusebox", default=str(ROOT / "build/gpu-rel/bin/fusebox"))
    ap.add_argument("--only", help="run the workloads whose name matches this regex")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    ap.add_argument("--launches", type=int, default=20, help="fusebox --bench N")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--torch-repeats", type=int, default=3,
                    help="time eager and torch.compile this many times (do_bench each), keep "
                         "the lowest median")
    ap.add_argument("--fusebox-args", default="",
                    help="more arguments for `fusebox run` (e.g. \"--shapes symbolic\")")
    ap.add_argument("--torch-json",
                    help="take the eager, torch.compile and flushed-copy figures from this "
                         "--json of an earlier run on the same GPU and time fusebox alone (A/B "
                         "of fusebox builds or options)")
    ap.add_argument("--json", help="write the rows here (again after each workload)")
    args = ap.parse_args()
    chosen = [e for e in CORPUS if not args.only or re.search(args.only, e[0])]
    if args.list:
        for name, script, shapes, _ in chosen:
            print(f"{name:36} {script} {shapes or ''}")
        return
    earlier = {}
    if args.torch_json:
        earlier = {r["workload"]: r for r in json.loads(Path(args.torch_json).read_text())}
    copy = earlier[next(iter(earlier))]["copy_gbps"] if earlier else copy_gbps()
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, copy {copy:.0f} GB/s, "
          f"{len(chosen)} workloads" +
          (f"; torch's figures and the copies from {args.torch_json}" if earlier else ""))
    header = (f"{'workload':36} {'fusebox us':>10} {'k':>2} {'%copy':>6} {'%fcopy':>6} "
              f"{'eager us':>9} {'compile us':>10} {'%copy':>6} {'%fcopy':>6} {'fb/compile':>10}"
              f"  schedulers")
    print(header, flush=True)
    rows = []
    for name, script, shapes, twin in chosen:
        start = time.time()
        inputs = script_inputs(script)
        names = input_names(script)
        dtypes = {n: DTYPE_NAMES[t.dtype] for n, t in zip(names, inputs)
                  if isinstance(t, torch.Tensor)}
        for k, n in enumerate(names):
            if n in shapes:
                inputs[k] = resized(inputs[k], shapes[n])
        fb = run_fusebox(args.fusebox, script, shapes, dtypes, args.launches,
                         args.fusebox_args.split())
        row = {"workload": name, "copy_gbps": copy, **fb}
        if earlier:
            for key in ("bytes", "flushed_copy_us", "eager_us", "compile_us"):
                if key in earlier.get(name, {}):
                    row[key] = earlier[name][key]
        elif twin is not None:
            fresh = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
            moved = nbytes(inputs) + nbytes(twin(*fresh))
            row["bytes"] = moved
            row["flushed_copy_us"] = flushed_copy_us(moved, args.torch_repeats)
            row["eager_us"] = bench_ms(lambda: twin(*inputs), args.torch_repeats) * 1e3
            if not args.no_compile:
                # A fresh static-shape compile per workload: a twin seen
                # before at another size would otherwise be recompiled with
                # dynamic shapes (slower kernels than torch.compile makes).
                torch._dynamo.reset()
                compiled = torch.compile(twin, dynamic=False)
                compiled(*[t.clone() if isinstance(t, torch.Tensor) else t for t in inputs])
                row["compile_us"] = bench_ms(lambda: compiled(*inputs), args.torch_repeats) * 1e3
        rows.append(row)
        fb_us, comp = row.get("us"), row.get("compile_us")
        ratio = fb_us / comp if fb_us and comp else None
        row["ratio"] = ratio

        def pct(us):
            if not us or "bytes" not in row:
                return f"{'-':>6}"
            return f"{100 * row['bytes'] / us / 1e3 / copy:5.0f}%"

        def fpct(us):
            if not us or "flushed_copy_us" not in row:
                return f"{'-':>6}"
            return f"{100 * row['flushed_copy_us'] / us:5.0f}%"

        fb_text = f"{fb_us:10.1f}" if fb_us else f"{'error':>10}"
        comp_text = f"{comp:10.1f}" if comp else f"{'-':>10}"
        ratio_text = f"{ratio:10.2f}" if ratio else f"{'-':>10}"
        chosen_by = ",".join(fb.get("schedulers", [])) or fb.get("error", "")
        if "expr_eval" in fb.get("schedulers", []):
            chosen_by += " (host segments inside the time)"
        print(f"{name:36} {fb_text} {fb.get('kernels', 0):2d} {pct(fb_us)} {fpct(fb_us)} "
              f"{row.get('eager_us', float('nan')):9.1f} {comp_text} {pct(comp)} {fpct(comp)} "
              f"{ratio_text}  "
              f"{chosen_by}  [{time.time() - start:.0f}s]", flush=True)
        del inputs
        torch.cuda.empty_cache()
        if args.json:  # after every row: a run cut off by a time limit keeps what it timed
            Path(args.json).write_text(json.dumps(rows, indent=1))
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"geometric mean fusebox / torch.compile over {len(ratios)} workloads: {geo:.3f}; "
              f"above 1.0: {sum(r > 1.0 for r in ratios)}")


if __name__ == "__main__":
    main()
