// Helpers for the segmenter tests: the test-only schedulers, the fusions of
// examples/ and the corpus with small inputs, and running segments one after
// another to compare with evaluating the complete fusion.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/printer.h>
#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/runtime.h>
#include <fusebox/segmenter.h>

#include <gtest/gtest.h>

#include "support/output_match.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox::segmenter_testing {

namespace fs = std::filesystem;

inline const PluginRegistry& testSchedulers() {
  static const PluginRegistry registry = [] {
    PluginRegistry r;
    r.discover({{fs::path(FUSEBOX_TEST_SCHEDULERS_DIR), {}}});
    return r;
  }();
  return registry;
}

// Fresh scheduler objects from the test plugins, in this order.
inline std::vector<SchedulerEntry> schedulersNamed(const std::vector<std::string>& names) {
  std::vector<SchedulerEntry> out;
  for (const auto& name : names) {
    const PluginDescriptor* d = testSchedulers().find(name, PluginKind::Scheduler);
    if (d == nullptr) throw std::runtime_error("no test scheduler " + name);
    auto object = testSchedulers().createObject(name, PluginKind::Scheduler);
    out.push_back({*d, std::static_pointer_cast<Scheduler>(object)});
  }
  return out;
}

inline std::vector<ArgumentInfo> infosOf(const std::vector<Argument>& args) {
  std::vector<ArgumentInfo> out;
  for (const auto& a : args) out.push_back(argumentInfo(a));
  return out;
}

inline FusionRuntimeFacts factsFor(const Fusion& f, const std::vector<Argument>& args) {
  return FusionRuntimeFacts(f, infosOf(args), DeviceProperties{});
}

// A fusion from a definition file with its inputs list, made small where the
// fusion allows it (sizes > 16 shrink to 8..14; equal sizes stay equal).
struct Program {
  std::string name;
  PythonDefinition definition;
  bool shrink = false;
  const Fusion& fusion() const { return *definition.fusion; }
  // Freshly made inputs (an aliased output writes into its input).
  std::vector<Argument> inputs() const {
    std::vector<Argument> args;
    for (size_t i = 0; i < definition.inputs.size(); ++i) {
      InputSpec spec = definition.inputs[i];
      if (shrink && !spec.strides)
        for (auto& s : spec.shape)
          if (s > 16) s = 8 + s % 7;
      args.push_back(materializeInput(spec, 1000 + i));
    }
    return args;
  }
};

inline std::vector<fs::path> definitionFiles() {
  std::vector<fs::path> files;
  for (const char* dir : {"examples", "tests/data/corpus"})
    for (const auto& entry : fs::directory_iterator(fs::path(FUSEBOX_SOURCE_DIR) / dir))
      if (entry.path().extension() == ".py") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

inline Program loadProgram(const fs::path& path) {
  Program p{path.parent_path().filename().string() + "/" + path.filename().string(),
            parsePythonFile(path.string()), true};
  try {
    (void)evaluateFusion(p.fusion(), p.inputs());
  } catch (const UserError&) {
    p.shrink = false;  // constant extents or reshapes that need the real sizes
  }
  return p;
}

inline Program loadExample(const std::string& file) {
  return loadProgram(fs::path(FUSEBOX_SOURCE_DIR) / "examples" / file);
}

// One segment to run: its fusion, the complete-fusion values behind its inputs
// and outputs, and optionally the plan a scheduler made (else the evaluator).
struct SegmentToRun {
  const Fusion* fusion;
  const std::vector<Val*>* inputs;
  const std::vector<Val*>* outputs;
  const HostPlan* plan = nullptr;
};

// Runs segments in the order given, feeding each one's outputs to later ones;
// scalar inputs that are not fusion inputs are evaluated from the complete
// fusion's inputs. Returns the complete fusion's outputs.
inline std::vector<Argument> runSegments(const Fusion& complete,
                                         const std::vector<SegmentToRun>& segments,
                                         const std::vector<Argument>& inputs) {
  ExpressionEvaluator ee;
  std::unordered_map<const Val*, Argument> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Val* v = complete.inputs()[i];
    values[v] = inputs[i];
    if (v->isTensor())
      ee.bindTensor(v->as<TensorView>(), std::get<Tensor>(inputs[i]), v->toString());
    else
      ee.bind(v, std::get<ScalarValue>(inputs[i]), v->toString());
  }
  auto valueOf = [&](const Val* v) -> Argument {
    if (auto it = values.find(v); it != values.end()) return it->second;
    if (v->isScalar()) return ee.evaluateOrThrow(v);
    throw std::runtime_error("tensor " + v->toString() + " was not computed before it is read");
  };
  for (const auto& s : segments) {
    std::vector<Argument> args;
    for (const Val* v : *s.inputs) args.push_back(valueOf(v));
    // A segment that writes an output into an input gets its own copy, so
    // later readers of that input still see the original values.
    for (const Val* out : s.fusion->outputs())
      if (const Val* in = s.fusion->aliasedInput(out)) {
        auto pos = std::find(s.fusion->inputs().begin(), s.fusion->inputs().end(), in);
        auto& a = args[pos - s.fusion->inputs().begin()];
        a = std::get<Tensor>(a).contiguous(true);
      }
    auto outs = s.plan ? s.plan->run(args) : evaluateFusion(*s.fusion, args);
    EXPECT_EQ(outs.size(), s.outputs->size());
    for (size_t i = 0; i < outs.size() && i < s.outputs->size(); ++i) {
      const Val* v = (*s.outputs)[i];
      values[v] = v->isTensor()
                      ? Argument(boundaryView(v->as<TensorView>(), std::get<Tensor>(outs[i])))
                      : outs[i];
    }
  }
  std::vector<Argument> result;
  for (const Val* out : complete.outputs()) result.push_back(valueOf(out));
  return result;
}

inline std::vector<SegmentToRun> segmentsOf(const SegmentedFusion& sf) {
  std::vector<SegmentToRun> out;
  for (const auto& g : sf.groups()) out.push_back({g.fusion.get(), &g.inputs, &g.outputs});
  return out;
}

// Same dtype, sizes and values, bit for bit (NaN equals NaN).
inline void expectSameOutputs(const std::vector<Argument>& got, const std::vector<Argument>& want,
                              const std::string& context) {
  ASSERT_EQ(got.size(), want.size()) << context;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(testing::matchesExactly(got[i], want[i])) << context << " output " << i;
}

}  // namespace fusebox::segmenter_testing
