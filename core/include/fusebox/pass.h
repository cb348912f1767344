// A pass rewrites a Fusion in place and says whether it changed it. Each pass
// lives in its own plugin library (see plugin/plugin_api.h and
// docs/writing-a-pass-plugin.md); the pipeline (pass_pipeline.h) orders,
// configures, runs and watches them.
#pragma once

#include <fusebox/ir/fusion.h>
#include <fusebox/option_value.h>
#include <fusebox/plugin/plugin_api.h>

#include <map>
#include <string>
#include <vector>

namespace fusebox {

// Default visibility: a plugin built with hidden visibility still shares Pass's
// type information and vtable with the host (they live in libfusebox_core).
class __attribute__((visibility("default"))) Pass {
 public:
  Pass() = default;
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;
  virtual ~Pass();

  // The name configs use; equal to the name in the plugin's record.
  virtual std::string name() const = 0;
  // Ordering constraints: names of passes this one must run after / before when
  // they are in the pipeline too (absent or disabled passes are ignored).
  virtual std::vector<std::string> runsAfter() const { return {}; }
  virtual std::vector<std::string> runsBefore() const { return {}; }
  // A required pass cannot be disabled and must be in the configured order.
  virtual bool required() const { return false; }
  // The options this pass accepts in its [passes.<name>] table.
  virtual std::vector<OptionSpec> options() const { return {}; }

  // Applies the user's option table. The default checks names and types against
  // options() (UserError at the setting's file:line:col for an unknown name or a
  // wrong type) and stores the values for option<T>(). A pass that checks more
  // (ranges) overrides this and calls Pass::configure first.
  virtual void configure(const OptionSettings& settings);

  // Rewrites `fusion`; returns true when anything changed. The pipeline may check
  // this claim against the fusion's structural hash.
  virtual bool run(Fusion& fusion) = 0;

 protected:
  // An option's value: as configured, else its default. T is the option's C++
  // type: bool, int64_t, double, std::string or std::vector<std::string>.
  template <class T>
  const T& option(const std::string& name) const {
    return std::get<T>(optionValue(name));
  }
  const OptionValue& optionValue(const std::string& name) const;

 private:
  // Resolved on configure(), or from the defaults on first use.
  mutable std::map<std::string, OptionValue> values_;
  mutable bool resolved_ = false;
};

}  // namespace fusebox
