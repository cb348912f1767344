#include <fusebox/options.h>

#include <fusebox/device_spec.h>

#include "config/text_items.h"

#include <fmt/format.h>

#include <cerrno>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace fusebox {

namespace {

#ifdef NDEBUG
constexpr bool kVerifyByDefault = false;
#else
constexpr bool kVerifyByDefault = true;  // DESIGN.md: the verifier runs after each pass in debug
#endif

// Static kernels for a fusion that runs at one size (symbolic ones measured
// up to 1.5% slower there), symbolic ones once it sees a second (docs/perf.md,
// "Symbolic against static kernels").
constexpr const char* kDefaultShapes = "auto";

const std::vector<OptionSpec>& dumpSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"print_after", OptionType::StringList, std::vector<std::string>{},
       "Print the fusion IR after passes: \"all\", \"changed\" (only passes that changed it) "
       "and/or pass names"},
      {"print_transforms", OptionType::Bool, false,
       "IR dumps include the transform section (allocation domains, contiguity, stride orders)"},
      {"time_passes", OptionType::Bool, false,
       "Print a table of the time each pass took after the pipeline ran"},
      {"concretized_fusion", OptionType::Bool, false,
       "Print the fusion concretized for the call's inputs (before passes) and the "
       "concretization facts that key the first cache level, once per concretization"},
      {"runtime_cache", OptionType::Bool, false,
       "Print how each new input signature was served: its concretization (new or reused), and "
       "per kernel segment whether a compiled kernel was reused (same heuristics) or compiled"},
      {"fusion_ir", OptionType::Bool, false,
       "Print the fusion IR the segmenter receives (after the pass pipeline), once per "
       "concretization"},
      {"segmented_fusion", OptionType::Bool, false,
       "Print the segmentation: the fusion with each expression labelled by its group and "
       "scheduler, each group's inputs and outputs, and the edges between groups"},
      {"segmenter_log", OptionType::Bool, false,
       "Print every scheduler's reason for each segment or merge it refused, and each "
       "fallback to another scheduler"},
      {"scheduler_params", OptionType::Bool, false,
       "Print each segment's scheduler, heuristic parameters and plan"},
      {"kernel_ir", OptionType::Bool, false,
       "Print the kernel IR of each kernel a scheduler built through it (before its source "
       "when kernel_source is on too)"},
      {"kernel_source", OptionType::Bool, false,
       "Print the CUDA C++ source of each kernel a scheduler generated"},
      {"ptxas_info", OptionType::Bool, false,
       "Print ptxas's resource report (registers, spills, stack, shared memory) of each "
       "generated kernel, compiled by NVRTC for the device planned for (the GPU, or [runtime] "
       "device on the host backend)"},
      {"device_properties", OptionType::Bool, false,
       "Print the device properties the schedulers plan for (the GPU's on the cuda backend, "
       "[runtime] device's on the host), with the [runtime] device text that gives them "
       "back"},
      {"graph_file", OptionType::String, std::string(),
       "Write the segment graph to this Graphviz file (and an SVG beside it when `dot` is "
       "installed)"},
  };
  return specs;
}

const std::vector<OptionSpec>& runtimeSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"verify_passes", OptionType::Bool, kVerifyByDefault,
       "Run the IR verifier after each pass and check each pass's \"changed\" claim against "
       "the fusion's structural hash (default: on in Debug builds)"},
      {"concretize_resize_extents", OptionType::Bool, true,
       "Concretization makes the input extent and both expansions of every pad, slice and cat "
       "constants, part of the cache key (kernels see constants; a new width compiles anew); "
       "off keeps them symbolic and keys only the output's IterType"},
      {"forward_inputs", OptionType::Bool, true,
       "When a fusion is split, a unary chain (casts included) from a fusion input whose "
       "value several expressions read is recomputed by every segment that reads it, instead "
       "of one segment writing it for the others (nvFuser's input forwarding)"},
      {"shapes", OptionType::String, std::string(kDefaultShapes),
       "\"static\": kernels bake each call's sizes in (a new size compiles a new kernel); "
       "\"symbolic\": kernels read sizes from their parameters, and a new size reuses a "
       "compiled kernel when the scheduler's heuristics are the same; \"auto\": static for "
       "the first input signature of a concretization, symbolic for the later ones"},
      {"device", OptionType::String, std::string(),
       "The GPU a host-backend run plans its kernels for: \"h100\", \"h200\" and/or "
       "key=value items (sm, sms, threads, shared, registers, l2, clusters), e.g. "
       "\"h100,l2=62914560\"; empty: the host's own properties. The cuda backend plans for "
       "its GPU and refuses this option"},
  };
  return specs;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

