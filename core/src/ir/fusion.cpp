#include <fusebox/checked_math.h>
#include <fusebox/ir/fusion.h>

#include <fmt/format.h>
#include <algorithm>
#include <queue>
#include <unordered_set>

namespace fusebox {

Fusion::Fusion() = default;
Fusion::~Fusion() = default;

Scalar* Fusion::newScalar(DataType dtype) {
  auto* s = new Scalar(this, dtype, next_scalar_++, std::nullopt);
  vals_.emplace_back(s);
  return s;
}

Scalar* Fusion::constant(ScalarValue value, DataType dtype) {
  auto* s = new Scalar(this, dtype, next_scalar_++, castScalar(value, dtype));
  vals_.emplace_back(s);
  return s;
}

IterDomain* Fusion::newIterDomain(Scalar* extent, IterType type, Scalar* expanded_extent) {
  FUSEBOX_CHECK(extent != nullptr && extent->fusion() == this, "extent must belong to the fusion");
  FUSEBOX_CHECK(expanded_extent == nullptr || type == IterType::Broadcast,
                "only broadcast domains have an expanded extent");
  auto* id = new IterDomain(this, next_iter_domain_++, extent, type, expanded_extent);
  vals_.emplace_back(id);
  return id;
}

TensorView* Fusion::newTensor(std::vector<IterDomain*> logical, DataType dtype) {
  std::vector<int64_t> constant_sizes;
  for (auto* id : logical) {
    FUSEBOX_CHECK(id != nullptr && id->fusion() == this, "domain must belong to the fusion");
    const Scalar* extent = id->logicalExtent();
    if (extent->isConst() && isIntegralType(extent->dtype()))
      constant_sizes.push_back(std::max<int64_t>(toInt(*extent->value()), 1));
  }
  // A tensor's strides (products of its sizes, size 0 counting as 1) must fit
  // in int64, so its element count does too. Constant sizes tell now, the
  // others when they are bound; symbolic sizes only make the product larger.
  if (!checked::product(constant_sizes)) {
    std::vector<std::string> shape;
    for (auto* id : logical) shape.push_back(id->logicalExtent()->inlineString());
    throw UserError(
        fmt::format("a tensor of shape [{}] is too large: the product of its sizes "
                    "overflows int64",
                    fmt::join(shape, ", ")));
  }
  auto* tv = new TensorView(this, next_tensor_++, std::move(logical), dtype);
  vals_.emplace_back(tv);
  return tv;
}

Expr* Fusion::newExpr(OpType op, std::vector<Val*> inputs, std::vector<Val*> outputs,
                      ExprAttrs attrs) {
  for (auto* v : inputs) FUSEBOX_CHECK(v && v->fusion() == this, "operand of another fusion");
  for (auto* v : outputs) {
    FUSEBOX_CHECK(v && v->fusion() == this, "output of another fusion");
    FUSEBOX_CHECK(v->definition_ == nullptr, "{} already has a definition", v->toString());
  }
  auto* e =
      new Expr(this, next_expr_++, op, std::move(inputs), std::move(outputs), std::move(attrs));
  exprs_.emplace_back(e);
  e->origin_ = new_expr_origin_;
  for (auto* v : e->outputs_) v->definition_ = e;
  for (auto* v : e->inputs_)
    if (std::find(v->uses_.begin(), v->uses_.end(), e) == v->uses_.end()) v->uses_.push_back(e);
  return e;
}

void Fusion::addInput(Val* v) {
  FUSEBOX_CHECK(v->fusion() == this, "input of another fusion");
  FUSEBOX_CHECK(v->definition() == nullptr, "an input cannot have a definition");
  FUSEBOX_CHECK(std::find(inputs_.begin(), inputs_.end(), v) == inputs_.end(),
                "{} is already an input", v->toString());
  inputs_.push_back(v);
}

void Fusion::addOutput(Val* v) {
  FUSEBOX_CHECK(v->fusion() == this, "output of another fusion");
  outputs_.push_back(v);
}

void Fusion::replaceOutput(Val* old_out, Val* new_out) {
  std::replace(outputs_.begin(), outputs_.end(), old_out, new_out);
  if (old_out->isTensor() && new_out->isTensor()) {
    auto it = required_stride_orders_.find(old_out->as<TensorView>());
    if (it != required_stride_orders_.end()) {
      auto order = std::move(it->second);
      required_stride_orders_.erase(it);
      required_stride_orders_[new_out->as<TensorView>()] = std::move(order);
    }
  }
  auto alias = aliases_.find(old_out);
  if (alias != aliases_.end()) {
    Val* in = alias->second;
    aliases_.erase(alias);
    aliases_[new_out] = in;
  }
}

void Fusion::removeOutput(Val* v) {
  outputs_.erase(std::remove(outputs_.begin(), outputs_.end(), v), outputs_.end());
  if (v->isTensor()) required_stride_orders_.erase(v->as<TensorView>());
  aliases_.erase(v);
}

void Fusion::setRequiredStrideOrder(TensorView* output, std::vector<int64_t> stride_order) {
  FUSEBOX_USER_CHECK(output->isFusionOutput(), "{} is not a fusion output", output->toString());
  FUSEBOX_USER_CHECK(
      static_cast<int64_t>(stride_order.size()) == output->nDims() && isPermutation(stride_order),
      "stride_order for output {} must be a permutation of 0..{}, got [{}]", output->toString(),
      output->nDims() - 1, fmt::join(stride_order, ", "));
  required_stride_orders_[output] = std::move(stride_order);
}

const std::vector<int64_t>* Fusion::requiredStrideOrder(const TensorView* output) const {
  auto it = required_stride_orders_.find(output);
  return it == required_stride_orders_.end() ? nullptr : &it->second;
}

void Fusion::aliasOutputToInput(Val* out, Val* in) {
  FUSEBOX_USER_CHECK(in->isFusionInput(), "alias target {} is not a fusion input", in->toString());
  FUSEBOX_USER_CHECK(out->isFusionOutput(), "{} is not a fusion output", out->toString());
  FUSEBOX_USER_CHECK(in->isTensor() && out->isTensor(),
                     "only a tensor output can alias a tensor input (got {} aliasing {})",
                     out->toString(), in->toString());
  // The output is written into the input's memory: it must fit it exactly.
  FUSEBOX_USER_CHECK(out->dtype() == in->dtype(),
                     "output {} ({}) cannot alias input {} ({}): an aliased output is written "
                     "into its input's memory, so the dtypes must match; cast it first",
                     out->toString(), pythonName(out->dtype()), in->toString(),
                     pythonName(in->dtype()));
  const auto* out_tv = out->as<TensorView>();
  const auto* in_tv = in->as<TensorView>();
  FUSEBOX_USER_CHECK(out_tv->nDims() == in_tv->nDims(),
                     "output {} has {} dims and cannot alias input {}, which has {}",
                     out->toString(), out_tv->nDims(), in->toString(), in_tv->nDims());
  for (int64_t d = 0; d < out_tv->nDims(); ++d) {
    const Scalar* a = out_tv->axis(d)->logicalExtent();
    const Scalar* b = in_tv->axis(d)->logicalExtent();
    FUSEBOX_USER_CHECK(!a->isConst() || !b->isConst() || toInt(*a->value()) == toInt(*b->value()),
                       "output {} cannot alias input {}: dim {} has size {} in the output and {} "
                       "in the input",
                       out->toString(), in->toString(), d, toInt(*a->value()), toInt(*b->value()));
  }
  // Two writes into one input would leave only one of them (nvFuser refuses
  // this too).
  for (const auto& [other, target] : aliases_)
    FUSEBOX_USER_CHECK(target != in || other == out,
                       "outputs {} and {} both alias input {}: only one output can be written "
                       "into an input",
                       other->toString(), out->toString(), in->toString());
  aliases_[out] = in;
}

Val* Fusion::aliasedInput(const Val* out) const {
  auto it = aliases_.find(out);
  return it == aliases_.end() ? nullptr : it->second;
}

std::vector<Expr*> Fusion::exprs() const {
  // Collect what the outputs need through operands, then order it with Kahn's
  // algorithm, always taking the earliest-created ready expression, so the
  // order is topological, deterministic and close to the order of definition.
  // One table (needed expression -> operands not yet produced), sized up
  // front: this runs for every pass and segment, on fusions of any length.
  std::unordered_map<Expr*, int64_t> pending;
  pending.reserve(exprs_.size());
  std::vector<Val*> stack(outputs_.begin(), outputs_.end());
  while (!stack.empty()) {
    Val* v = stack.back();
    stack.pop_back();
    Expr* def = v->definition();
    if (def == nullptr || !pending.emplace(def, 0).second) continue;
    for (Val* in : def->inputs()) stack.push_back(in);
  }
  auto later = [](Expr* a, Expr* b) { return a->name() > b->name(); };
  std::vector<Expr*> ready_storage;
  ready_storage.reserve(pending.size());
  std::priority_queue<Expr*, std::vector<Expr*>, decltype(later)> ready(later,
                                                                        std::move(ready_storage));
  for (auto& [e, n] : pending) {
    for (Val* in : e->inputs())
      if (in->definition() && pending.count(in->definition())) ++n;
    if (n == 0) ready.push(e);
  }
  std::vector<Expr*> order;
  order.reserve(pending.size());
  while (!ready.empty()) {
    Expr* e = ready.top();
    ready.pop();
    order.push_back(e);
    for (Val* out : e->outputs())
      for (Expr* use : out->uses()) {
        auto it = pending.find(use);
        if (it == pending.end()) continue;
        // An expression reading the same value twice still counts it once per operand.
        int64_t times = std::count(use->inputs().begin(), use->inputs().end(), out);
        if ((it->second -= times) == 0) ready.push(use);
      }
  }
  FUSEBOX_CHECK(order.size() == pending.size(), "the fusion has a cycle");
  return order;
}

std::vector<Expr*> Fusion::tensorExprs() const {
  auto all = exprs();
  std::vector<Expr*> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [](Expr* e) { return e->isTensorOp(); });
  return out;
}

