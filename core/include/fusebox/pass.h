// A pass rewrites a Fusion in place and says whether it changed it. Each pass
// lives in its own plugin library (see plugin/plugin_api.h and
// docs/writing-a-pass-plugin.md); the pipeline (pass_pipeline.h) orders,
// configures, runs and watches them.
#pragma once

#include <fusebox/configurable.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/option_value.h>
#include <fusebox/plugin/plugin_api.h>

#include <map>
#include <string>
#include <vector>

namespace fusebox {

// Default visibility: a plugin built with hidden visibility still shares Pass's
// type information and vtable with the host (they live in libfusebox_core).
class __attribute__((visibility("default"))) Pass : public Configurable {
 public:
  ~Pass() override;

  // The name configs use; equal to the name in the plugin's record.
  virtual std::string name() const = 0;
  // Ordering constraints: names of passes this one must run after / before when
  // they are in the pipeline too (absent or disabled passes are ignored).
  virtual std::vector<std::string> runsAfter() const { return {}; }
  virtual std::vector<std::string> runsBefore() const { return {}; }
  // A required pass cannot be disabled and must be in the configured order.
  virtual bool required() const { return false; }
  // Options (options(), configure(), option<T>()) come from Configurable; the
  // pass's table is [passes.<name>].

  // Rewrites `fusion`; returns true when anything changed. The pipeline may check
  // this claim against the fusion's structural hash.
  virtual bool run(Fusion& fusion) = 0;

 protected:
  std::string describeSelf() const override;
};

}  // namespace fusebox
