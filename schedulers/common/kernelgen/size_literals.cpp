// Size-derived integers as literals or kernel parameters (size_literals.h).
#include "kernelgen/size_literals.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <limits>

namespace fusebox::kernelgen {

SizeLiterals::SizeLiterals(ShapeMode mode, int first_slot, bool index32)
    : mode_(mode), first_slot_(first_slot), index32_(index32) {}

std::string SizeLiterals::text(int64_t value, const std::string& role, Type type) {
  if (!symbolic() || value == 0 || value == 1) return fmt::format("{}", value);
  return name(value, role, type);
}

std::string SizeLiterals::parameter(int64_t value, const std::string& role, Type type) {
  if (!symbolic()) return fmt::format("{}", value);
  return name(value, role, type);
}

std::string SizeLiterals::name(int64_t value, const std::string& role, Type type) {
  auto [it, inserted] =
      named_.emplace(std::make_tuple(role, value, type), static_cast<int>(lifted_.size()));
  if (inserted) {
    const bool fits32 = value >= std::numeric_limits<int32_t>::min() &&
                        value <= std::numeric_limits<int32_t>::max();
    // An index value beyond a 32-bit idx_t (a pad wider than the tensor) keeps
    // 64 bits, as its literal would.
    lifted_.push_back({value, type == Type::Int64 || (index32_ && !fits32) ? "int64_t" : "idx_t"});
  }
  return fmt::format("z{}", it->second);
}

void SizeLiterals::declare(Buffer& out) const {
  for (size_t k = 0; k < lifted_.size(); ++k) {
    const std::string& t = lifted_[k].type;
    const std::string read = fmt::format("p.i64[{}]", first_slot_ + static_cast<int>(k));
    out.line(fmt::format("[[maybe_unused]] const {} z{} = {};", t, k,
                         t == "int64_t" ? read : fmt::format("static_cast<{}>({})", t, read)));
  }
}

void SizeLiterals::addBindings(std::vector<ParamBinding>& bindings) const {
  for (size_t k = 0; k < lifted_.size(); ++k) {
    ParamBinding b;
    b.source = ParamBinding::Source::Value;
    b.slot = first_slot_ + static_cast<int>(k);
    b.value = lifted_[k].value;
    FUSEBOX_CHECK(b.slot < KernelParams::kMaxInts,
                  "kernelgen: size parameter z{} needs i64 slot {}; KernelParams holds {}", k,
                  b.slot, KernelParams::kMaxInts);
    bindings.push_back(b);
  }
}

std::string sizeText(SizeLiterals* literals, int64_t value, const std::string& role,
                     SizeLiterals::Type type) {
  return literals != nullptr ? literals->text(value, role, type) : fmt::format("{}", value);
}

}  // namespace fusebox::kernelgen
