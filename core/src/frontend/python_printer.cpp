// Writes a Fusion as an nvFuser Python definition (and optionally a runnable
// repro script). Every expression is printed as the primitive fd.ops call that
// makes exactly it, so reading the text back gives the same fusion.
#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/tensor.h>

#include <algorithm>
#include <unordered_map>

#include "frontend/inputs_list.h"
#include "frontend/py_value.h"

namespace fusebox {
namespace {

using frontend::pythonLiteral;

std::string dtypeText(DataType t) {
  return fmt::format("DataType.{}", pythonName(t));
}

std::string boolText(bool b) {
  return b ? "True" : "False";
}

std::string intList(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

// The dtype fd.ops.sum/prod/max/min picks with dtype=DataType.Null (torch's rule).
DataType defaultReductionType(ReductionOpType op, DataType in) {
  bool widens = op == ReductionOpType::Sum || op == ReductionOpType::Prod;
  if (widens && (isIntegralType(in) || isBoolType(in))) return DataType::Int64;
  return in;
}

class PythonPrinter {
 public:
  PythonPrinter(const Fusion& f, const PythonPrintOptions& o) : f_(f), opt_(o) {}

  std::string print() {
    exprs_ = f_.exprs();
    for (const Expr* e : exprs_)
      for (const Val* v : e->inputs()) ++operand_uses_[v];
    for (const Val* v : f_.outputs()) ++operand_uses_[v];

    for (const Val* v : f_.inputs()) defineInput(v);
    for (const Expr* e : exprs_) printExpr(e);
    for (const Val* v : f_.outputs()) printOutput(v);

    std::string out = "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n";
    out += fmt::format("def {}(fd : FusionDefinition) -> None :\n", opt_.function_name);
    if (lines_.empty()) lines_.push_back("pass");
    for (const std::string& line : lines_) out += "    " + line + "\n";
    if (!opt_.repro_script) return out;

    out += "\ninputs = [\n";
    for (const InputSpec& spec : opt_.inputs.empty() ? defaultInputs() : opt_.inputs)
      out += "    " + toPython(spec) + ",\n";
    out += "]\n\n";
    out += fmt::format("with FusionDefinition() as fd:\n    {}(fd)\n\nfd.execute(inputs)\n",
                       opt_.function_name);
    return out;
  }

 private:
  std::string newName(const Val* v) {
    std::string name = fmt::format("{}{}", v->isTensor() ? "T" : "S", counter_++);
    names_[v] = name;
    if (v->isTensor()) defined_tensors_.push_back(v->as<TensorView>());
    return name;
  }

  // ---- inputs --------------------------------------------------------------------------

  void defineInput(const Val* v) {
    if (names_.count(v)) return;  // listed twice
    if (v->isScalar()) {
      std::string name = newName(v);
      lines_.push_back(
          fmt::format("{} = fd.define_scalar(None, dtype={})", name, dtypeText(v->dtype())));
      return;
    }
    const auto* tv = v->as<TensorView>();
    std::vector<IterDomain*> logical = tv->logicalNoReductions();
    std::vector<std::string> shape, contiguity;
    for (IterDomain* id : logical) {
      // An expanded broadcast is written with its size (contiguity None says broadcast).
      if (id->hasExpandedExtent())
        shape.push_back(id->expandedExtent()->isConst()
                            ? std::to_string(toInt(*id->expandedExtent()->value()))
                            : "-1");
      else if (id->isBroadcast())
        shape.push_back("1");
      else if (id->extent()->isConst())
        shape.push_back(std::to_string(toInt(*id->extent()->value())));
      else
        shape.push_back("-1");
    }
    // As in nvFuser, contiguity follows the allocation (stride) order.
    for (const std::optional<bool>& c : tv->contiguity())
      contiguity.push_back(c ? boolText(*c) : "None");
    std::string name = newName(v);
    std::string line = fmt::format(
        "{} = fd.define_tensor(shape=[{}], contiguity=[{}], dtype={}, is_cpu=False", name,
        fmt::join(shape, ", "), fmt::join(contiguity, ", "), dtypeText(tv->dtype()));
    if (tv->hasAllocation()) line += fmt::format(", stride_order={}", intList(tv->strideOrder()));
    lines_.push_back(line + ")");
  }

  std::vector<InputSpec> defaultInputs() const {
    std::vector<InputSpec> specs;
    for (const Val* v : f_.inputs()) {
      InputSpec spec;
      spec.dtype = v->dtype();
      if (v->isScalar()) {
        spec.kind = InputSpec::Kind::Scalar;
        if (isFloatingType(v->dtype()))
          spec.scalar = 1.0;
        else if (isBoolType(v->dtype()))
          spec.scalar = true;
        else
          spec.scalar = opt_.symbolic_extent;
        specs.push_back(spec);
        continue;
      }
      const auto* tv = v->as<TensorView>();
      // Symbolic extents take the example size unless the constant extents
      // make that count overflow int64; then 1 (the constant extents' count
      // fits: defineTensor checks it), so the printed inputs read back.
      for (int64_t symbolic : {opt_.symbolic_extent, int64_t{1}}) {
        spec.shape.clear();
        for (IterDomain* id : tv->logicalNoReductions()) {
          Scalar* extent = id->logicalExtent();
          if (id->isBroadcast() && !id->hasExpandedExtent())
            spec.shape.push_back(1);
          else if (extent->isConst())
            spec.shape.push_back(toInt(*extent->value()));
          else
            spec.shape.push_back(symbolic);
        }
        if (checked::product(spec.shape)) break;
      }
      if (isFloatingType(spec.dtype)) {
        spec.kind = InputSpec::Kind::Randn;
      } else if (isBoolType(spec.dtype)) {
        spec.kind = InputSpec::Kind::MakeTensor;
      } else {
        spec.kind = InputSpec::Kind::Randint;
        spec.low = 0;
        spec.high = 10;
      }
      std::vector<bool> expanded;
      for (IterDomain* id : tv->logicalNoReductions()) expanded.push_back(id->hasExpandedExtent());
      const bool any_expanded = std::find(expanded.begin(), expanded.end(), true) != expanded.end();
      if (tv->hasAllocation() || any_expanded) {
        // Dense strides in the tensor's stride order over a 1-D storage; an
        // expanded dim repeats one element (stride 0, stored once).
        // (stridesForOrder throws UserError where the example shape overflows int64.)
        std::vector<int64_t> stored = spec.shape;
        for (size_t d = 0; d < stored.size(); ++d)
          if (expanded[d]) stored[d] = 1;
        spec.strides = tv->hasAllocation() ? stridesForOrder(stored, tv->strideOrder())
                                           : contiguousStrides(stored);
        for (size_t d = 0; d < stored.size(); ++d)
          if (expanded[d]) (*spec.strides)[d] = 0;
        spec.base_shape = {std::max<int64_t>(
            checked::orThrow(checked::product(stored), "an example input's element count"), 1)};
      }
      specs.push_back(spec);
    }
    return specs;
  }

  // ---- operands ----------------------------------------------------------------------------

  // How a statement refers to `v`. `in_list` marks shape/index lists, where a
  // single-use int constant is written inline as nvFuser does.
  std::string ref(const Val* v, bool in_list = false) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    if (v->isTensor())
      throw InternalError(
          fmt::format("python printer: tensor {} is used before it is defined", v->toString()));
    const auto* s = v->as<Scalar>();
    if (s->isConst()) {
      if (in_list && s->dtype() == DataType::Int64 && operand_uses_[v] <= 1)
        return pythonLiteral(*s->value());
      std::string name = newName(v);
      lines_.push_back(fmt::format("{} = fd.define_scalar({}, dtype={})", name,
                                   pythonLiteral(*s->value()), dtypeText(s->dtype())));
      return name;
    }
    if (s->definition() != nullptr)
      throw InternalError(
          fmt::format("python printer: scalar {} is used before it is computed", s->toString()));
    // A symbolic extent: read it from a tensor that has it.
    for (const TensorView* tv : defined_tensors_) {
      std::vector<IterDomain*> logical = tv->logicalNoReductions();
      for (size_t i = 0; i < logical.size(); ++i) {
        if (logical[i]->logicalExtent() == v) {
          std::string name = newName(v);
          lines_.push_back(fmt::format("{} = {}.size({})", name, names_.at(tv), i));
          return name;
        }
      }
    }
    throw UserError(
        fmt::format("cannot print scalar {} as Python: it is neither an input, a constant, "
                    "computed, nor the extent of a tensor defined before its use",
                    s->toString()));
  }

  std::string refList(const std::vector<Val*>& inputs, size_t begin, size_t end) {
    std::vector<std::string> items;
    for (size_t i = begin; i < end; ++i) items.push_back(ref(inputs.at(i), true));
    return fmt::format("[{}]", fmt::join(items, ", "));
  }

  // ---- expressions -----------------------------------------------------------------------------

  void emit(const Expr* e, const std::string& call) {
    std::vector<std::string> outs;
    for (const Val* o : e->outputs()) outs.push_back(newName(o));
    lines_.push_back(fmt::format("{} = {}", fmt::join(outs, ", "), call));
  }

  // The output of a set, when it has the layout fd.ops.stride_order gives:
  // an allocation domain on an intermediate, or on an output whose required
  // order it is. (On any other output it is a pass's hint, not printed.)
  const TensorView* userLayout(const Val* v) const {
    if (!v->isTensor()) return nullptr;
    const auto* tv = v->as<TensorView>();
    if (!tv->hasAllocation()) return nullptr;
    return !tv->isFusionOutput() || f_.requiredStrideOrder(tv) ? tv : nullptr;
  }

  void printExpr(const Expr* e) {
    const std::vector<Val*>& in = e->inputs();
    const Val* out = e->output(0);
    auto call = [](std::string_view op, const std::string& args) {
      return fmt::format("fd.ops.{}({})", op, args);
    };
    switch (e->op()) {
      case OpType::Set:
        if (const TensorView* tv = userLayout(out))
          return emit(e, call("stride_order", fmt::format("{}, stride_order={}", ref(in[0]),
                                                          intList(tv->strideOrder()))));
        return emit(e, call("set", ref(in[0])));
      case OpType::SegmentSet:
        return emit(e, call("segment_set", ref(in[0])));
      case OpType::Unary:
        return emit(e, call(toString(e->attr<UnaryOpType>()), ref(in[0])));
      case OpType::Binary: {
        std::string a = ref(in[0]), b = ref(in[1]);
        return emit(e, call(toString(e->attr<BinaryOpType>()), a + ", " + b));
      }
      case OpType::Ternary: {
        std::string a = ref(in[0]), b = ref(in[1]), c = ref(in[2]);
        return emit(e,
                    call(toString(e->attr<TernaryOpType>()), fmt::format("{}, {}, {}", a, b, c)));
      }
      case OpType::Cast:
        return emit(e,
                    call("cast", fmt::format("{}, dtype={}", ref(in[0]), dtypeText(out->dtype()))));
      case OpType::Broadcast: {
        std::vector<std::string> flags;
        for (bool b : e->attr<BroadcastAttr>().is_broadcast_dim) flags.push_back(boolText(b));
        return emit(e, call("broadcast", fmt::format("{}, is_broadcast_dim=[{}]", ref(in[0]),
                                                     fmt::join(flags, ", "))));
      }
      case OpType::Squeeze: {
        const auto& dims = e->attr<SqueezeAttr>().dims;
        const auto ids = in[0]->as<TensorView>()->logicalNoReductions();
        bool expanded = false;
        for (int64_t d : dims) expanded |= ids.at(d)->hasExpandedExtent();
        return emit(e, call("squeeze", fmt::format("{}, dims={}{}", ref(in[0]), intList(dims),
                                                   expanded ? ", squeeze_expanded=True" : "")));
      }
      case OpType::Expand: {
        std::string x = ref(in[0]);
        return emit(e, call("expand", fmt::format("{}, shape={}", x, refList(in, 1, in.size()))));
      }
      case OpType::Reshape: {
        std::string x = ref(in[0]);
        return emit(e,
                    call("reshape", fmt::format("{}, new_shape={}", x, refList(in, 1, in.size()))));
      }
      case OpType::Permute:
        return emit(e, call("permute", fmt::format("{}, dims={}", ref(in[0]),
                                                   intList(e->attr<PermuteAttr>().dims))));
      case OpType::Reduction: {
        const auto& a = e->attr<ReductionAttr>();
        bool dflt = out->dtype() == defaultReductionType(a.op, in[0]->dtype());
        return emit(
            e, call(toString(a.op),
                    fmt::format("{}, dims={}, keepdim=False, dtype={}", ref(in[0]), intList(a.axes),
                                dflt ? "DataType.Null" : dtypeText(out->dtype()))));
      }
      case OpType::Var:
      case OpType::VarMean: {
        const auto& a = e->attr<VarianceAttr>();
        return emit(e, call(e->op() == OpType::Var ? "var" : "var_mean",
                            fmt::format("{}, dims={}, correction={}, keepdim=False", ref(in[0]),
                                        intList(a.axes), a.correction)));
      }
      case OpType::Welford:
        return emit(e, call("welford", fmt::format("{}, dims={}", ref(in[0]),
                                                   intList(e->attr<VarianceAttr>().axes))));
      case OpType::Slice: {
        size_t rank = (in.size() - 1) / 3;
        std::string x = ref(in[0]);
        std::string starts = refList(in, 1, 1 + rank), stops = refList(in, 1 + rank, 1 + 2 * rank),
                    steps = refList(in, 1 + 2 * rank, 1 + 3 * rank);
        return emit(e, call("slice", fmt::format("{}, start_indices={}, end_indices={}, strides={}",
                                                 x, starts, stops, steps)));
      }
      case OpType::Pad: {
        std::string x = ref(in[0]);
        std::string widths = refList(in, 2, in.size());
        std::string value = ref(in[1]);
        return emit(e, call("pad", fmt::format("{}, {}, {}", x, widths, value)));
      }
      case OpType::Cat: {
        std::vector<std::string> xs;
        for (const Val* v : in) xs.push_back(ref(v));
        return emit(e, call("cat", fmt::format("[{}], dim={}", fmt::join(xs, ", "),
                                               e->attr<CatAttr>().dim)));
      }
      case OpType::Full: {
        std::string shape = refList(in, 1, in.size());
        std::string fill = ref(in[0]);
        return emit(e, call("full", fmt::format("shape={}, fill_value={}, dtype={}", shape, fill,
                                                dtypeText(out->dtype()))));
      }
      case OpType::Iota: {
        std::string length = ref(in[0]), start = ref(in[1]), step = ref(in[2]);
        return emit(e, call("iota", fmt::format("{}, {}, {}, dtype={}", length, start, step,
                                                dtypeText(out->dtype()))));
      }
      case OpType::Rand: {
        const auto& a = e->attr<RandAttr>();
        size_t rank = in.size() - (a.has_seed ? 4 : 2);
        std::string shape = refList(in, 0, rank);
        std::string lo = ref(in[rank]), hi = ref(in[rank + 1]);
        std::string args =
            fmt::format("{}, {}, shape={}, dtype={}", lo, hi, shape, dtypeText(out->dtype()));
        if (a.has_seed) {
          std::string seed = ref(in[rank + 2]), offset = ref(in[rank + 3]);
          args += fmt::format(", rng_seed={}, rng_offset={}", seed, offset);
        }
        return emit(e, call(a.dist == RandomDistribution::Uniform ? "uniform" : "normal", args));
      }
      case OpType::Matmul: {
        std::string a = ref(in[0]), b = ref(in[1]);
        return emit(e, call("matmul", a + ", " + b));
      }
      case OpType::Linear: {
        std::vector<std::string> xs;
        for (const Val* v : in) xs.push_back(ref(v));
        return emit(e, call("linear", fmt::format("{}", fmt::join(xs, ", "))));
      }
      case OpType::IndexSelect:
      case OpType::Select:
      case OpType::Gather:
      case OpType::TakeAlongAxis:
      case OpType::Scatter: {
        std::vector<std::string> xs;
        for (const Val* v : in) xs.push_back(ref(v));
        return emit(e, call(e->opName(), fmt::format("{}, dim={}", fmt::join(xs, ", "),
                                                     e->attr<IndexAttr>().dim)));
      }
      case OpType::Scan:
        return emit(
            e, call(e->opName(), fmt::format("{}, dim={}", ref(in[0]), e->attr<ScanAttr>().dim)));
      case OpType::Argsort: {
        const auto& a = e->attr<SortAttr>();
        return emit(
            e, call("argsort", fmt::format("{}, dim={}, descending={}, stable={}", ref(in[0]),
                                           a.dim, boolText(a.descending), boolText(a.stable))));
      }
      case OpType::TopK: {
        const auto& a = e->attr<TopKAttr>();
        std::string x = ref(in[0]), k = ref(in[1]);
        return emit(e, call("topk", fmt::format("{}, {}, dim={}, largest={}, sorted={}", x, k,
                                                a.dim, boolText(a.largest), boolText(a.sorted))));
      }
    }
    throw InternalError(fmt::format("python printer: unhandled op {}", e->opName()));
  }

  void printOutput(const Val* v) {
    std::string name = ref(v);
    std::string extra;
    if (v->isTensor()) {
      if (const std::vector<int64_t>* order = f_.requiredStrideOrder(v->as<TensorView>()))
        extra += fmt::format(", stride_order={}", intList(*order));
    }
    if (const Val* in = f_.aliasedInput(v)) extra += fmt::format(", alias_input={}", ref(in));
    lines_.push_back(fmt::format("fd.add_output({}{})", name, extra));
  }

  const Fusion& f_;
  const PythonPrintOptions& opt_;
  std::vector<Expr*> exprs_;
  std::unordered_map<const Val*, std::string> names_;
  std::unordered_map<const Val*, int> operand_uses_;
  std::vector<const TensorView*> defined_tensors_;
  std::vector<std::string> lines_;
  int64_t counter_ = 0;
};

}  // namespace

std::string printPythonDefinition(const Fusion& fusion, const PythonPrintOptions& options) {
  return PythonPrinter(fusion, options).print();
}

}  // namespace fusebox