using config_text::trim;

// The non-empty items of "a, b,,c", trimmed.
std::vector<std::string_view> listItems(std::string_view text) {
  std::vector<std::string_view> items;
  for (std::string_view item : config_text::commaItems(text))
    if (!item.empty()) items.push_back(item);
  return items;
}

// An environment value as the option's type wants it.
OptionValue parseEnvValue(const OptionSpec& spec, std::string_view text,
                          const SourceLocation& where) {
  switch (spec.type) {
    case OptionType::Bool: {
      std::string v = lower(text);
      if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
      if (v == "0" || v == "false" || v == "no" || v == "off") return false;
      throw UserError(where, fmt::format("option '{}' expects a bool (true/false, 1/0, yes/no, "
                                         "on/off), got '{}'",
                                         spec.name, displayText(text)));
    }
    case OptionType::Int: {
      std::string v(text);
      char* end = nullptr;
      errno = 0;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || errno == ERANGE)
        throw UserError(where,
                        fmt::format("option '{}' expects an integer from -2^63 to 2^63-1, got '{}'",
                                    spec.name, displayText(text)));
      return static_cast<int64_t>(n);
    }
    case OptionType::Double: {
      std::string v(text);
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0')
        throw UserError(where, fmt::format("option '{}' expects a number, got '{}'", spec.name,
                                           displayText(text)));
      return d;
    }
    case OptionType::String:
      return std::string(text);
    case OptionType::StringList:
      return std::vector<std::string>{std::string(text)};
  }
  return std::string(text);
}

}  // namespace

Options::Options() {
  for (const auto& table : tables())
    for (const auto& spec : specs(table)) values_[table][spec.name] = spec.default_value;
}

std::vector<std::string> Options::tables() {
  return {"dump", "runtime"};
}

const std::vector<OptionSpec>& Options::specs(std::string_view table) {
  if (table == "dump") return dumpSpecs();
  if (table == "runtime") return runtimeSpecs();
  throw UserError(fmt::format("unknown option table '{}'; valid tables: dump, runtime", table));
}

void Options::apply(std::string_view table, const OptionSettings& settings) {
  const auto& table_specs = specs(table);
  auto resolved = resolveOptions(table_specs, settings, fmt::format("[{}]", table));
  if (auto it = settings.find("shapes"); table == "runtime" && it != settings.end()) {
    const auto& v = std::get<std::string>(resolved["shapes"]);
    if (v != "static" && v != "symbolic" && v != "auto")
      throw UserError(
          it->second.where,
          fmt::format("option 'shapes' is \"static\", \"symbolic\" or \"auto\", got '{}'",
                      displayText(v)));
  }
  // A device text is checked where it is set, to name that place.
  if (auto it = settings.find("device"); table == "runtime" && it != settings.end()) {
    const auto& v = std::get<std::string>(resolved["device"]);
    if (!v.empty()) parseDeviceSpec(v, it->second.where);
  }
  // Only what was given overrides; the rest keeps the earlier layers' values.
  for (const auto& [name, setting] : settings) values_[std::string(table)][name] = resolved[name];
}

void Options::applyConfig(const Config& config) {
  apply("dump", config.dump);
  apply("runtime", config.runtime);
}

void Options::applyEnvironmentText(std::string_view variable, std::string_view table,
                                   std::string_view text) {
  const auto& table_specs = specs(table);
  const SourceLocation where{std::string(variable), 0, 0};
  OptionSettings settings;
  for (std::string_view item : listItems(text)) {
    size_t eq = item.find('=');
    std::string name(trim(item.substr(0, eq)));
    auto spec = std::find_if(table_specs.begin(), table_specs.end(),
                             [&](const OptionSpec& s) { return s.name == name; });
    if (spec == table_specs.end())
      throw UserError(where, fmt::format("unknown option '{}'; valid options: {}",
                                         displayText(name), describeOptionSpecs(table_specs)));
    OptionValue value;
    if (eq == std::string_view::npos) {
      if (spec->type != OptionType::Bool)
        throw UserError(where, fmt::format("option '{}' needs a value: {}=<{}>", name, name,
                                           toString(spec->type)));
      value = true;
    } else {
      value = parseEnvValue(*spec, trim(item.substr(eq + 1)), where);
    }
    // A list given several times collects every value.
    auto it = settings.find(name);
    if (it != settings.end() && spec->type == OptionType::StringList) {
      auto& list = std::get<std::vector<std::string>>(it->second.value);
      for (auto& s : std::get<std::vector<std::string>>(value)) list.push_back(s);
    } else {
      settings[name] = {std::move(value), where};
    }
  }
  apply(table, settings);
}

