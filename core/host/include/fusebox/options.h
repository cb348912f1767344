// The option set for dumps and runtime checks, from three places, later wins:
// the config's [dump] / [runtime] tables, the environment (FUSEBOX_DUMP,
// FUSEBOX_RUNTIME), the command line.
//
//   FUSEBOX_DUMP=print_after=all,time_passes
//   FUSEBOX_DUMP=segmented_fusion,segmenter_log,graph_file=segments.dot
//   FUSEBOX_RUNTIME=verify_passes=false
//   FUSEBOX_DISABLE=concretize_resize_extents      ([runtime] bools, as nvFuser's)
//
// In the environment a bare name sets a bool option to true; a list option
// given several times in one place collects every value.
#pragma once

#include <fusebox/config.h>
#include <fusebox/option_value.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

// [runtime] shapes: whether kernels bake sizes in (Static), read them from
// their parameters (Symbolic), or bake them in for the first signature of a
// concretization and read them for every later one (Auto: a fusion that
// runs at one size keeps static kernels; one that sees a second size gets
// kernels every later size reuses).
enum class ShapesPolicy { Static, Symbolic, Auto };

class Options {
 public:
  // Built-in defaults (docs/config.md lists them).
  Options();

  // The tables that exist ("dump", "runtime") and the options of each.
  static std::vector<std::string> tables();
  static const std::vector<OptionSpec>& specs(std::string_view table);

  // Sets options of one table; unknown tables, unknown names and wrong types are
  // UserErrors at the setting's location listing the valid names.
  void apply(std::string_view table, const OptionSettings& settings);
  // config < environment < command line: call in that order.
  void applyConfig(const Config& config);
  // Reads FUSEBOX_DUMP, FUSEBOX_RUNTIME and FUSEBOX_DISABLE.
  void applyEnvironment();
  // FUSEBOX_DISABLE's text: "name,name": each a [runtime] bool set to false.
  void applyDisableText(std::string_view variable, std::string_view text);
  // Parses one variable's text: "name[=value],name[=value]..." for `table`.
  void applyEnvironmentText(std::string_view variable, std::string_view table,
                            std::string_view text);

  const OptionValue& get(std::string_view table, std::string_view name) const;

  // [dump]
  // Print the IR after passes: "all", "changed" and/or pass names.
  const std::vector<std::string>& printAfter() const;
  // IR dumps include the transform section (allocation domains, contiguity).
  bool printTransforms() const;
  // A table of per-pass times after the pipeline ran.
  bool timePasses() const;
  // The runtime's dumps (runtime.h), printed when an input signature is first seen.
  bool dumpConcretizedFusion() const;  // the fusion concretized, and its facts
  bool dumpRuntimeCache() const;       // how each new signature was served
  bool dumpFusionIr() const;           // the IR after passes, before segmentation
  bool dumpSegmentedFusion() const;    // SegmentedFusion::toString()
  bool dumpSegmenterLog() const;       // refusals and fallbacks
  bool dumpSchedulerParams() const;    // each segment's scheduler, params and plan
  bool dumpKernelIr() const;           // each kernel's kernel IR (docs/kernel-ir.md)
  bool dumpKernelSource() const;       // each generated kernel's source
  // ptxas's report on each generated kernel (NVRTC for the planned device).
  bool dumpPtxasInfo() const;
  // The device properties planned for, once a run (the backend's, or
  // [runtime] device's on the host).
  bool dumpDeviceProperties() const;
  // Where to write the segment graph (Graphviz); empty: nowhere.
  const std::string& graphFile() const;
  // [runtime]
  // Verifier after each pass, and the pass's "changed" claim checked by hash.
  bool verifyPasses() const;
  // Resize extents become constants of the concretized fusion (docs/runtime.md).
  bool concretizeResizeExtents() const;
  bool forwardInputs() const;
  // [runtime] device: the GPU a host-backend run plans for (device_spec.h);
  // empty: the host's own properties.
  const std::string& device() const;
  // [runtime] shapes (docs/runtime.md, "Kernels across sizes").
  ShapesPolicy shapes() const;

 private:
  std::map<std::string, std::map<std::string, OptionValue>, std::less<>> values_;
};

}  // namespace fusebox
