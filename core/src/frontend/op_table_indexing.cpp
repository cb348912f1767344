// fd.ops entries of the indexing ops, scans, triu and embedding_fwd, with
// nvFuser's argument names, and real/imag, which only complex tensors have.
#include <fmt/format.h>
#include <fusebox/ir/ops.h>

#include "frontend/op_table_internal.h"

namespace fusebox::frontend::op_table {
namespace {

// An optional argument that only has to be a scalar or a number (or None).
void requireScalarLike(const BoundArgs& a, size_t i) {
  if (!a.has(i)) return;
  const PyValue& v = a.at(i);
  if (!v.isNumber() && v.kind != PyValue::Kind::Scalar)
    throwWrongKind(v, "a scalar or a number", a.context(i));
}

using IndexBuilder = TensorView* (*)(TensorView*, TensorView*, int64_t);

void addIndexing(OpMap& t) {
  // (input, index tensor, dim); nvFuser names the input `arg` for
  // index_select and `arg1` for gather and take_along_axis.
  auto by_tensor = [&](const char* name, const char* input, IndexBuilder build) {
    t[name] = {{req({input}), req({"index"}), req({"dim"})}, [build](Fusion&, const BoundArgs& a) {
                 return result(build(asTensor(a.at(0), a.context(0)),
                                     asTensor(a.at(1), a.context(1)), asInt(a.at(2), a.context(2))),
                               a);
               }};
  };
  by_tensor("index_select", "arg", indexSelect);
  by_tensor("gather", "arg1", gather);
  by_tensor("take_along_axis", "arg1", takeAlongAxis);
  t["select"] = {{req({"arg"}), req({"index"}), req({"dim"})}, [](Fusion& f, const BoundArgs& a) {
                   return result(
                       select(asTensor(a.at(0), a.context(0)), asScalar(f, a.at(1), a.context(1)),
                              asInt(a.at(2), a.context(2))),
                       a);
                 }};
  // src is a tensor or a scalar (nvFuser's scatter with a scalar value).
  t["scatter"] = {{req({"arg1"}), req({"index"}), req({"src"}), req({"dim"})},
                  [](Fusion& f, const BoundArgs& a) {
                    return result(
                        scatter(asTensor(a.at(0), a.context(0)), asTensor(a.at(1), a.context(1)),
                                asOperand(f, a.at(2), a.context(2)), asInt(a.at(3), a.context(3))),
                        a);
                  }};
  // padding_idx, scale_grad_by_freq and sparse change only the backward;
  // max_norm renormalizes rows of weight in place, which an out-of-place
  // fusion cannot do, so it is refused (norm_type goes with it).
  t["embedding_fwd"] = {
      {req({"input"}), req({"weight"}), opt({"padding_idx"}), opt({"max_norm"}), opt({"norm_type"}),
       opt({"scale_grad_by_freq"}), opt({"sparse"})},
      [](Fusion&, const BoundArgs& a) {
        for (size_t i = 2; i < 7; ++i) requireScalarLike(a, i);
        if (a.has(3))
          throw UserError(a.at(3).where,
                          "fd.ops.embedding_fwd: max_norm is not supported: torch "
                          "renormalizes the rows of weight in place, which a fusion "
                          "cannot do (pass max_norm=None)");
        return result(embedding(asTensor(a.at(0), a.context(0)), asTensor(a.at(1), a.context(1))),
                      a);
      }};
}

void addScans(OpMap& t) {
  for (ReductionOpType op :
       {ReductionOpType::Sum, ReductionOpType::Prod, ReductionOpType::Max, ReductionOpType::Min}) {
    t[std::string(scanName(op))] = {
        {req({"arg"}), req({"dim"})}, [op](Fusion&, const BoundArgs& a) {
          return result(scan(op, asTensor(a.at(0), a.context(0)), asInt(a.at(1), a.context(1))), a);
        }};
  }
  t["triu"] = {{req({"input"}), opt({"diagonal"})}, [](Fusion& f, const BoundArgs& a) {
                 Val* diagonal = a.has(1) ? asScalar(f, a.at(1), a.context(1)) : f.zero();
                 return result(triu(asTensor(a.at(0), a.context(0)), diagonal), a);
               }};
}

// nvFuser's real and imag take complex tensors, which fusebox does not have.
void addComplexOnly(OpMap& t) {
  for (const char* name : {"real", "imag"})
    t[name] = {{req({"arg"})}, [name](Fusion&, const BoundArgs& a) -> PyValue {
                 throw UserError(
                     a.where(),
                     fmt::format("fd.ops.{}: complex dtypes are not supported (fusebox "
                                 "has no complex tensors to take the {} part of)",
                                 name, name == std::string("real") ? "real" : "imaginary"));
               }};
}

}  // namespace

void addIndexingAndScans(OpMap& t) {
  addIndexing(t);
  addScans(t);
  addComplexOnly(t);
}

}  // namespace fusebox::frontend::op_table
