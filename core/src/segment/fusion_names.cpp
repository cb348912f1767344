// Fusion::setName: a segment copies values out of the complete fusion and keeps
// their names, so T5_g in a segment is T5_g in the complete fusion's dump and a
// scheduler's rejection reason names what the user sees.
#include <fusebox/ir/fusion.h>

#include <algorithm>

namespace fusebox {

void Fusion::setName(Val* v, int64_t name) {
  FUSEBOX_CHECK(v != nullptr && v->fusion() == this, "setName: a value of another fusion");
  v->name_ = name;
  int64_t& next = v->kind() == ValKind::TensorView   ? next_tensor_
                  : v->kind() == ValKind::IterDomain ? next_iter_domain_
                                                     : next_scalar_;
  next = std::max(next, name + 1);
}

void Fusion::setName(Expr* e, int64_t name) {
  FUSEBOX_CHECK(e != nullptr && e->fusion() == this, "setName: an expression of another fusion");
  e->name_ = name;
  next_expr_ = std::max(next_expr_, name + 1);
}

}  // namespace fusebox
