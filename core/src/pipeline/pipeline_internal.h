// Pieces the pipeline's build and run halves share.
#pragma once

#include <fusebox/pass_pipeline.h>

#include <string>
#include <vector>

namespace fusebox::pipeline_detail {

// "'name' (/path/libplugin.so)", or "'name'" for a pass made in-process.
std::string describePass(const PluginDescriptor& plugin);

// What a pass says about itself, asked through callPlugin (PluginError on failure).
struct PassFacts {
  bool required = false;
  std::vector<std::string> runs_after;
  std::vector<std::string> runs_before;
};
PassFacts readFacts(const PluginDescriptor& plugin, Pass& pass);

}  // namespace fusebox::pipeline_detail
