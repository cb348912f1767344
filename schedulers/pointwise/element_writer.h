// The per-element code of a pointwise kernel (used by codegen.cpp): each
// output element's value derived from the iteration index (the reference
// output's logical index) through every op back to the segment inputs, one
// index expression per dim (index_math.h); equal (tensor, index) pairs are
// computed once. Loads the heuristics allow become vector loads hoisted above
// the per-element loop (or above the row loop of a 2-D schedule); the rest are
// scalar loads. Run without params it only records the accesses.
#pragma once

#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/ir/compute_type.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen.h"
#include "codegen_ops.h"

namespace fusebox::pointwise::detail {

struct Buffer {
  std::string text;
  int indent = 0;
  void line(const std::string& s) {
    text += std::string(static_cast<size_t>(indent) * 2, ' ') + s + "\n";
  }
};

class Writer {
 public:
  Writer(const Fusion& segment, const SegmentFacts& facts, const PointwiseParams* params,
         RuntimeInfo& info)
      : f_(segment), facts_(facts), params_(params), info_(info), n_(facts.iter_sizes.size()) {
    int ptr = 0, ints = 0, doubles = 0;
    for (size_t k = 0; k < f_.inputs().size(); ++k) {
      const Val* in = f_.inputs()[k];
      ParamBinding b;
      b.index = static_cast<int>(k);
      if (in->isTensor()) {
        b.source = ParamBinding::Source::InputData;
        b.slot = ptr++;
        input_ptr_[in] = b.slot;
      } else {
        b.source = ParamBinding::Source::InputScalar;
        b.as_double = scalarGoesToDouble(in->dtype());
        b.slot = b.as_double ? doubles++ : ints++;
        scalar_slot_[in] = b;
      }
      bindings_.push_back(b);
    }
    for (size_t k = 0; k < f_.outputs().size(); ++k) {
      ParamBinding b;
      b.source = ParamBinding::Source::OutputData;
      b.index = static_cast<int>(k);
      b.slot = ptr++;
      output_ptr_.push_back(b.slot);
      bindings_.push_back(b);
    }
    group_of_.assign(n_, -1);
    if (params_ != nullptr) {
      for (size_t g = 0; g < params_->groups.size(); ++g)
        for (int d : params_->groups[g]) group_of_[static_cast<size_t>(d)] = static_cast<int>(g);
      vec_ = params_->vector_width;
    }
  }

  const std::vector<ParamBinding>& bindings() const { return bindings_; }
  std::vector<Access>& accesses() { return accesses_; }

  // The per-element code for every output, into `body`. fast: vector and
  // hoisted loads allowed (pre_chunk / pre_row receive them).
  void elementCode(bool fast) {
    fast_ = fast && params_ != nullptr;
    memo_.assign(1, {});
    hoisted_.clear();
    for (size_t k = 0; k < f_.outputs().size(); ++k) {
      const auto* tv = f_.outputs()[k]->as<TensorView>();
      const auto& sizes = facts_.sizes.at(tv);
      const Index idx = sizes == facts_.iter_sizes
                            ? iterIndex()
                            : reshapeIndex(iterIndex(), facts_.iter_sizes, sizes, n_);
      const std::string value = tensorValue(tv, idx);
      const IndexExpr off = linearOffset(idx, sizes, facts_.output_strides[k], n_);
      recordAccess(tv, true, off, dataTypeSize(tv->dtype()), 16,
                   maxOffset(sizes, facts_.output_strides[k]));
      const std::string st = storageType(tv->dtype());
      const std::string ptr = fmt::format("out{}", k);
      if (fast_ && vec_ > 1 && isVectorAccess(off)) {
        const std::string arr = fmt::format("so{}", k);
        pre_chunk.line(fmt::format("fusebox::Array<{}, {}> {};", st, vec_, arr));
        body.line(fmt::format("{}[v] = fusebox::cast<{}>({});", arr, st, value));
        post_chunk.line(fmt::format("fusebox::storeVec<{}>({} + {}, {});", vec_, ptr,
                                    offsetText(off, "mb"), arr));
      } else {
        body.line(fmt::format("{}[{}] = fusebox::cast<{}>({});", ptr, offsetText(off, lastVar()),
                              st, value));
      }
    }
  }

