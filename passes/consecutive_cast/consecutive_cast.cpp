// consecutive_cast: folds chains of casts that cannot change the result.
//
// cast(cast(x, t1), t2) equals cast(x, t2) whenever t1 holds every value of x's
// type t0 exactly: the first cast is then lossless and the second sees x itself.
//   float -> double -> float   becomes x (a set() where it is a fusion output)
//   half  -> float  -> double  becomes half -> double
//   bf16  -> float  -> bf16    becomes x (nvFuser issue 3635's up/down cast)
// A narrowing first cast rounds, and the rounding is part of the result, so
//   float -> half -> float     stays.
// A cast to the type its operand already has is dropped too.
#include <fusebox/ir/ops.h>
#include <fusebox/pass.h>
#include <fusebox/pass_utils.h>

namespace {

using namespace fusebox;

bool isTensorCast(const Expr* e) {
  return e != nullptr && e->op() == OpType::Cast && e->input(0)->isTensor() &&
         e->output(0)->isTensor();
}

class ConsecutiveCastPass final : public Pass {
 public:
  std::string name() const override { return "consecutive_cast"; }

  bool run(Fusion& fusion) override {
    bool changed = false;
    // A fold can expose another (x -> a -> b -> c); repeat until nothing folds.
    for (bool again = true; again;) {
      again = false;
      for (Expr* e : fusion.tensorExprs())
        if (isTensorCast(e) && foldOne(fusion, e)) again = changed = true;
      if (again) fusion.removeDeadExprs();
    }
    return changed;
  }

 private:
  static bool foldOne(Fusion& f, Expr* e) {
    auto* out = e->output(0)->as<TensorView>();
    auto* in = e->input(0)->as<TensorView>();
    if (out->uses().empty() && !out->isFusionOutput()) return false;  // dead already
    if (in->dtype() == out->dtype()) {
      replaceTensor(f, out, in);
      return true;
    }
    Expr* first = in->definition();
    if (!isTensorCast(first)) return false;
    auto* source = first->input(0)->as<TensorView>();
    if (!holdsExactly(source->dtype(), in->dtype())) return false;
    TensorView* folded = out->dtype() == source->dtype() ? source : castOp(out->dtype(), source);
    replaceTensor(f, out, folded);
    return true;
  }
};

}  // namespace

FUSEBOX_DECLARE_PASS_PLUGIN(ConsecutiveCastPass, "consecutive_cast", "1.0",
                            "Folds cast chains that cannot change the result")
