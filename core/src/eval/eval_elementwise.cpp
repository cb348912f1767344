// Elementwise tensor ops (set, segment_set, cast, unary, binary, ternary):
// operands broadcast against each other (size-1 dims index with stride 0),
// each element computes with the semantics of eval_math.cpp.
#include <fmt/format.h>
#include <fusebox/ir/compute_type.h>

#include "eval/eval_internal.h"
#include "strided_walk.h"

namespace fusebox::eval_detail {
namespace {

struct Operand {
  const Val* val = nullptr;
  const Tensor* tensor = nullptr;  // null for a scalar operand
  Number scalar;
  std::vector<int64_t> strides;  // per output dim; 0 where broadcast
};

std::string operandName(size_t k, const Val* v) {
  return fmt::format("operand {} ({})", k, v->toString());
}

// The broadcast output shape, with run-time conflicts reported per operand.
std::vector<int64_t> broadcastSizes(const std::vector<Operand>& ops, int64_t rank) {
  std::vector<int64_t> sizes(rank, 1);
  std::vector<int64_t> source(rank, -1);  // operand that set sizes[d]
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!ops[k].tensor) continue;
    const Tensor& t = *ops[k].tensor;
    const int64_t align = rank - t.dim();
    FUSEBOX_CHECK(align >= 0, "operand {} has rank {} above the output's {}", k, t.dim(), rank);
    for (int64_t d = 0; d < t.dim(); ++d) {
      const int64_t s = t.sizes()[d], od = d + align;
      if (s == 1) continue;
      if (source[od] < 0) {
        sizes[od] = s;
        source[od] = static_cast<int64_t>(k);
      } else {
        FUSEBOX_USER_CHECK(s == sizes[od], "{} dim {} has size {}, expected {} like {}",
                           operandName(k, ops[k].val), d, s, sizes[od],
                           operandName(source[od], ops[source[od]].val));
      }
    }
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!ops[k].tensor) continue;
    const Tensor& t = *ops[k].tensor;
    const auto dims = ops[k].val->as<TensorView>()->logicalNoReductions();
    const int64_t align = rank - t.dim();
    for (int64_t d = 0; d < t.dim(); ++d) {
      const int64_t od = d + align;
      FUSEBOX_USER_CHECK(t.sizes()[d] == sizes[od] || canStretch(dims[d]),
                         "{} dim {} has size {}, expected {} like {} (the dim is not a broadcast "
                         "dim, so it cannot stretch)",
                         operandName(k, ops[k].val), d, t.sizes()[d], sizes[od],
                         operandName(source[od], ops[source[od]].val));
    }
  }
  return sizes;
}

}  // namespace

bool canStretch(const IterDomain* id) {
  if (id->isBroadcast() || id->isSymbolic()) return true;
  const auto& c = id->extent()->value();
  return id->extent()->isConst() && c && toInt(*c) == 1;
}

namespace {

// e's operands: tensors, and scalars read in the op's compute type, as
// PyTorch and the kernels read them (`x == 0.1` of a float32 x compares
// with 0.1 rounded to float32).
std::vector<Operand> readOperands(EvalContext& ctx, const Expr* e, DataType compute) {
  std::vector<Operand> ops;
  for (const Val* in : e->inputs()) {
    Operand op;
    op.val = in;
    if (in->isTensor())
      op.tensor = &ctx.tensor(in);
    else
      op.scalar = ctx.number(in);
    if (!in->isTensor() && convertsToComputeType(in->dtype(), false, compute))
      op.scalar = numberFromScalar(scalarFromNumber(op.scalar, compute), compute);
    ops.push_back(std::move(op));
  }
  return ops;
}

// Each tensor operand's strides over the broadcast `sizes` (0 where it stretches).
void alignStrides(std::vector<Operand>& ops, const std::vector<int64_t>& sizes) {
  const auto rank = static_cast<int64_t>(sizes.size());
  for (auto& op : ops) {
    op.strides.assign(rank, 0);
    if (!op.tensor) continue;
    const int64_t align = rank - op.tensor->dim();
    for (int64_t d = 0; d < op.tensor->dim(); ++d)
      if (op.tensor->sizes()[d] == sizes[d + align])
        op.strides[d + align] = op.tensor->strides()[d];
  }
}

}  // namespace

