"""The Python module's host overhead and asynchrony on the GPU (issue 32).

- per call: back-to-back fd.execute calls of a one-kernel fusion on a small
  tensor (a cache hit every time), wall time per call over N calls with one
  synchronize at the end; beside it the same loop of torch's own op (one
  kernel) and of the bare launch the C++ benchmark measures
  (runtime_overhead_benchmark: BM_BareLaunch_Cuda).
- where the time goes: the same loop split into describing the inputs
  (Python), the extension's call (C++ run(): signature, lookup, launch) and
  building the outputs (DLPack to torch).
- asynchrony: N calls of a kernel that takes ~0.1 ms: the loop returns long
  before the kernels finish, and the whole takes about N kernel times.

    PYTHONPATH=<build>/python python3 benchmarks/python_overhead.py [--json FILE]
"""

import json
import sys
import time

import torch

import fusebox
from fusebox import DataType, FusionDefinition, _torch


def per_call_us(fn, n=3000):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / n * 1e6


def main():
    results = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
               "fusebox": fusebox.version()}
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        fd.add_output(fd.ops.exp(t0))
    x = torch.randn(1024, device="cuda")
    (out,) = fd.execute([x])
    torch.testing.assert_close(out, torch.exp(x))
    results["execute_us"] = per_call_us(lambda: fd.execute([x]))
    results["torch_exp_us"] = per_call_us(lambda: torch.exp(x))
    results["torch_empty_like_us"] = per_call_us(lambda: torch.empty_like(x))

    # Where it goes: the three parts of execute, each timed alone.
    fusion, described, run, stream, want_cuda = fd._prepare("execute", [x], None, (None,) * 5)
    results["describe_inputs_us"] = per_call_us(
        lambda: fd._prepare("execute", [x], None, (None,) * 5))
    results["extension_call_us"] = per_call_us(lambda: fusion.execute(described, run, stream, want_cuda))
    results["extension_and_outputs_us"] = per_call_us(
        lambda: _torch.make_outputs(fusion.execute(described, run, stream, want_cuda)[0], [x]))

    # Asynchrony: a kernel of ~0.1 ms, 50 calls.
    big = torch.randn(32 << 20, device="cuda")
    fd.execute([big])
    torch.cuda.synchronize()
    start = time.perf_counter()
    fd.execute([big])
    torch.cuda.synchronize()
    one = time.perf_counter() - start
    n = 50
    start = time.perf_counter()
    for _ in range(n):
        fd.execute([big])
    queued = time.perf_counter() - start
    torch.cuda.synchronize()
    total = time.perf_counter() - start
    results["async_one_call_ms"] = one * 1e3
    results["async_50_calls_returned_ms"] = queued * 1e3
    results["async_50_calls_done_ms"] = total * 1e3
    results["kernel_ms"] = fd.benchmark([big], iterations=20)[0]["median_ms"]

    # A kernel with index checks returns as soon too: its error record is
    # read in the background. Behind ~0.1 s of GPU work, the call must not
    # take that long.
    with FusionDefinition() as gather:
        t0 = gather.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t1 = gather.define_tensor(shape=[-1], dtype=DataType.Int)
        gather.add_output(gather.ops.index_select(t0, t1, dim=0))
    table = torch.randn(1024, 64, device="cuda")
    rows = torch.randint(0, 1024, (4096,), device="cuda")
    gather.execute([table, rows])
    torch.cuda.synchronize()
    torch.cuda._sleep(200_000_000)
    start = time.perf_counter()
    gather.execute([table, rows])
    results["index_call_behind_busy_gpu_ms"] = (time.perf_counter() - start) * 1e3
    fusebox.synchronize()
    results["index_execute_us"] = per_call_us(lambda: gather.execute([table, rows]), n=1000)

    for k, v in results.items():
        print(f"{k}: {v:.2f}" if isinstance(v, float) else f"{k}: {v}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
