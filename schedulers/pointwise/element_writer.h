// The per-element code of a pointwise kernel (used by codegen.cpp): each
// output element's value derived from the iteration index (the reference
// output's logical index) through every op back to the segment inputs, one
// index expression per dim (index_math.h); equal (tensor, index) pairs are
// computed once (that walk is in element_values.cpp). Loads the heuristics
// allow become vector loads hoisted above the per-element loop (or above the
// row loop of a 2-D schedule); the rest are scalar loads. Run without params
// it only records the accesses.
#pragma once

#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/ir/compute_type.h>

#include <algorithm>
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
        body.line(fmt::format("{}[v] = fusebox::Cast<{}>::from({});", arr, st, value));
        post_chunk.line(fmt::format("fusebox::storeVec<{}>({} + {}, {});", vec_, ptr,
                                    offsetText(off, "mb"), arr));
      } else {
        body.line(fmt::format("{}[{}] = fusebox::Cast<{}>::from({});", ptr,
                              offsetText(off, lastVar()), st, value));
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
        return fmt::format("fusebox::Cast<{}>::from({}[v])", ct, it->second);
      }
      if (zeroOnGroup(off.a, m - 1)) {
        auto it = hoisted_.find(key);
        if (it == hoisted_.end()) {
          const std::string var = newVar("hl");
          target.line(fmt::format("const {} {} = fusebox::Cast<{}>::from({}[{}]);", ct, var, ct,
                                  ptr, offsetText(off, "mb")));
          it = hoisted_.emplace(key, var).first;
        }
        return it->second;
      }
    }
    const std::string var = newVar("ld");
    body.line(fmt::format("const {} {} = fusebox::Cast<{}>::from({}[{}]);", ct, var, ct, ptr,
                          offsetText(off, lastVar())));
    return var;
  }

  bool tailPossible() const {
    return vec_ > 1 && !params_->group_extents.empty() && params_->group_extents.back() % vec_ != 0;
  }

  // C++ text of a scalar: a literal, a kernel parameter, or a prologue
  // variable computed from other scalars (element_values.cpp).
  std::string scalarText(const Val* v);

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

  // The value of tensor `tv` at `idx` (element_values.cpp): a walk from `tv`
  // back to the segment inputs with an explicit stack of ValueTasks, so a
  // chain of any length fits; equal (tensor, index) pairs are computed once.
  std::string tensorValue(const TensorView* tv, const Index& idx);
  struct ValueTask;
  struct ValueStep;
  static ValueStep finished(std::string value);
  ValueStep advance(ValueTask& t, const std::string* operand);
  ValueStep start(ValueTask& t);
  ValueStep nextOperand(ValueTask& t);
  ValueStep forwardTo(ValueTask& t, Index in);
  ValueStep startPad(ValueTask& t);
  ValueStep startCat(ValueTask& t);
  ValueStep openBranch(ValueTask& t);
  ValueStep closeBranch(ValueTask& t, const std::string& value);
  ValueStep need(const TensorView* tv, Index idx);
  Index sliceIndex(const Expr* e, const Index& idx);
  // x^2 and x^3 of a floating tensor: the base tensor, or null.
  static const TensorView* smallPowerBase(const Expr* e);
  std::string smallPowerText(const Expr* e, std::string base);

  const std::vector<int64_t>& sizesOf(const Val* v) const {
    return facts_.sizes.at(v->as<TensorView>());
  }

  std::string declare(DataType t, const std::string& expr) {
    const std::string var = newVar("v");
    body.line(fmt::format("const {} {} = {};", computeTypeName(t), var, expr));
    return var;
  }

  // uniform / normal: element i (row-major in the op's shape) from the Philox
  // word stream exactly as docs/random.md specifies (the device runtime's
  // fusebox_runtime/philox.cuh, which the evaluator shares); the arithmetic
  // is in double, rounded once to the dtype.
  std::string randomValue(const Expr* e, const Index& idx) {
    const auto& attr = e->attr<RandAttr>();
    const auto* tv = e->output(0)->as<TensorView>();
    const auto& sizes = sizesOf(tv);
    const size_t rank = sizes.size();
    const std::string i = linearOffset(idx, sizes, contiguousStrides(sizes), n_).str();
    const std::string a =
        fmt::format("fusebox::Cast<double>::from({})", scalarText(e->input(rank)));
    const std::string b =
        fmt::format("fusebox::Cast<double>::from({})", scalarText(e->input(rank + 1)));
    std::string seed = "0ull", offset = "0ull";
    if (attr.has_seed) {
      seed = fmt::format("static_cast<uint64_t>(fusebox::Cast<int64_t>::from({}))",
                         scalarText(e->input(rank + 2)));
      offset = fmt::format("static_cast<uint64_t>(fusebox::Cast<int64_t>::from({}))",
                           scalarText(e->input(rank + 3)));
    }
    const bool wide = tv->dtype() == DataType::Double;
    const std::string element = fmt::format("static_cast<uint64_t>({})", i);
    auto draw = [&](const std::string& k) {
      return fmt::format("fusebox::philox::draw({}, {}, {}, {})", seed, offset, k,
                         wide ? "true" : "false");
    };
    std::string value;
    if (attr.dist == RandomDistribution::Uniform) {
      value = fmt::format("{} + fusebox::philox::mulRounded({} - {}, {})", a, b, a, draw(element));
    } else {
      const std::string u1 = newVar("u"), u2 = newVar("u");
      body.line(fmt::format("const double {} = 1.0 - {};", u1, draw("2 * " + element)));
      body.line(fmt::format("const double {} = {};", u2, draw("2 * " + element + " + 1")));
      value = fmt::format(
          "{} + fusebox::philox::mulRounded({}, fusebox::op::sqrt(-2.0 * "
          "fusebox::op::log({})) * fusebox::op::cos(2.0 * 3.141592653589793116 * {}))",
          a, b, u1, u2);
    }
    return declare(tv->dtype(), roundTo(tv->dtype(), value));
  }

 private:
  const Fusion& f_;
  const SegmentFacts& facts_;
  const PointwiseParams* params_;
  RuntimeInfo& info_;
  size_t n_;
  int vec_ = 1;
  bool fast_ = false;
  int cond_depth_ = 0;
  int counter_ = 0;
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
