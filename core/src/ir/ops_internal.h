// Helpers shared by the builder ops (ops_*.cpp): op names for messages, scalar
// arithmetic on extents with constant folding, fresh IterDomains and output
// tensors, and unification of the dims that meet in an elementwise op.
#pragma once

#include <fusebox/ir/ops.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::ops_detail {

// "fd.ops.<name>", the spelling users know from nvFuser's Python frontend.
std::string pyOp(std::string_view name);

// The value of an integral (int32/int64) constant scalar, else nullopt.
std::optional<int64_t> constInt(const Val* v);
bool isConstInt(const Val* v, int64_t value);
// Compile-time equal: the same Val, or two integral constants of equal value.
bool sameInt(const Scalar* a, const Scalar* b);

// "[i0, 4, 1]": a tensor's logical shape for messages (expanded extents shown).
std::string shapeString(const TensorView* tv);
// "T0_g[i0, 4]" for messages.
std::string describe(const TensorView* tv);
// A scalar for messages: "4", "i3", "( i0 * 2 )".
std::string describe(const Scalar* s);
// "[4, i3, null]": operand lists (sizes, widths) for messages.
std::string describeVals(const std::vector<Val*>& vals);

// Checks that `v` is a present operand; throws UserError naming op and role.
void requirePresent(const Val* v, const std::string& op, std::string_view role);
// Checks that `v` is an integral (int32/int64) scalar, as sizes and indices must be.
Scalar* requireIntScalar(Val* v, const std::string& op, std::string_view role);
// Checks that `v` is an Int or Int32 tensor, as indices must be.
TensorView* requireIndexTensor(TensorView* v, const std::string& op, std::string_view role);
// All operands must belong to one fusion; returns it.
Fusion& fusionOf(const std::vector<Val*>& operands, const std::string& op);

// Creates `out = op(a, b)` on scalars, folding when both are integral
// constants and the result is exact. `out_type` is the result dtype.
Scalar* scalarBinary(BinaryOpType op, Scalar* a, Scalar* b, DataType out_type);

// Int64 arithmetic for extent expressions: folds constants and drops
// identities (x + 0, x * 1, x / 1, min(x, x)) so extents stay readable.
Scalar* addExtent(Scalar* a, Scalar* b);
Scalar* subExtent(Scalar* a, Scalar* b);
Scalar* mulExtent(Scalar* a, Scalar* b);
Scalar* divExtent(Scalar* a, Scalar* b);
Scalar* ceilDivExtent(Scalar* a, Scalar* b);
Scalar* maxExtent(Scalar* a, Scalar* b);
// The product of `factors`, constants gathered into one trailing factor:
// [i0, 3, 4] -> ( i0 * 12 ).
Scalar* productExtent(Fusion& f, const std::vector<Scalar*>& factors);
Scalar* minExtent(Scalar* a, Scalar* b);

// A fresh IterDomain with the same extent, IterType and expanded extent.
IterDomain* cloneDomain(const IterDomain* id);
// A fresh dim for an output whose values differ along it (a gather, a scan, a
// partial overwrite): an expanded broadcast becomes an Iteration dim of its
// expanded extent; others are plain copies.
IterDomain* materializedDomain(const IterDomain* id);
// Fresh copies of a tensor's non-reduction dims.
std::vector<IterDomain*> cloneDomains(const TensorView* tv);
// The domain of a computed size (resize, reshape): constant 1 -> Broadcast,
// other constants -> Iteration, symbolic -> `symbolic_type`.
IterDomain* domainForExtent(Scalar* extent, IterType symbolic_type);

// Throws UserError when the dims meeting at one output position cannot agree
// (see unifyDims); creates nothing, so ops can validate before they build.
void checkDimsAgree(const std::vector<IterDomain*>& ids, const std::vector<std::string>& names,
                    const std::string& op, int64_t out_dim, bool broadcasting);
// Combines the dims that meet at one output position. `ids` has one entry per
// operand, null where the operand has no dim there. With `broadcasting` (an
// elementwise op) broadcast and size-1 dims stretch to the others; without it
// (cat's non-concatenated dims) sizes must agree exactly. Constant sizes that
// cannot agree throw UserError naming `op`, the output dim and the operands.
IterDomain* unifyDims(const std::vector<IterDomain*>& ids, const std::vector<std::string>& names,
                      const std::string& op, int64_t out_dim, bool broadcasting);

// Validates and normalizes reduction axes (empty = all dims), sorted ascending.
std::vector<int64_t> normalizeAxes(const std::vector<int64_t>& axes, int64_t rank,
                                   const std::string& op);
// The logical domain of a reduction's output: reduced dims become Reduction
// IterDomains (of the logical extent), the others fresh copies.
std::vector<IterDomain*> reductionDomain(const TensorView* x, const std::vector<int64_t>& axes);

}  // namespace fusebox::ops_detail