std::vector<Val*> Fusion::allVals() const {
  std::vector<Val*> out;
  for (auto& v : vals_) out.push_back(v.get());
  return out;
}

std::vector<Expr*> Fusion::allExprs() const {
  std::vector<Expr*> out;
  for (auto& e : exprs_) out.push_back(e.get());
  return out;
}

std::vector<TensorView*> Fusion::allTensors() const {
  std::vector<TensorView*> out;
  for (auto& v : vals_)
    if (v->isTensor()) out.push_back(static_cast<TensorView*>(v.get()));
  return out;
}

std::vector<TensorView*> Fusion::usedTensors() const {
  std::vector<TensorView*> out;
  std::unordered_set<Val*> seen;
  auto add = [&](Val* v) {
    if (v->isTensor() && seen.insert(v).second) out.push_back(v->as<TensorView>());
  };
  for (Val* in : inputs_) add(in);
  for (Expr* e : exprs()) {
    for (Val* v : e->inputs()) add(v);
    for (Val* v : e->outputs()) add(v);
  }
  for (Val* v : outputs_) add(v);
  return out;
}

void Fusion::unlinkUses(Expr* e) {
  for (Val* in : e->inputs_) {
    auto& uses = in->uses_;
    uses.erase(std::remove(uses.begin(), uses.end(), e), uses.end());
  }
}

