// Size-derived integers as literals or kernel parameters (size_literals.h).
#include "kernelgen/size_literals.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <limits>

namespace fusebox::kernelgen {

SizeLiterals::SizeLiterals(ShapeMode mode, int first_slot, bool index32)
    : mode_(mode), first_slot_(first_slot), index32_(index32) {}

kir::Value SizeLiterals::value(int64_t value, const std::string& role, Type type) {
  if (!symbolic() || value == 0 || value == 1) return kir::lit(value);
  return name(value, role, type);
}

kir::Value SizeLiterals::parameter(int64_t value, const std::string& role, Type type) {
  if (!symbolic()) return kir::lit(value);
  return name(value, role, type);
}

kir::Value SizeLiterals::name(int64_t value, const std::string& role, Type type) {
  auto [it, inserted] =
      named_.emplace(std::make_tuple(role, value, type), static_cast<int>(lifted_.size()));
  if (inserted) {
    const bool fits32 = value >= std::numeric_limits<int32_t>::min() &&
                        value <= std::numeric_limits<int32_t>::max();
    // An index value beyond a 32-bit idx_t (a pad wider than the tensor) keeps
    // 64 bits, as its literal would.
    lifted_.push_back({value, type == Type::Int64 || (index32_ && !fits32) ? "int64_t" : "idx_t"});
  }
  const Lifted& lifted = lifted_[static_cast<size_t>(it->second)];
  return kir::var(fmt::format("z{}", it->second),
                  lifted.type == "int64_t" ? kir::named("int64_t") : kir::indexType());
}

void SizeLiterals::declare(kir::Block& out) const {
  for (size_t k = 0; k < lifted_.size(); ++k) {
    const kir::Type t = kir::named(lifted_[k].type);
    const kir::Value read = kir::subscript(kir::member(kir::var("p"), "i64"),
                                           kir::lit(first_slot_ + static_cast<int>(k)));
    out.declare(fmt::format("z{}", k), t, lifted_[k].type == "int64_t" ? read : kir::cast(t, read),
                kir::kConstUnused);
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

kir::Value sizeValue(SizeLiterals* literals, int64_t value, const std::string& role,
                     SizeLiterals::Type type) {
  return literals != nullptr ? literals->value(value, role, type) : kir::lit(value);
}

}  // namespace fusebox::kernelgen
