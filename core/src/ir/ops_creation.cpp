// Tensor creation: full, iota, and Philox random numbers (uniform, normal).
#include <fmt/format.h>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

namespace {

// Validated shape entries: integer scalars, constants >= 0.
std::vector<Scalar*> creationShape(const std::vector<Val*>& shape, const std::string& op) {
  std::vector<Scalar*> sizes;
  for (size_t d = 0; d < shape.size(); ++d) {
    Scalar* s = requireIntScalar(shape[d], op, fmt::format("shape entry {}", d));
    auto c = constInt(s);
    FUSEBOX_USER_CHECK(!c || *c >= 0, "{}: shape entry {} is {}; expected a size >= 0", op, d, *c);
    sizes.push_back(s);
  }
  return sizes;
}

// The domain of a created tensor: the extents are the shape scalars themselves.
std::vector<IterDomain*> creationDomain(const std::vector<Scalar*>& sizes) {
  std::vector<IterDomain*> domain;
  for (Scalar* s : sizes) domain.push_back(domainForExtent(s, IterType::Iteration));
  return domain;
}

Scalar* requireScalar(Val* v, const std::string& op, std::string_view role) {
  requirePresent(v, op, role);
  FUSEBOX_USER_CHECK(v->isScalar(), "{}: {} must be a scalar, got tensor {}", op, role,
                     v->toString());
  return v->as<Scalar>();
}

TensorView* rand(RandomDistribution dist, Fusion& f, const std::vector<Val*>& shape, Val* a, Val* b,
                 DataType dtype, Val* seed, Val* offset) {
  const std::string name = pyOp(toString(dist));
  const bool uniform = dist == RandomDistribution::Uniform;
  auto sizes = creationShape(shape, name);
  std::vector<Val*> operands(sizes.begin(), sizes.end());
  operands.push_back(requireScalar(a, name, uniform ? "minval" : "mean"));
  operands.push_back(requireScalar(b, name, uniform ? "maxval" : "std"));
  FUSEBOX_USER_CHECK(isFloatingType(dtype), "{}: dtype must be a floating-point type, got {}", name,
                     pythonName(dtype));
  FUSEBOX_USER_CHECK((seed == nullptr) == (offset == nullptr),
                     "{}: rng_seed and rng_offset must be given together (got only {})", name,
                     seed ? "rng_seed" : "rng_offset");
  if (seed != nullptr) {
    operands.push_back(requireIntScalar(seed, name, "rng_seed"));
    operands.push_back(requireIntScalar(offset, name, "rng_offset"));
  }
  FUSEBOX_USER_CHECK(&fusionOf(operands, name) == &f, "{}: operands belong to another fusion",
                     name);
  auto* out = f.newTensor(creationDomain(sizes), dtype);
  f.newExpr(OpType::Rand, std::move(operands), {out}, RandAttr{dist, seed != nullptr});
  return out;
}

}  // namespace

TensorView* full(Fusion& f, const std::vector<Val*>& shape, Val* fill_value, DataType dtype) {
  const std::string name = pyOp("full");
  auto sizes = creationShape(shape, name);
  Scalar* fill = requireScalar(fill_value, name, "fill_value");
  std::vector<Val*> operands = {fill};
  operands.insert(operands.end(), sizes.begin(), sizes.end());
  FUSEBOX_USER_CHECK(&fusionOf(operands, name) == &f, "{}: operands belong to another fusion",
                     name);
  auto* out = f.newTensor(creationDomain(sizes), dtype);
  f.newExpr(OpType::Full, std::move(operands), {out});
  return out;
}

TensorView* iota(Fusion& f, Val* length, Val* start, Val* step, DataType dtype) {
  const std::string name = pyOp("iota");
  Scalar* n = requireIntScalar(length, name, "length");
  Scalar* first = requireScalar(start, name, "start");
  Scalar* stride = requireScalar(step, name, "step");
  FUSEBOX_USER_CHECK(!isBoolType(dtype),
                     "{}: dtype must be an integer or floating-point type, "
                     "got Bool",
                     name);
  auto c = constInt(n);
  FUSEBOX_USER_CHECK(!c || *c >= 0, "{}: length must be >= 0, got {}", name, *c);
  FUSEBOX_USER_CHECK(&fusionOf({n, first, stride}, name) == &f,
                     "{}: operands belong to another fusion", name);
  auto* out = f.newTensor(creationDomain({n}), dtype);
  f.newExpr(OpType::Iota, {n, first, stride}, {out});
  return out;
}

TensorView* uniform(Fusion& f, const std::vector<Val*>& shape, Val* low, Val* high, DataType dtype,
                    Val* seed, Val* offset) {
  return rand(RandomDistribution::Uniform, f, shape, low, high, dtype, seed, offset);
}

TensorView* normal(Fusion& f, const std::vector<Val*>& shape, Val* mean, Val* std, DataType dtype,
                   Val* seed, Val* offset) {
  return rand(RandomDistribution::Normal, f, shape, mean, std, dtype, seed, offset);
}

}  // namespace fusebox