void evalElementwise(EvalContext& ctx, const Expr* e) {
  const auto* out_tv = e->output(0)->as<TensorView>();
  const int64_t rank = out_tv->nDims();
  FUSEBOX_CHECK(e->inputs().size() <= 3, "{} has {} operands", describeExpr(e), e->inputs().size());
  const DataType compute = elementwiseComputeType(e);
  std::vector<Operand> ops = readOperands(ctx, e, compute);
  const std::vector<int64_t> sizes = broadcastSizes(ops, rank);
  alignStrides(ops, sizes);

  Tensor out = ctx.allocate(out_tv, sizes);
  std::vector<std::vector<int64_t>> strides{out.strides()};
  for (const auto& op : ops) strides.push_back(op.strides);
  void* out_base = out.data();
  const DataType out_type = out.dtype();

  const OpType kind = e->op();
  const DataType result_type = out_tv->dtype();  // nextafter's grid, gcd's width
  const auto unary = kind == OpType::Unary ? e->attr<UnaryOpType>() : UnaryOpType{};
  const auto binary = kind == OpType::Binary ? e->attr<BinaryOpType>() : BinaryOpType{};
  const auto ternary = kind == OpType::Ternary ? e->attr<TernaryOpType>() : TernaryOpType{};
  // Hoisted per-operand state for the inner loop.
  const size_t n_ops = ops.size();
  const void* base[3] = {};
  DataType type[3] = {};
  int64_t step[3] = {};
  bool convert[3] = {};  // integral tensors read by a floating-point op
  Number vals[3];
  for (size_t k = 0; k < n_ops; ++k) {
    if (ops[k].tensor) {
      base[k] = ops[k].tensor->data();
      type[k] = ops[k].tensor->dtype();
      convert[k] = convertsToComputeType(type[k], true, compute);
      step[k] = ops[k].strides.empty() ? 0 : ops[k].strides.back();
    } else {
      vals[k] = ops[k].scalar;
    }
  }
  const int64_t out_step = sizes.empty() ? 0 : out.strides().back();
  // A half or bfloat16 result of float32 math is the float32 result rounded
  // again, as PyTorch (and a kernel) computes it; rounding the double result
  // once would differ at ties. One double op rounded to float32 is the
  // correctly rounded float32 op, so this matches them exactly.
  const bool via_float = compute == DataType::Float &&
                         (out_type == DataType::Half || out_type == DataType::BFloat16);
  detail::forEachRow(sizes, strides, [&](const std::vector<int64_t>& start, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < n_ops; ++k) {
        if (!base[k]) continue;
        vals[k] = loadNumber(base[k], type[k], start[k + 1] + i * step[k]);
        if (convert[k]) vals[k] = numberFromScalar(scalarFromNumber(vals[k], compute), compute);
      }
      Number r;
      switch (kind) {
        case OpType::Unary:
          r = applyUnary(unary, vals[0]);
          break;
        case OpType::Binary:
          r = applyBinary(binary, vals[0], vals[1], result_type);
          break;
        case OpType::Ternary:
          r = applyTernary(ternary, vals[0], vals[1], vals[2]);
          break;
        default:
          r = vals[0];
          break;  // set, segment_set, cast: the store converts
      }
      if (via_float && r.isFloat()) r.d = static_cast<double>(static_cast<float>(r.d));
      storeNumber(out_base, out_type, start[0] + i * out_step, r);
    }
  });
  ctx.setTensor(out_tv, std::move(out));
}

}  // namespace fusebox::eval_detail