void Fusion::replaceInput(Expr* expr, Val* old_val, Val* new_val) {
  FUSEBOX_CHECK(new_val->fusion() == this, "replacement of another fusion");
  bool found = false;
  for (auto& in : expr->inputs_)
    if (in == old_val) {
      in = new_val;
      found = true;
    }
  FUSEBOX_CHECK(found, "{} is not an operand of expr {}", old_val->toString(), expr->name());
  auto& old_uses = old_val->uses_;
  old_uses.erase(std::remove(old_uses.begin(), old_uses.end(), expr), old_uses.end());
  if (std::find(new_val->uses_.begin(), new_val->uses_.end(), expr) == new_val->uses_.end())
    new_val->uses_.push_back(expr);
}

void Fusion::replaceInputAt(Expr* expr, size_t index, Val* new_val) {
  FUSEBOX_CHECK(new_val->fusion() == this, "replacement of another fusion");
  FUSEBOX_CHECK(index < expr->inputs_.size(), "expr {} has no operand {}", expr->name(), index);
  Val* old_val = expr->inputs_[index];
  if (old_val == new_val) return;
  expr->inputs_[index] = new_val;
  auto& in = expr->inputs_;
  if (std::find(in.begin(), in.end(), old_val) == in.end()) {
    auto& old_uses = old_val->uses_;
    old_uses.erase(std::remove(old_uses.begin(), old_uses.end(), expr), old_uses.end());
  }
  if (std::find(new_val->uses_.begin(), new_val->uses_.end(), expr) == new_val->uses_.end())
    new_val->uses_.push_back(expr);
}

