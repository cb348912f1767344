// Which loads a row kernel keeps on chip (persistent_buffers.h).
#include "normalization/persistent_buffers.h"

#include <fusebox/checked_math.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fusebox::normalization {

using kernelgen::Access;

namespace {

// Whether the access moves along the reduced dims (`reduced`), or the kept ones.
bool movesAlong(const Access& a, const RowFacts& facts, bool reduced) {
  if (!a.offset.affine || (!reduced && !a.offset.a.terms.empty())) return true;
  for (size_t d = 0; d < facts.domain.size(); ++d)
    if (facts.reduced[d] == reduced && facts.domain[d] > 1 && a.offset.a.coef[d] != 0) return true;
  return false;
}
bool movesAlongReducedDims(const Access& a, const RowFacts& facts) {
  return movesAlong(a, facts, true);
}

// Ops whose result costs more to compute again than to keep: the special
// function unit's transcendentals and their software expansions.
bool isTranscendental(const Expr* e) {
  if (e == nullptr) return false;
  if (e->op() == OpType::Binary) return e->attr<BinaryOpType>() == BinaryOpType::Pow;
  if (e->op() != OpType::Unary) return false;
  switch (e->attr<UnaryOpType>()) {
    case UnaryOpType::Exp:
    case UnaryOpType::Exp2:
    case UnaryOpType::Expm1:
    case UnaryOpType::Log:
    case UnaryOpType::Log2:
    case UnaryOpType::Log10:
    case UnaryOpType::Log1p:
    case UnaryOpType::Sin:
    case UnaryOpType::Cos:
    case UnaryOpType::Tan:
    case UnaryOpType::Tanh:
    case UnaryOpType::Sigmoid:
    case UnaryOpType::Silu:
    case UnaryOpType::Erf:
    case UnaryOpType::Erfc:
    case UnaryOpType::Erfinv:
    case UnaryOpType::Erfcinv:
    case UnaryOpType::Lgamma:
      return true;
    default:
      return false;
  }
}

int64_t computeBytes(DataType t) {
  return t == DataType::Double || t == DataType::Int64 ? 8 : 4;
}

}  // namespace

RowBufferPlan planRowBuffers(const RowAccesses& accesses, const RowFacts& facts, bool keep_values) {
  const kernelgen::IterSpace space = domainSpace(facts);
  struct Seen {
    const Access* access = nullptr;
    std::set<int> passes;
  };
  std::map<std::string, Seen> loads;
  std::map<int, std::set<std::string>> pass_loads;
  int64_t written_per_element = 0;
  for (size_t k = 0; k < accesses.accesses.size(); ++k) {
    const Access& a = accesses.accesses[k];
    if (a.is_output && movesAlongReducedDims(a, facts)) written_per_element += a.element_size;
    // A load under a pad or cat bound check is made only where it is in
    // bounds: it is read again, never loaded ahead.
    if (a.is_output || a.conditional || !movesAlongReducedDims(a, facts)) continue;
    const std::string key = accessKey(a.tv, a.offset, space);
    Seen& s = loads[key];
    s.access = &a;
    s.passes.insert(accesses.pass[k]);
    pass_loads[accesses.pass[k]].insert(key);
  }
  RowBufferPlan plan;
  for (const auto& [pass, keys] : pass_loads)
    plan.most_loads_a_pass = std::max(plan.most_loads_a_pass, static_cast<int>(keys.size()));
  for (const auto& [key, seen] : loads) {
    if (seen.passes.size() < 2) continue;
    plan.cached.insert(key);
    plan.buffers.push_back({seen.access->tv->toString(), seen.access->element_size,
                            !movesAlong(*seen.access, facts, false)});
    plan.bytes_per_row = checked::orThrow(
        checked::add(plan.bytes_per_row,
                     checked::mul(seen.access->element_size, facts.reduced_extent)),
        "persistent: the buffer size");
  }
  plan.loaded_bytes_per_row = plan.bytes_per_row;
  plan.written_bytes_per_row = checked::orThrow(
      checked::mul(written_per_element, facts.reduced_extent), "persistent: the output size");
  if (keep_values)
    for (const auto& [tv, passes] : accesses.computed) {
      if (passes.size() < 2 || !isTranscendental(tv->definition())) continue;
      plan.kept_values[tv] = *passes.begin();
      plan.buffers.push_back(
          {fmt::format("{} (kept value)", tv->toString()), computeBytes(tv->dtype()), false, true});
      plan.bytes_per_row = checked::orThrow(
          checked::add(plan.bytes_per_row,
                       checked::mul(computeBytes(tv->dtype()), facts.reduced_extent)),
          "persistent: the buffer size");
    }
  return plan;
}

int64_t registerBudgetBytes(const DeviceProperties& device) {
  return device.registers_per_block * 4 / 2;
}

}  // namespace fusebox::normalization
