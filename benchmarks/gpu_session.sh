#!/usr/bin/env bash
# One device call's worth of GPU work (docs/perf.md): the gpu-labelled tests,
# the pointwise and reduction workloads on the cuda backend (validated, then timed with CUDA
# events), the same math in eager PyTorch and torch.compile, and the runtime
# overhead benchmark. Results land in $OUT (or ./gpu-results).
#   benchmarks/gpu_session.sh [BUILD_DIR]   (default build/gpu-rel, a Release
#   build with the shared libraries the device lacks in BUILD_DIR/extlib)
# The build folder with its object files is over the 64 MiB a device call
# carries; carry a copy without them and link it back to build/gpu-rel there
# (its RUNPATH and ctest files name that folder):
#   (cd build/gpu-rel && tar cf - --exclude='*.o' --exclude='*.a' --exclude=CMakeFiles .) |
#     (mkdir -p build/gpu-slim && cd build/gpu-slim && tar xf -)
#   on the device: ln -sfn gpu-slim build/gpu-rel && benchmarks/gpu_session.sh
# PARTS (default "tests pointwise reduction normalization overhead"; also
# validate_mid, compare, dynamic, dynamic_check, indexing, forwarding and
# welford_splits) picks
# what runs, e.g. PARTS=normalization benchmarks/gpu_session.sh; VALIDATE=0
# skips the normalization part's full-size validation (the host evaluator
# takes most of a call at 16384x4096).
# Kernels are timed over 30 launches: each --bench also times run() with
# host inputs copied every call, which is most of the session's 10 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu-rel}
out=${OUT:-gpu-results}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$build/extlib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export FUSEBOX_KERNEL_CACHE_DIR=${FUSEBOX_KERNEL_CACHE_DIR:-/tmp/fusebox-gpu-cache}

nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv \
  > "$out/gpu.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__)' >> "$out/gpu.txt" 2>&1

parts=" ${PARTS:-tests pointwise reduction normalization overhead} "
want() { [[ "$parts" == *" $1 "* ]]; }

if want tests; then
ctest --test-dir "$build" -L gpu --output-on-failure -j8 > "$out/gpu_tests.log" 2>&1
echo "ctest -L gpu exit $?" >> "$out/gpu_tests.log"
fi

if want pointwise; then
workloads=(bias_gelu gelu_backward_pointwise bf16_cast_mul_add broadcast_heavy rope_bf16)
{
  for w in "${workloads[@]}"; do
    echo "== $w"
    "$build/bin/fusebox" run "benchmarks/workloads/$w.py" --no-ir --backend cuda --validate
    "$build/bin/fusebox" run "benchmarks/workloads/$w.py" --no-ir --backend cuda --bench 30
  done
} > "$out/fusebox_pointwise.log" 2>&1

python3 benchmarks/torch_pointwise.py --iters 100 > "$out/torch_pointwise.log" 2>&1
fi

if want reduction; then
# The GELU backward + bias gradient is the example itself (16x512x4096).
reductions=(benchmarks/workloads/sum_rows_f32 benchmarks/workloads/sum_cols_f32
            benchmarks/workloads/sum_rows_bf16 examples/gelu_bias_grad
            benchmarks/workloads/sum_cols_wide_f32 benchmarks/workloads/sum_short_rows_f32)
{
  for w in "${reductions[@]}"; do
    echo "== $(basename "$w")"
    "$build/bin/fusebox" run "$w.py" --no-ir --backend cuda --validate \
      --dump segmenter_log,scheduler_params
    "$build/bin/fusebox" run "$w.py" --no-ir --backend cuda --bench 30
  done
} > "$out/fusebox_reduction.log" 2>&1

(cd benchmarks && python3 torch_reduction.py --iters 100) > "$out/torch_reduction.log" 2>&1
fi

if want normalization; then
# Issue 11: each at 16384x4096 as written; the forwards and the layernorm
# backward also at 32768x1024 (inputs overridden by --input); batch norm
# (outer) at 4096x2048 as written and at 16384x1024 (split: too large to
# keep on chip).
big=32768 small=1024
wide="-i T0=2048x131072:bfloat16 -i T1=131072:bfloat16 -i T2=131072:bfloat16"
norms=(
  "layernorm_fwd_bf16"
  "layernorm_fwd_bf16 -i T0=${big}x${small}:bfloat16 -i T1=${small}:bfloat16 -i T2=${small}:bfloat16"
  "rmsnorm_fwd_bf16"
  "rmsnorm_fwd_bf16 -i T0=${big}x${small}:bfloat16 -i T1=${small}:bfloat16"
  "softmax_fwd_bf16"
  "softmax_fwd_bf16 -i T0=${big}x${small}:bfloat16"
  "layernorm_bwd_bf16"
  "layernorm_bwd_bf16 -i T0=${big}x${small}:bfloat16 -i T1=${big}x${small}:bfloat16 -i T2=${big}:float -i T3=${big}:float -i T4=${small}:bfloat16"
  "softmax_bwd_bf16"
  "rmsnorm_bwd_bf16"
  "batchnorm_fwd_bf16"
  "batchnorm_fwd_bf16 -i T0=16384x1024:bfloat16 -i T1=1024:bfloat16 -i T2=1024:bfloat16"
  "layernorm_fwd_bf16 ${wide}"
  "layernorm_fwd_bf16 ${wide} --config $out/registers_only.toml")