void Fusion::replaceAllUsesWith(Val* old_val, Val* new_val) {
  if (old_val == new_val) return;
  auto uses = old_val->uses();  // copy: replaceInput edits it
  for (Expr* e : uses) replaceInput(e, old_val, new_val);
  if (old_val->isFusionOutput()) replaceOutput(old_val, new_val);
}

void Fusion::concretizeDomain(IterDomain* id, Scalar* extent, IterType type,
                              Scalar* expanded_extent) {
  FUSEBOX_CHECK(id->fusion() == this && extent->fusion() == this &&
                    (expanded_extent == nullptr || expanded_extent->fusion() == this),
                "concretizeDomain: a domain or extent of another fusion");
  FUSEBOX_CHECK(type != IterType::Symbolic, "concretizeDomain: {} stays Symbolic", id->toString());
  FUSEBOX_CHECK(expanded_extent == nullptr || type == IterType::Broadcast,
                "concretizeDomain: only a broadcast has an expanded extent ({})", id->toString());
  id->extent_ = extent;
  id->iter_type_ = type;
  id->expanded_extent_ = expanded_extent;
}

void Fusion::removeExpr(Expr* expr) {
  unlinkUses(expr);
  for (Val* out : expr->outputs_)
    if (out->definition_ == expr) out->definition_ = nullptr;
  auto it = std::find_if(exprs_.begin(), exprs_.end(),
                         [expr](const std::unique_ptr<Expr>& p) { return p.get() == expr; });
  FUSEBOX_CHECK(it != exprs_.end(), "expr {} is not owned by this fusion", expr->name());
  exprs_.erase(it);
}

int64_t Fusion::removeDeadExprs() {
  // Live: what outputs need through operands, plus the definitions of the
  // extents of every live tensor (a reshape's output extent is computed by
  // scalar expressions that no operand names).
  std::unordered_set<Expr*> live;
  std::vector<Val*> stack(outputs_.begin(), outputs_.end());
  auto pushDomain = [&](TensorView* tv) {
    for (IterDomain* id : tv->logical()) {
      stack.push_back(id->extent());
      if (id->expandedExtent()) stack.push_back(id->expandedExtent());
    }
  };
  for (Val* in : inputs_)
    if (in->isTensor()) pushDomain(in->as<TensorView>());
  while (!stack.empty()) {
    Val* v = stack.back();
    stack.pop_back();
    if (v->isTensor()) pushDomain(v->as<TensorView>());
    Expr* def = v->definition();
    if (def == nullptr || !live.insert(def).second) continue;
    for (Val* in : def->inputs()) stack.push_back(in);
    for (Val* out : def->outputs()) stack.push_back(out);
  }
  // Unlinked one by one, destroyed in one sweep (removeExpr searches exprs_,
  // which would make removing many expressions quadratic).
  int64_t removed = 0;
  for (auto& e : exprs_) {
    if (live.count(e.get())) continue;
    unlinkUses(e.get());
    for (Val* out : e->outputs_)
      if (out->definition_ == e.get()) out->definition_ = nullptr;
    ++removed;
  }
  exprs_.erase(std::remove_if(exprs_.begin(), exprs_.end(),
                              [&](const std::unique_ptr<Expr>& e) { return !live.count(e.get()); }),
               exprs_.end());
  return removed;
}

