// What passes and schedulers share: a set of declared options, validated from
// the user's table and read back by name.
#pragma once

#include <fusebox/option_value.h>

#include <map>
#include <string>
#include <vector>

namespace fusebox {

// Default visibility: plugins built with hidden visibility still share this
// type's information and vtable with the host (they live in libfusebox_core).
class __attribute__((visibility("default"))) Configurable {
 public:
  Configurable() = default;
  Configurable(const Configurable&) = delete;
  Configurable& operator=(const Configurable&) = delete;
  virtual ~Configurable();

  // The options accepted in this plugin's config table.
  virtual std::vector<OptionSpec> options() const { return {}; }
  // Applies the user's option table. The default checks names and types against
  // options() (UserError at the setting's file:line:col for an unknown name or a
  // wrong type) and stores the values for option<T>(). An override that checks
  // more (ranges) calls Configurable::configure first.
  virtual void configure(const OptionSettings& settings);

 protected:
  // "pass 'remove_empty'", "scheduler 'pointwise'": who is speaking in messages.
  virtual std::string describeSelf() const = 0;
  // An option's value: as configured, else its default. T is the option's C++
  // type: bool, int64_t, double, std::string or std::vector<std::string>.
  template <class T>
  const T& option(const std::string& name) const {
    return std::get<T>(optionValue(name));
  }
  const OptionValue& optionValue(const std::string& name) const;
  // For a configure() override: UserError at the setting's file:line:col
  // (or naming the plugin, for a default) unless integer option `name` is
  // in [lo, hi]: "<self>: option '<name>' must be in [lo, hi]<note>, got v".
  void requireIntInRange(const OptionSettings& settings, const std::string& name, int64_t lo,
                         int64_t hi, const std::string& note = "") const;
  // The same for a string option that must be one of `choices`:
  // "<self>: option '<name>' must be "a", "b" or "c", got "v"".
  void requireOneOf(const OptionSettings& settings, const std::string& name,
                    const std::vector<std::string>& choices) const;

 private:
  // Resolved on configure(), or from the defaults on first use.
  mutable std::map<std::string, OptionValue> values_;
  mutable bool resolved_ = false;
};

}  // namespace fusebox