void Options::applyEnvironment() {
  if (const char* v = std::getenv("FUSEBOX_DUMP")) applyEnvironmentText("FUSEBOX_DUMP", "dump", v);
  if (const char* v = std::getenv("FUSEBOX_RUNTIME"))
    applyEnvironmentText("FUSEBOX_RUNTIME", "runtime", v);
  if (const char* v = std::getenv("FUSEBOX_DISABLE")) applyDisableText("FUSEBOX_DISABLE", v);
}

void Options::applyDisableText(std::string_view variable, std::string_view text) {
  // nvFuser's NVFUSER_DISABLE: a list of names, each a [runtime] bool turned off.
  std::vector<std::string> names;
  for (const auto& spec : runtimeSpecs())
    if (spec.type == OptionType::Bool) names.push_back(spec.name);
  std::string settings;
  for (std::string_view item : listItems(text)) {
    if (std::find(names.begin(), names.end(), item) == names.end())
      throw UserError(SourceLocation{std::string(variable), 0, 0},
                      fmt::format("'{}' cannot be disabled; {} takes a comma-separated list of: {}",
                                  displayText(item), variable, fmt::join(names, ", ")));
    settings += fmt::format("{}{}=false", settings.empty() ? "" : ",", item);
  }
  applyEnvironmentText(variable, "runtime", settings);
}

const OptionValue& Options::get(std::string_view table, std::string_view name) const {
  auto t = values_.find(table);
  FUSEBOX_CHECK(t != values_.end(), "no option table '{}'", table);
  auto it = t->second.find(std::string(name));
  FUSEBOX_CHECK(it != t->second.end(), "no option '{}' in [{}]", name, table);
  return it->second;
}

const std::vector<std::string>& Options::printAfter() const {
  return std::get<std::vector<std::string>>(get("dump", "print_after"));
}
bool Options::printTransforms() const {
  return std::get<bool>(get("dump", "print_transforms"));
}
bool Options::timePasses() const {
  return std::get<bool>(get("dump", "time_passes"));
}
bool Options::dumpConcretizedFusion() const {
  return std::get<bool>(get("dump", "concretized_fusion"));
}
bool Options::dumpRuntimeCache() const {
  return std::get<bool>(get("dump", "runtime_cache"));
}
bool Options::dumpFusionIr() const {
  return std::get<bool>(get("dump", "fusion_ir"));
}
bool Options::dumpSegmentedFusion() const {
  return std::get<bool>(get("dump", "segmented_fusion"));
}
bool Options::dumpSegmenterLog() const {
  return std::get<bool>(get("dump", "segmenter_log"));
}
bool Options::dumpSchedulerParams() const {
  return std::get<bool>(get("dump", "scheduler_params"));
}
bool Options::dumpKernelIr() const {
  return std::get<bool>(get("dump", "kernel_ir"));
}
bool Options::dumpKernelSource() const {
  return std::get<bool>(get("dump", "kernel_source"));
}
const std::string& Options::graphFile() const {
  return std::get<std::string>(get("dump", "graph_file"));
}
bool Options::dumpPtxasInfo() const {
  return std::get<bool>(get("dump", "ptxas_info"));
}
bool Options::dumpDeviceProperties() const {
  return std::get<bool>(get("dump", "device_properties"));
}
const std::string& Options::device() const {
  return std::get<std::string>(get("runtime", "device"));
}
bool Options::verifyPasses() const {
  return std::get<bool>(get("runtime", "verify_passes"));
}
bool Options::concretizeResizeExtents() const {
  return std::get<bool>(get("runtime", "concretize_resize_extents"));
}
bool Options::forwardInputs() const {
  return std::get<bool>(get("runtime", "forward_inputs"));
}
ShapesPolicy Options::shapes() const {
  const auto& v = std::get<std::string>(get("runtime", "shapes"));
  if (v == "symbolic") return ShapesPolicy::Symbolic;
  if (v == "auto") return ShapesPolicy::Auto;
  return ShapesPolicy::Static;
}

}  // namespace fusebox
