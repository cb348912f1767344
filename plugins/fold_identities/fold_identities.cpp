// fold_identities: removes arithmetic with a constant that leaves its tensor
// operand unchanged, as traced code produces it (scaling by 1.0, a zero
// bias), so the segment neither computes nor reads it:
//   x * 1, 1 * x, x / 1, x - 0, 0 + x and x + 0 on integer x
// When the result has x's dtype (PyTorch's promotion: bf16 * 1.0 is bf16;
// int32 * 1.0 is float, and stays). A floating x + 0.0 stays too: it turns
// -0.0 into +0.0, so it is not the identity (x - 0.0 is).
//
// Written as a third party would: it includes only the installed SDK's
// headers (docs/writing-a-pass-plugin.md).
#include <fusebox/pass.h>
#include <fusebox/pass_utils.h>

namespace {

using namespace fusebox;

std::optional<double> constantValue(const Val* v) {
  const auto* s = dynamic_cast<const Scalar*>(v);
  if (s == nullptr || !s->isConst()) return std::nullopt;
  return toDouble(*s->value());
}

// The tensor operand `e` leaves unchanged, or nullptr.
TensorView* identityOperand(const Expr* e) {
  if (e->op() != OpType::Binary || !e->output(0)->isTensor()) return nullptr;
  const Val* a = e->input(0);
  const Val* b = e->input(1);
  const std::optional<double> ca = constantValue(a), cb = constantValue(b);
  auto* out = e->output(0)->as<TensorView>();
  auto tensor = [&](const Val* v) -> TensorView* {
    if (!v->isTensor()) return nullptr;
    auto* tv = const_cast<Val*>(v)->as<TensorView>();
    return tv->dtype() == out->dtype() ? tv : nullptr;
  };
  const bool integral = isIntegralType(out->dtype());
  switch (e->attr<BinaryOpType>()) {
    case BinaryOpType::Mul:
      if (cb == 1.0) return tensor(a);
      if (ca == 1.0) return tensor(b);
      return nullptr;
    case BinaryOpType::Div:
    case BinaryOpType::TrueDiv:
      return cb == 1.0 ? tensor(a) : nullptr;
    case BinaryOpType::Sub:
      return cb == 0.0 ? tensor(a) : nullptr;
    case BinaryOpType::Add:
      if (!integral) return nullptr;
      if (cb == 0.0) return tensor(a);
      if (ca == 0.0) return tensor(b);
      return nullptr;
    default:
      return nullptr;
  }
}

class FoldIdentitiesPass final : public Pass {
 public:
  std::string name() const override { return "fold_identities"; }

  bool run(Fusion& fusion) override {
    bool changed = false;
    for (Expr* e : fusion.tensorExprs()) {
      auto* out = e->output(0)->as<TensorView>();
      if (out->uses().empty() && !out->isFusionOutput()) continue;  // dead already
      if (TensorView* x = identityOperand(e)) {
        replaceTensor(fusion, out, x);
        changed = true;
      }
    }
    if (changed) fusion.removeDeadExprs();
    return changed;
  }
};

}  // namespace

FUSEBOX_DECLARE_PASS_PLUGIN(FoldIdentitiesPass, "fold_identities", "1.0",
                            "Removes x * 1, x / 1, x - 0 (and integer x + 0) on tensors")