  Buffer prologue, pre_row, pre_chunk, body, post_chunk;

 private:
  std::string lastVar() const {
    if (params_ == nullptr || params_->groups.empty()) return "mb";
    return fmt::format("m{}", params_->groups.size() - 1);
  }

  Index iterIndex() const {
    Index idx;
    for (size_t d = 0; d < n_; ++d)
      idx.push_back(facts_.iter_sizes[d] == 1 ? IndexExpr::constant(0, n_)
                                              : IndexExpr::iterDim(static_cast<int64_t>(d), n_));
    return idx;
  }

  static int64_t maxOffset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    int64_t m = 0;
    for (size_t k = 0; k < sizes.size(); ++k)
      if (sizes[k] > 0) m += (sizes[k] - 1) * (strides[k] < 0 ? -strides[k] : strides[k]);
    return m;
  }

  void recordAccess(const TensorView* tv, bool is_output, const IndexExpr& off, int64_t esize,
                    int64_t alignment, int64_t max_offset) {
    if (params_ != nullptr) return;
    Access a;
    a.tv = tv;
    a.is_output = is_output;
    a.offset = off;
    a.conditional = cond_depth_ > 0;
    a.element_size = esize;
    a.alignment = alignment;
    a.max_offset = max_offset;
    accesses_.push_back(a);
  }

  // Whether the group's coefficients walk its dims as one index.
  bool groupCompatible(const Affine& a, const std::vector<int>& group) const {
    for (size_t j = 0; j + 1 < group.size(); ++j)
      if (a.coef[static_cast<size_t>(group[j])] !=
          a.coef[static_cast<size_t>(group[j + 1])] *
              facts_.iter_sizes[static_cast<size_t>(group[j + 1])])
        return false;
    return true;
  }

  bool isVectorAccess(const IndexExpr& off) const {
    if (!off.affine || cond_depth_ > 0 || params_->groups.empty()) return false;
    const auto& last = params_->groups.back();
    return groupCompatible(off.a, last) && off.a.coef[static_cast<size_t>(last.back())] == 1;
  }

  bool zeroOnGroup(const Affine& a, size_t g) const {
    for (int d : params_->groups[g])
      if (a.coef[static_cast<size_t>(d)] != 0) return false;
    return true;
  }

  // Element offset text over the merged indices m<g> (`last` names the
  // innermost one), falling back to i<d> where a group is not walked as one.
  std::string offsetText(const IndexExpr& off, const std::string& last) const {
    if (!off.affine || params_ == nullptr) return off.str();
    std::vector<std::string> terms;
    const size_t m = params_->groups.size();
    for (size_t g = 0; g < m; ++g) {
      const auto& group = params_->groups[g];
      const std::string var = g + 1 == m ? last : fmt::format("m{}", g);
      if (groupCompatible(off.a, group)) {
        const int64_t k = off.a.coef[static_cast<size_t>(group.back())];
        if (k == 1)
          terms.push_back(var);
        else if (k != 0)
          terms.push_back(fmt::format("{} * {}", var, k));
      } else {
        for (int d : group) {
          const int64_t k = off.a.coef[static_cast<size_t>(d)];
          if (k != 0) terms.push_back(fmt::format("i{} * {}", d, k));
        }
      }
    }
    if (off.a.c != 0 || terms.empty()) terms.push_back(fmt::format("{}", off.a.c));
    return fmt::format("({})", fmt::join(terms, " + "));
  }

  std::string newVar(const char* prefix) { return fmt::format("{}{}", prefix, counter_++); }