std::unique_ptr<Fusion> Fusion::clone(std::unordered_map<const Val*, Val*>* map) const {
  auto copy = std::make_unique<Fusion>();
  std::unordered_map<const Val*, Val*> local;
  auto& m = map ? *map : local;
  m.reserve(m.size() + vals_.size());
  copy->vals_.reserve(vals_.size());
  copy->exprs_.reserve(exprs_.size());
  auto mapped = [&](const Val* v) -> Val* {
    if (v == nullptr) return nullptr;
    auto it = m.find(v);
    FUSEBOX_CHECK(it != m.end(), "clone: {} used before it was created", v->toString());
    return it->second;
  };
  auto copyScalar = [&](const Scalar* s) -> Scalar* {
    Scalar* ns = s->value() ? copy->constant(*s->value(), s->dtype()) : copy->newScalar(s->dtype());
    ns->name_ = s->name_;
    m[s] = ns;
    return ns;
  };
  // An extent, made first where a domain names a scalar created after it
  // (concretization gives domains new constant extents).
  auto extentOf = [&](const Scalar* s) -> Scalar* {
    if (s == nullptr) return nullptr;
    auto it = m.find(s);
    return it != m.end() ? it->second->as<Scalar>() : copyScalar(s);
  };
  // Otherwise values are created before anything refers to them (a tensor
  // after its domain), so creation order is a valid copy order.
  for (const auto& up : vals_) {
    const Val* v = up.get();
    Val* nv = nullptr;
    if (auto* s = dynamic_cast<const Scalar*>(v)) {
      if (m.count(s) > 0) continue;  // made early as an extent
      nv = s->value() ? copy->constant(*s->value(), s->dtype()) : copy->newScalar(s->dtype());
    } else if (auto* id = dynamic_cast<const IterDomain*>(v)) {
      nv = copy->newIterDomain(extentOf(id->extent()), id->iterType(),
                               extentOf(id->expandedExtent()));
    } else {
      auto* tv = v->as<TensorView>();
      std::vector<IterDomain*> logical;
      for (auto* id : tv->logical()) logical.push_back(mapped(id)->as<IterDomain>());
      auto* ntv = copy->newTensor(std::move(logical), tv->dtype());
      if (tv->hasAllocation()) {
        std::vector<IterDomain*> alloc;
        for (auto* id : tv->allocation()) alloc.push_back(mapped(id)->as<IterDomain>());
        ntv->setAllocation(std::move(alloc));
      }
      ntv->contiguity_ = tv->contiguity_;
      nv = ntv;
    }
    nv->name_ = v->name_;
    m[v] = nv;
  }
  for (const auto& up : exprs_) {
    std::vector<Val*> ins, outs;
    for (Val* v : up->inputs()) ins.push_back(mapped(v));
    for (Val* v : up->outputs()) outs.push_back(mapped(v));
    Expr* ne = copy->newExpr(up->op(), std::move(ins), std::move(outs), up->attrs());
    ne->name_ = up->name_;
    ne->origin_ = up->origin_;
  }
  for (Val* v : inputs_) copy->inputs_.push_back(mapped(v));
  for (Val* v : outputs_) copy->outputs_.push_back(mapped(v));
  for (const auto& [tv, order] : required_stride_orders_)
    copy->required_stride_orders_[mapped(tv)->as<TensorView>()] = order;
  for (const auto& [out, in] : aliases_) copy->aliases_[mapped(out)] = mapped(in);
  copy->next_tensor_ = next_tensor_;
  copy->next_iter_domain_ = next_iter_domain_;
  copy->next_scalar_ = next_scalar_;
  copy->next_expr_ = next_expr_;
  return copy;
}

}  // namespace fusebox