# A row too wide for the registers: part of it in shared memory, against the
# split the fusion gets when buffers may only live in registers.
printf '[schedulers.inner_persistent]\npersistent_buffers = "registers"\n' > "$out/registers_only.toml"
{
  for spec in "${norms[@]}"; do
    read -r -a args <<< "$spec"
    echo "== ${spec}"
    if [[ "${VALIDATE:-1}" == 1 ]]; then
      "$build/bin/fusebox" run "benchmarks/workloads/${args[0]}.py" "${args[@]:1}" --no-ir \
        --backend cuda --validate --dump segmented_fusion,scheduler_params
    fi
    "$build/bin/fusebox" run "benchmarks/workloads/${args[0]}.py" "${args[@]:1}" --no-ir \
      --backend cuda --bench 30
  done
} > "$out/fusebox_normalization.log" 2>&1
(cd benchmarks && python3 torch_normalization.py --iters 100) > "$out/torch_normalization.log" 2>&1
fi

if want validate_mid; then
# Every normalization workload validated on the GPU at 2048x4096 and
# 8192x1024 (the host evaluator checks a quarter of the timed size quickly).
{
  for shape in 2048x4096 8192x1024; do
    rows=${shape%x*} cols=${shape#*x}
    m="${rows}x${cols}:bfloat16"
    for spec in "layernorm_fwd_bf16 -i T0=$m -i T1=${cols}:bfloat16 -i T2=${cols}:bfloat16" \
                "rmsnorm_fwd_bf16 -i T0=$m -i T1=${cols}:bfloat16" \
                "softmax_fwd_bf16 -i T0=$m" \
                "softmax_bwd_bf16 -i T0=$m -i T1=$m" \
                "layernorm_bwd_bf16 -i T0=$m -i T1=$m -i T2=${rows}:float -i T3=${rows}:float -i T4=${cols}:bfloat16" \
                "rmsnorm_bwd_bf16 -i T0=$m -i T1=$m -i T2=${rows}:float -i T3=${cols}:bfloat16" \
                "batchnorm_fwd_bf16 -i T0=$m -i T1=${cols}:bfloat16 -i T2=${cols}:bfloat16"; do
      read -r -a args <<< "$spec"
      echo "== ${spec}"
      "$build/bin/fusebox" run "benchmarks/workloads/${args[0]}.py" "${args[@]:1}" --no-ir \
        --backend cuda --validate --dump segmented_fusion
    done
  done
} > "$out/fusebox_validate_mid.log" 2>&1
fi

if want compare; then
# Issue 12: the built-in pointwise heuristic against the third-party
# pointwise_waves plugin (built against the installed SDK into
# $build/waves: see docs/perf.md) on every workload, and against a forced
# unroll of 1 on the pointwise ones. Outputs are checked against the
# evaluator on the pointwise workloads (the normalization ones are too large
# for the host evaluator within one call).
waves=${WAVES_CONFIG:-$build/waves/pointwise_waves.toml}
names=" bias_gelu gelu_backward_pointwise bf16_cast_mul_add broadcast_heavy "
pointwise=() others=()
for f in benchmarks/workloads/*.py; do
  if [[ "$names" == *" $(basename "$f" .py) "* ]]; then pointwise+=("$f"); else others+=("$f"); fi
done
"$build/bin/fusebox" compare "${pointwise[@]}" --backend cuda \
  --variant builtin= --variant "waves=--config $waves" \
  --variant 'unroll1=--set schedulers.pointwise.unroll=1' --repetitions 20 \
  --json "$out/compare_pointwise.json" > "$out/compare_pointwise.log" 2>&1
"$build/bin/fusebox" compare "${others[@]}" --backend cuda --no-check \
  --variant builtin= --variant "waves=--config $waves" --repetitions 20 \
  --json "$out/compare_others.json" > "$out/compare_others.log" 2>&1
"$build/bin/fusebox" bench benchmarks/workloads --backend cuda --no-check --repetitions 10 \
  --json "$out/bench_builtin.json" > "$out/bench_builtin.log" 2>&1
fi

if want dynamic; then
# Issue 13: symbolic against static kernels on every workload (fusebox
# compare: the same fusion, the two [runtime] shapes).
"$build/bin/fusebox" compare benchmarks/workloads/*.py --backend cuda --no-check \
  --variant 'static=--set runtime.shapes="static"' \
  --variant 'symbolic=--set runtime.shapes="symbolic"' --repetitions 10 \
  --json "$out/compare_shapes.json" > "$out/compare_shapes.log" 2>&1
fi

if want dynamic_check; then
# Symbolic kernels on the GPU at mid sizes (the host evaluator checks them
# quickly): a first size compiles, a --sweep size reuses the kernel where the
# decisions agree, and --validate checks that last run. Then the cold start
# of a new size with a compiled kernel (the overhead benchmark's BM_NewSize*).
checks=(
  "benchmarks/workloads/bias_gelu -i T0=4096x4096 -i T1=4096 --sweep T0=4000x4096"
  "benchmarks/workloads/broadcast_heavy -i T0=16x1024x1024 -i T3=16 --sweep T0=12x1024x1024,T3=12"
  "examples/rope"
  "benchmarks/workloads/sum_rows_f32 -i T0=4096x4096 --sweep T0=4000x4096"
  "benchmarks/workloads/sum_cols_f32 -i T0=4096x4096 --sweep T0=4096x4000"
  "benchmarks/workloads/sum_rows_bf16 -i T0=4096x4096 --sweep T0=3000x4096"
  "benchmarks/workloads/sum_short_rows_f32 -i T0=131072x32 --sweep T0=131000x32")
{
  for spec in "${checks[@]}"; do
    read -r -a args <<< "$spec"
    echo "== ${spec} (symbolic)"
    "$build/bin/fusebox" run "${args[0]}.py" "${args[@]:1}" --no-ir --backend cuda --validate \
      --shapes symbolic --dump scheduler_params
  done
} > "$out/symbolic_validate.log" 2>&1
"$build/bin/fusebox_runtime_overhead_benchmark" --benchmark_filter=NewSize \
  > "$out/new_size.log" 2>&1
fi

if want indexing; then
# Issue 14: indirect loads in pointwise kernels (an embedding lookup, a
# gather along rows) and the block-scan kernel (cumsum along rows),
# validated, then timed, against eager PyTorch and torch.compile.
{
  for w in embedding_bf16 gather_rows_f32 cumsum_rows_f32; do
    echo "== $w"
    "$build/bin/fusebox" run "benchmarks/workloads/$w.py" --no-ir --backend cuda --validate \
      --dump scheduler_params
    "$build/bin/fusebox" run "benchmarks/workloads/$w.py" --no-ir --backend cuda --bench 30
  done
} > "$out/fusebox_indexing.log" 2>&1
python3 benchmarks/torch_indexing.py --iters 100 > "$out/torch_indexing.log" 2>&1
fi

if want forwarding; then
# Input forwarding (docs/segmentation.md): fusions too large for a persistent
# kernel are split; with forward_inputs each kernel reads the bf16 input and
# casts it, without it one kernel writes the float copy for the other.
bn="-i T0=16384x1024:bfloat16 -i T1=1024:bfloat16 -i T2=1024:bfloat16"
ln="-i T0=1024x262144:bfloat16 -i T1=262144:bfloat16 -i T2=262144:bfloat16"
sm="-i T0=1024x262144:bfloat16"
{
  for fw in true false; do
    echo "== validate, forward_inputs=$fw"
    "$build/bin/fusebox" run benchmarks/workloads/batchnorm_fwd_bf16.py $bn --no-ir --backend cuda \
      --validate --dump segmented_fusion,scheduler_params --set runtime.forward_inputs=$fw
    "$build/bin/fusebox" run benchmarks/workloads/layernorm_fwd_bf16.py ${ln/1024x/16x} --no-ir \
      --backend cuda --validate --set runtime.forward_inputs=$fw
    "$build/bin/fusebox" run benchmarks/workloads/softmax_fwd_bf16.py ${sm/1024x/16x} --no-ir \
      --backend cuda --validate --set runtime.forward_inputs=$fw
    for spec in "batchnorm_fwd_bf16 $bn" "layernorm_fwd_bf16 $ln" "softmax_fwd_bf16 $sm"; do
      read -r -a args <<< "$spec"
      echo "== ${spec} forward_inputs=$fw"
      "$build/bin/fusebox" run "benchmarks/workloads/${args[0]}.py" "${args[@]:1}" --no-ir \
        --backend cuda --bench 30 --set runtime.forward_inputs=$fw
    done
  done
} > "$out/fusebox_forwarding.log" 2>&1
"$build/bin/fusebox" compare benchmarks/workloads/batchnorm_fwd_bf16.py $bn --backend cuda \
  --no-check --variant on= --variant 'off=--set runtime.forward_inputs=false' --repetitions 20 \
  > "$out/compare_forwarding.log" 2>&1
fi

if want welford_splits; then
# The outer var_mean of a split batch norm: the heuristic's splits and
# vector width against forced ones, per shape.
{
  for shape in 16384x1024 65536x1024 16384x4096 262144x256; do
    cols=${shape#*x}
    for splits in 0 32 64 128; do
      echo "== $shape grid_splits=$splits"
      "$build/bin/fusebox" run benchmarks/workloads/batchnorm_fwd_bf16.py \
        -i "T0=$shape:bfloat16" -i "T1=$cols:bfloat16" -i "T2=$cols:bfloat16" --no-ir \
        --backend cuda --bench 30 --set schedulers.reduction.grid_splits=$splits \
        --dump scheduler_params | grep -E "^  grid:|^bench: group 0"
    done
  done
} > "$out/welford_splits.log" 2>&1
fi

if want overhead; then
"$build/bin/fusebox_runtime_overhead_benchmark" --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true > "$out/overhead.log" 2>&1
fi
tail -n 3 "$out"/*.log
