// Helpers for the pipeline tests: configs that search the built-in plugins plus
// fixture folders, and building or failing to build a pipeline from one.
#pragma once

#include <fusebox/config.h>
#include <fusebox/ir/ops.h>
#include <fusebox/pass_pipeline.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fusebox::pipeline_testing {

inline const std::string kConfigName = "pipeline.toml";

inline std::string fixture(const std::string& folder) {
  return std::string(FUSEBOX_FIXTURES_DIR) + "/" + folder;
}

inline std::string pluginFile(const std::string& pass) {
  return std::filesystem::weakly_canonical(std::filesystem::path(FUSEBOX_BINARY_DIR) /
                                           "lib/fusebox/plugins" /
                                           ("libfusebox_pass_" + pass + ".so"))
      .string();
}

// Two lines: a [plugins] table with the built-in folder and `extra` folders.
inline std::string withPaths(const std::vector<std::string>& extra) {
  std::string paths = "\"@builtin\"";
  for (const auto& p : extra) paths += ", \"" + p + "\"";
  return "[plugins]\npaths = [" + paths + "]\n";
}

// config/default.toml as installed, its plugin path spelled so any file may hold it.
inline std::string defaultConfigText() {
  std::ifstream in(defaultConfigFile());
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const std::string from = "paths = [\"plugins\"]";
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "default.toml changed its plugin path";
  if (at != std::string::npos) s.replace(at, from.size(), "paths = [\"@builtin\"]");
  return s;
}

inline PassPipeline buildPipeline(const std::string& text,
                                  const std::vector<NamedSetting>& disabled = {}) {
  Config config = parseConfig(text, kConfigName);
  PluginRegistry registry;
  registry.discover(config.plugin_paths);
  return PassPipeline::build(config, registry, disabled);
}

inline std::string buildError(const std::string& text,
                              const std::vector<NamedSetting>& disabled = {}) {
  try {
    buildPipeline(text, disabled);
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError for:\n" << text;
  return "";
}

// nvFuser issue 3635's pattern, bf16 in and out:
//   T1 = broadcast(T0); T2 = cast(T1, float); T3 = squeeze(T2); T4 = cast(T3, bf16)
inline std::unique_ptr<Fusion> castSqueezeChain() {
  auto f = std::make_unique<Fusion>();
  auto* t0 = defineTensor(*f, {-1, -1}, DataType::BFloat16);
  auto* t1 = broadcast(t0, {true, false, false});
  auto* t2 = castOp(DataType::Float, t1);
  auto* t3 = squeeze(t2, {0});
  auto* t4 = castOp(DataType::BFloat16, t3);
  f->addOutput(t4);
  return f;
}

}  // namespace fusebox::pipeline_testing
