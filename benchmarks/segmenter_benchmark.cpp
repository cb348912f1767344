// The segmenter on generated fusions of 100, 1,000 and 5,000 tensor
// expressions: chains of pointwise ops where every tenth step is a keepdim sum
// whose result is subtracted from the value it reduced (a diamond, as in a
// normalization), so the segmenter has real work: thousands of singles to
// check, merges to try level by level, merges across a reduction to refuse,
// and cycle checks on every diamond. Schedulers: the test schedulers
// pointwise_only and single_reduction (tests/scheduler_fixtures), made
// directly. docs/perf.md has the figures.
#include <benchmark/benchmark.h>

#include <fusebox/ir/ops.h>
#include <fusebox/segmenter.h>

#include <random>

#include "fixture_schedulers.h"

namespace {

using namespace fusebox;

std::unique_ptr<Fusion> chainWithReductions(int64_t exprs, int64_t reduce_every) {
  auto f = std::make_unique<Fusion>();
  TensorView* in = defineSymbolicTensor(*f, 2);
  TensorView* x = in;
  int64_t step = 0;
  while (static_cast<int64_t>(f->allExprs().size()) < exprs) {
    ++step;
    if (step % reduce_every == 0) {
      TensorView* r = sum(x, {1}, /*keepdim=*/true);  // sum + broadcast
      x = sub(x, r);
    } else if (step % 3 == 0) {
      x = add(x, in);
    } else {
      x = step % 3 == 1 ? tanh(x) : mul(x, f->constantDouble(0.5));
    }
  }
  f->addOutput(x);
  return f;
}

// Operands drawn from everything made so far (mostly recent, sometimes far
// back): diamonds and long skip edges everywhere, so most merges need a real
// cycle check.
std::unique_ptr<Fusion> randomDag(int64_t exprs, uint32_t seed) {
  auto f = std::make_unique<Fusion>();
  std::mt19937 rng(seed);
  std::vector<TensorView*> made = {defineSymbolicTensor(*f, 2)};
  std::geometric_distribution<size_t> back(0.3);
  std::uniform_int_distribution<int> kind(0, 9);
  auto pick = [&] { return made[made.size() - 1 - std::min(back(rng), made.size() - 1)]; };
  while (static_cast<int64_t>(f->allExprs().size()) < exprs) {
    int k = kind(rng);
    TensorView* x = pick();
    if (k == 0)
      made.push_back(sum(x, {1}, /*keepdim=*/true));
    else if (k < 4)
      made.push_back(tanh(x));
    else
      made.push_back(k < 7 ? add(x, pick()) : mul(x, pick()));
  }
  // Whatever nothing reads is an output, so every expression is live.
  for (TensorView* t : made)
    if (t->uses().empty() && !t->isFusionInput()) f->addOutput(t);
  return f;
}

std::vector<SchedulerEntry> schedulers() {
  std::vector<SchedulerEntry> out(2);
  out[0].scheduler = std::make_shared<fusebox_test_schedulers::PointwiseOnly>();
  out[1].scheduler = std::make_shared<fusebox_test_schedulers::SingleReduction>();
  return out;
}

void BM_SegmentChainWithReductions(benchmark::State& state) {
  auto f = chainWithReductions(state.range(0), 10);
  TensorArgInfo input{DataType::Float, {1024, 4096}, {4096, 1}, 256};
  Segmenter::Counters counters;
  size_t groups = 0;
  for (auto _ : state) {
    // A fresh segmenter each time: no compile-time decisions carried over.
    Segmenter segmenter(schedulers());
    FusionRuntimeFacts facts(*f, {input}, DeviceProperties{});
    auto result = segmenter.segment(*f, facts);
    groups = result->groups().size();
    counters = segmenter.counters();
    benchmark::DoNotOptimize(result);
  }
  state.counters["exprs"] = static_cast<double>(f->tensorExprs().size());
  state.counters["groups"] = static_cast<double>(groups);
  state.counters["extractions"] = static_cast<double>(counters.extractions);
  state.counters["proposals"] = static_cast<double>(counters.proposals_asked);
  state.counters["refusals_reused"] = static_cast<double>(counters.structural_refusals_reused);
}
BENCHMARK(BM_SegmentChainWithReductions)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

void BM_SegmentRandomDag(benchmark::State& state) {
  auto f = randomDag(state.range(0), 1);
  TensorArgInfo input{DataType::Float, {1024, 4096}, {4096, 1}, 256};
  Segmenter::Counters counters;
  size_t groups = 0;
  for (auto _ : state) {
    Segmenter segmenter(schedulers());
    FusionRuntimeFacts facts(*f, {input}, DeviceProperties{});
    auto result = segmenter.segment(*f, facts);
    groups = result->groups().size();
    counters = segmenter.counters();
    benchmark::DoNotOptimize(result);
  }
  state.counters["exprs"] = static_cast<double>(f->tensorExprs().size());
  state.counters["groups"] = static_cast<double>(groups);
  state.counters["extractions"] = static_cast<double>(counters.extractions);
}
BENCHMARK(BM_SegmentRandomDag)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

// The chain with the segmenter_log collected (every refusal formatted).
void BM_SegmentChainWithReductionsAndLog(benchmark::State& state) {
  auto f = chainWithReductions(state.range(0), 10);
  TensorArgInfo input{DataType::Float, {1024, 4096}, {4096, 1}, 256};
  size_t entries = 0;
  for (auto _ : state) {
    Segmenter segmenter(schedulers());
    FusionRuntimeFacts facts(*f, {input}, DeviceProperties{});
    std::vector<SegmenterLogEntry> log;
    auto result = segmenter.segment(*f, facts, &log);
    entries = log.size();
    benchmark::DoNotOptimize(result);
  }
  state.counters["log_entries"] = static_cast<double>(entries);
}
BENCHMARK(BM_SegmentChainWithReductionsAndLog)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