  std::string load(const TensorView* tv, const Index& idx) {
    const TensorArgInfo& arg = facts_.inputs.at(tv);
    const IndexExpr off = linearOffset(idx, arg.sizes, arg.strides, n_);
    const int64_t esize = dataTypeSize(tv->dtype());
    recordAccess(tv, false, off, esize, arg.alignment, maxOffset(arg.sizes, arg.strides));
    const std::string st = storageType(tv->dtype()), ct = computeTypeName(tv->dtype());
    const std::string ptr = fmt::format("in{}", input_ptr_.at(tv));
    if (fast_ && cond_depth_ == 0 && off.affine && !params_->groups.empty()) {
      const size_t m = params_->groups.size();
      bool row_invariant = params_->break_point > 0 && !tailPossible();
      for (size_t g = 0; g < static_cast<size_t>(params_->break_point); ++g)
        row_invariant &= zeroOnGroup(off.a, g);
      Buffer& target = row_invariant ? pre_row : pre_chunk;
      const std::string key = fmt::format("{}@{}", ptr, offsetText(off, "mb"));
      if (vec_ > 1 && isVectorAccess(off)) {
        auto it = hoisted_.find(key);
        if (it == hoisted_.end()) {
          const std::string var = newVar("vl");
          target.line(
              fmt::format("const fusebox::Array<{}, {}> {} = fusebox::loadVec<{}>({} + {});", st,
                          vec_, var, vec_, ptr, offsetText(off, "mb")));
          it = hoisted_.emplace(key, var).first;
        }
        return fmt::format("fusebox::cast<{}>({}[v])", ct, it->second);
      }
      if (zeroOnGroup(off.a, m - 1)) {
        auto it = hoisted_.find(key);
        if (it == hoisted_.end()) {
          const std::string var = newVar("hl");
          target.line(fmt::format("const {} {} = fusebox::cast<{}>({}[{}]);", ct, var, ct, ptr,
                                  offsetText(off, "mb")));
          it = hoisted_.emplace(key, var).first;
        }
        return it->second;
      }
    }
    const std::string var = newVar("ld");
    body.line(fmt::format("const {} {} = fusebox::cast<{}>({}[{}]);", ct, var, ct, ptr,
                          offsetText(off, lastVar())));
    return var;
  }

  bool tailPossible() const {
    return vec_ > 1 && !params_->group_extents.empty() && params_->group_extents.back() % vec_ != 0;
  }

  std::string scalarText(const Val* v) {
    auto it = scalar_memo_.find(v);
    if (it != scalar_memo_.end()) return it->second;
    const auto* s = v->as<Scalar>();
    std::string text;
    if (s->isConst()) {
      text = literal(*s->value(), s->dtype());
    } else if (auto slot = scalar_slot_.find(v); slot != scalar_slot_.end()) {
      const ParamBinding& b = slot->second;
      const std::string raw =
          b.as_double ? fmt::format("p.f64[{}]", b.slot) : fmt::format("p.i64[{}]", b.slot);
      const std::string var = newVar("s");
      prologue.line(fmt::format("const {} {} = {};", computeTypeName(s->dtype()), var,
                                roundTo(s->dtype(), raw)));
      text = var;
    } else if (const Expr* e = s->definition(); e != nullptr && !e->isTensorOp()) {
      std::vector<OperandText> ops;
      for (const Val* in : e->inputs()) ops.push_back({scalarText(in), in->dtype()});
      const std::string expr = opText(e, ops, s->dtype());
      const std::string var = newVar("s");
      prologue.line(fmt::format("const {} {} = {};", computeTypeName(s->dtype()), var, expr));
      text = var;
    } else {
      auto value = info_.evaluator().evaluate(v);
      FUSEBOX_USER_CHECK(value.has_value(), "pointwise: scalar {} has no value at run time",
                         v->toString());
      text = literal(*value, s->dtype());
    }
    scalar_memo_[v] = text;
    return text;
  }

  std::string opText(const Expr* e, const std::vector<OperandText>& ops, DataType out) {
    switch (e->op()) {
      case OpType::Unary:
        return unaryText(e->attr<UnaryOpType>(), ops.at(0), out);
      case OpType::Binary:
        return binaryText(e->attr<BinaryOpType>(), ops.at(0), ops.at(1), out);
      case OpType::Ternary:
        return ternaryText(e->attr<TernaryOpType>(), ops.at(0), ops.at(1), ops.at(2), out);
      case OpType::Cast:
      case OpType::Set:
      case OpType::SegmentSet:
        return roundTo(out, ops.at(0).value);
      default:
        break;
    }
    throw InternalError(fmt::format("pointwise: {} on scalars", e->opName()));
  }

  const std::string* lookup(const std::string& key) const {
    for (auto it = memo_.rbegin(); it != memo_.rend(); ++it) {
      auto f = it->find(key);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  std::string tensorValue(const TensorView* tv, const Index& idx) {
    const std::string key = fmt::format("T{}@{}", tv->name(), indexKey(idx));
    if (const std::string* hit = lookup(key)) return *hit;
    const std::string value = computeValue(tv, idx);
    memo_.back()[key] = value;
    return value;
  }

  const std::vector<int64_t>& sizesOf(const Val* v) const {
    return facts_.sizes.at(v->as<TensorView>());
  }

  std::string declare(DataType t, const std::string& expr) {
    const std::string var = newVar("v");
    body.line(fmt::format("const {} {} = {};", computeTypeName(t), var, expr));
    return var;
  }

  std::string computeValue(const TensorView* tv, const Index& idx) {
    if (tv->isFusionInput()) return load(tv, idx);
    const Expr* e = tv->definition();
    FUSEBOX_CHECK(e != nullptr, "pointwise: {} has no definition", tv->toString());
    const DataType out = tv->dtype();
    switch (e->op()) {
      case OpType::Unary:
      case OpType::Binary:
      case OpType::Ternary:
      case OpType::Cast:
      case OpType::Set:
      case OpType::SegmentSet: {
        if (const std::string p = smallPowerText(e, idx); !p.empty()) return declare(out, p);
        // A scalar operand is read in the op's compute type (float32 for a
        // float32 op), as the evaluator and PyTorch read it.
        const DataType compute = elementwiseComputeType(e);
        std::vector<OperandText> ops;
        for (const Val* in : e->inputs()) {
          if (in->isTensor())
            ops.push_back(
                {tensorValue(in->as<TensorView>(), alignRight(idx, sizesOf(in), n_)), in->dtype()});
          else if (convertsToComputeType(in->dtype(), false, compute))
            ops.push_back({roundTo(compute, scalarText(in)), compute});
          else
            ops.push_back({scalarText(in), in->dtype()});
        }
        return declare(out, opText(e, ops, out));
      }
      case OpType::Broadcast: {
        const auto& flags = e->attr<BroadcastAttr>().is_broadcast_dim;
        Index in;
        for (size_t k = 0; k < flags.size(); ++k)
          if (!flags[k]) in.push_back(idx[k]);
        return forward(e, in);
      }
      case OpType::Squeeze: {
        const auto& dims = e->attr<SqueezeAttr>().dims;
        Index in;
        size_t k = 0;
        for (size_t d = 0; d < sizesOf(e->input(0)).size(); ++d) {
          if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end())
            in.push_back(IndexExpr::constant(0, n_));
          else
            in.push_back(idx[k++]);
        }
        return forward(e, in);
      }
      case OpType::Expand:
        return forward(e, alignRight(idx, sizesOf(e->input(0)), n_));
      case OpType::Permute: {
        const auto& dims = e->attr<PermuteAttr>().dims;
        Index in(dims.size());
        for (size_t k = 0; k < dims.size(); ++k) in[static_cast<size_t>(dims[k])] = idx[k];
        return forward(e, in);
      }
      case OpType::Reshape:
        return forward(e, reshapeIndex(idx, sizesOf(tv), sizesOf(e->input(0)), n_));
      case OpType::Slice:
        return sliceValue(e, idx);
      case OpType::Pad:
        return padValue(e, idx);
      case OpType::Cat:
        return catValue(e, idx);
      case OpType::Full:
        return declare(out, roundTo(out, scalarText(e->input(0))));
      case OpType::Iota: {
        const std::string i = idx.at(0).str();
        const std::string start = scalarText(e->input(1)), step = scalarText(e->input(2));
        if (isFloatingType(out))
          return declare(
              out, roundTo(out, fmt::format("fusebox::cast<double>({}) + "
                                            "static_cast<double>({}) * fusebox::cast<double>({})",
                                            start, i, step)));
        return declare(
            out, roundTo(out, fmt::format("static_cast<int64_t>(static_cast<uint64_t>("
                                          "fusebox::cast<int64_t>({})) + "
                                          "static_cast<uint64_t>({}) * "
                                          "static_cast<uint64_t>(fusebox::cast<int64_t>({})))",
                                          start, i, step)));
      }
      case OpType::Rand:
        return randomValue(e, idx);
      default:
        break;
    }
    throw InternalError(fmt::format("pointwise: cannot generate {}", e->opName()));
  }

  // x^2 and x^3 of a floating tensor by a constant exponent as products: a
  // general pow is dozens of instructions (GELU's x^3), a product one. The
  // evaluator rounds pow once in double; the products round two or three
  // times in the compute type, well inside the comparison tolerances.
  std::string smallPowerText(const Expr* e, const Index& idx) {
    if (e->op() != OpType::Binary || e->attr<BinaryOpType>() != BinaryOpType::Pow) return "";
    const DataType out = e->output(0)->dtype();
    if (!isFloatingType(out) || !e->input(0)->isTensor() || e->input(1)->isTensor()) return "";
    const auto* exponent = e->input(1)->as<Scalar>();
    if (!exponent->isConst()) return "";
    const double k = toDouble(*exponent->value());
    if (k != 2.0 && k != 3.0) return "";
    const auto* base_tv = e->input(0)->as<TensorView>();
    const std::string ct = computeTypeName(out);
    std::string base = tensorValue(base_tv, alignRight(idx, sizesOf(base_tv), n_));
    if (computeTypeName(base_tv->dtype()) != ct)
      base = fmt::format("fusebox::cast<{}>({})", ct, base);
    const std::string square = fmt::format("({} * {})", base, base);
    return roundTo(out, k == 2.0 ? square : fmt::format("({} * {})", square, base));
  }

  // uniform / normal: element i (row-major in the op's shape) from the Philox
  // word stream exactly as docs/random.md specifies (the helpers are in
  // kRandomHelpers); the arithmetic is in double, rounded once to the dtype.
  std::string randomValue(const Expr* e, const Index& idx) {
    uses_random_ = true;
    const auto& attr = e->attr<RandAttr>();
    const auto* tv = e->output(0)->as<TensorView>();
    const auto& sizes = sizesOf(tv);
    const size_t rank = sizes.size();
    const std::string i = linearOffset(idx, sizes, contiguousStrides(sizes), n_).str();
    const std::string a = fmt::format("fusebox::cast<double>({})", scalarText(e->input(rank)));
    const std::string b = fmt::format("fusebox::cast<double>({})", scalarText(e->input(rank + 1)));
    std::string seed = "0ull", offset = "0ull";
    if (attr.has_seed) {
      seed = fmt::format("static_cast<uint64_t>(fusebox::cast<int64_t>({}))",
                         scalarText(e->input(rank + 2)));
      offset = fmt::format("static_cast<uint64_t>(fusebox::cast<int64_t>({}))",
                           scalarText(e->input(rank + 3)));
    }
    const bool wide = tv->dtype() == DataType::Double;
    const std::string element = fmt::format("static_cast<uint64_t>({})", i);
    auto draw = [&](const std::string& k) {
      return fmt::format("fusebox_pointwise_rng::draw({}, {}, {}, {})", seed, offset, k,
                         wide ? "true" : "false");
    };
    std::string value;
    if (attr.dist == RandomDistribution::Uniform) {
      value = fmt::format("{} + fusebox_pointwise_rng::mulRounded({} - {}, {})", a, b, a,
                          draw(element));
    } else {
      const std::string u1 = newVar("u"), u2 = newVar("u");
      body.line(fmt::format("const double {} = 1.0 - {};", u1, draw("2 * " + element)));
      body.line(fmt::format("const double {} = {};", u2, draw("2 * " + element + " + 1")));
      value = fmt::format(
          "{} + fusebox_pointwise_rng::mulRounded({}, fusebox::op::sqrt(-2.0 * "
          "fusebox::op::log({})) * fusebox::op::cos(2.0 * 3.141592653589793116 * {}))",
          a, b, u1, u2);
    }
    return declare(tv->dtype(), roundTo(tv->dtype(), value));
  }

 public:
  bool usesRandom() const { return uses_random_; }

 private:
  // Data movement that keeps the element: the input's value at `in`.
  std::string forward(const Expr* e, const Index& in) {
    const auto* src = e->input(0)->as<TensorView>();
    const std::string v = tensorValue(src, in);
    if (src->dtype() == e->output(0)->dtype()) return v;
    return declare(e->output(0)->dtype(), roundTo(e->output(0)->dtype(), v));
  }

  std::string sliceValue(const Expr* e, const Index& idx) {
    const auto& in_sizes = sizesOf(e->input(0));
    const auto& out_sizes = sizesOf(e->output(0));
    const size_t r = in_sizes.size();
    Index in;
    for (size_t d = 0; d < r; ++d) {
      int64_t start = evaluateShapeScalar(info_, e->input(1 + d), "slice start");
      if (start < 0) start += in_sizes[d];
      start = std::clamp<int64_t>(start, 0, in_sizes[d]);
      const int64_t step = evaluateShapeScalar(info_, e->input(1 + 2 * r + d), "slice step");
      // With one output element the index is `start` whatever the step (which
      // may be near 2^63); with more, step < the input's size, so no product overflows.
      if (in_sizes[d] == 1)
        in.push_back(IndexExpr::constant(0, n_));
      else if (out_sizes[d] <= 1)
        in.push_back(IndexExpr::constant(start, n_));
      else
        in.push_back(idx[d].scaled(start, step));
    }
    return forward(e, in);
  }

  // A value computed only where `condition` holds, else `otherwise`.
  std::string conditional(
      DataType out,
      const std::vector<std::pair<std::string, std::function<std::string()>>>& branches,
      const std::string& otherwise) {
    const std::string var = newVar("v");
    body.line(fmt::format("{} {};", computeTypeName(out), var));
    for (size_t b = 0; b < branches.size(); ++b) {
      body.line(fmt::format("{}if ({}) {{", b == 0 ? "" : "} else ", branches[b].first));
      ++body.indent;
      ++cond_depth_;
      memo_.emplace_back();
      const std::string v = branches[b].second();
      body.line(fmt::format("{} = {};", var, roundTo(out, v)));
      memo_.pop_back();
      --cond_depth_;
      --body.indent;
    }
    if (branches.empty()) {
      body.line(fmt::format("{} = {};", var, otherwise));
      return var;
    }
    body.line("} else {");
    body.line(fmt::format("  {} = {};", var, otherwise));
    body.line("}");
    return var;
  }

  std::string padValue(const Expr* e, const Index& idx) {
    const auto* src = e->input(0)->as<TensorView>();
    const auto& in_sizes = sizesOf(src);
    const size_t r = in_sizes.size();
    const size_t npairs = (e->inputs().size() - 2) / 2;
    Index in = idx;
    std::vector<std::string> conds;
    for (size_t k = 0; k < npairs; ++k) {
      const size_t d = r - 1 - k;
      const int64_t left = evaluateShapeScalar(info_, e->input(2 + 2 * k), "pad width");
      const int64_t right = evaluateShapeScalar(info_, e->input(3 + 2 * k), "pad width");
      if (left == 0 && right == 0) continue;
      // Cropping by 2^63 (left = INT64_MIN) leaves nothing of the input.
      const auto shift = checked::neg(left);
      if (in_sizes[d] == 0 || !shift) {
        conds.push_back("false");
        in[d] = IndexExpr::constant(0, n_);
        continue;
      }
      in[d] = idx[d].plus(*shift);
      const std::string s = in[d].str();
      if (left <= 0)
        conds.push_back(fmt::format("{} < {}", s, in_sizes[d]));
      else
        conds.push_back(fmt::format("{} >= 0 && {} < {}", s, s, in_sizes[d]));
      if (in_sizes[d] == 1) in[d] = IndexExpr::constant(0, n_);
    }
    const DataType out = e->output(0)->dtype();
    const std::string pad_value = roundTo(out, scalarText(e->input(1)));
    if (conds.empty()) return forward(e, in);
    return conditional(
        out, {{fmt::format("{}", fmt::join(conds, " && ")), [&] { return tensorValue(src, in); }}},
        pad_value);
  }

  std::string catValue(const Expr* e, const Index& idx) {
    const size_t dim = static_cast<size_t>(e->attr<CatAttr>().dim);
    const DataType out = e->output(0)->dtype();
    std::vector<std::pair<std::string, std::function<std::string()>>> branches;
    std::vector<Index> indices(e->inputs().size());
    int64_t at = 0;
    const TensorView* last_nonempty = nullptr;
    size_t last_k = 0;
    for (size_t k = 0; k < e->inputs().size(); ++k) {
      const auto* src = e->input(k)->as<TensorView>();
      const int64_t size = sizesOf(src).at(dim);
      if (size == 0) continue;
      indices[k] = idx;
      indices[k][dim] = size == 1 ? IndexExpr::constant(0, n_) : idx[dim].plus(-at);
      at += size;
      branches.push_back({fmt::format("{} < {}", idx[dim].str(), at),
                          [this, src, &indices, k] { return tensorValue(src, indices[k]); }});
      last_nonempty = src;
      last_k = k;
    }
    FUSEBOX_CHECK(last_nonempty != nullptr, "pointwise: cat of empty tensors has elements");
    // The last input takes everything past the others: no condition needed.
    auto last_branch = branches.back().second;
    branches.pop_back();
    (void)last_k;
    if (branches.empty()) return tensorValue(last_nonempty, indices[last_k]);
    const std::string var = newVar("v");
    body.line(fmt::format("{} {};", computeTypeName(out), var));
    auto emit = [&](const std::string& head, const std::function<std::string()>& make) {
      body.line(head);
      ++body.indent;
      ++cond_depth_;
      memo_.emplace_back();
      const std::string v = make();
      body.line(fmt::format("{} = {};", var, roundTo(out, v)));
      memo_.pop_back();
      --cond_depth_;
      --body.indent;
    };
    for (size_t b = 0; b < branches.size(); ++b)
      emit(fmt::format("{}if ({}) {{", b == 0 ? "" : "} else ", branches[b].first),
           branches[b].second);
    emit("} else {", last_branch);
    body.line("}");
    return var;
  }

  const Fusion& f_;
  const SegmentFacts& facts_;
  const PointwiseParams* params_;
  RuntimeInfo& info_;
  size_t n_;
  int vec_ = 1;
  bool fast_ = false;
  int cond_depth_ = 0;
  int counter_ = 0;
  bool uses_random_ = false;
  std::vector<int> group_of_;
  std::unordered_map<const Val*, int> input_ptr_;
  std::unordered_map<const Val*, ParamBinding> scalar_slot_;
  std::vector<int> output_ptr_;
  std::vector<ParamBinding> bindings_;
  std::vector<std::unordered_map<std::string, std::string>> memo_;
  std::unordered_map<const Val*, std::string> scalar_memo_;
  std::map<std::string, std::string> hoisted_;
  std::vector<Access> accesses_;
};

}  // namespace fusebox::pointwise::detail
