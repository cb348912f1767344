#include <fusebox/ir/printer.h>

#include <fmt/format.h>
#include <sstream>
#include <unordered_set>

namespace fusebox {
namespace {

// A value as an operand: tensors with their domain, scalars inline.
std::string operand(const Val* v) {
  if (auto* tv = dynamic_cast<const TensorView*>(v)) return tv->domainString();
  if (auto* s = dynamic_cast<const Scalar*>(v)) return s->inlineString();
  return v->toString();
}

std::string operandList(const std::vector<Val*>& vals, size_t begin, size_t end) {
  std::vector<std::string> parts;
  for (size_t i = begin; i < end && i < vals.size(); ++i) parts.push_back(operand(vals[i]));
  return fmt::format("{}", fmt::join(parts, ", "));
}

const char* infix(BinaryOpType op) {
  switch (op) {
    case BinaryOpType::Add: return "+";
    case BinaryOpType::Sub: return "-";
    case BinaryOpType::Mul: return "*";
    case BinaryOpType::Div: return "/";
    default: return nullptr;
  }
}

std::string initialValue(ReductionOpType op, DataType t) {
  switch (op) {
    case ReductionOpType::Sum: return fmt::format("{}(0)", irName(t));
    case ReductionOpType::Prod: return fmt::format("{}(1)", irName(t));
    case ReductionOpType::Max: return fmt::format("{}(-inf)", irName(t));
    case ReductionOpType::Min: return fmt::format("{}(inf)", irName(t));
  }
  return "?";
}

std::string boolList(const std::vector<bool>& v) {
  std::vector<std::string> s;
  for (bool b : v) s.push_back(b ? "true" : "false");
  return fmt::format("{{{}}}", fmt::join(s, ", "));
}

// The right-hand side of an expression.
std::string rhs(const Expr* e) {
  const auto& in = e->inputs();
  switch (e->op()) {
    case OpType::Set: return fmt::format("Set( {} )", operand(in[0]));
    case OpType::SegmentSet: return fmt::format("SegmenterSet( {} )", operand(in[0]));
    case OpType::Unary: return fmt::format("{}({})", e->opName(), operand(in[0]));
    case OpType::Binary: {
      if (const char* sym = infix(e->attr<BinaryOpType>()))
        return fmt::format("{}\n   {} {}", operand(in[0]), sym, operand(in[1]));
      return fmt::format("{}({}\n  , {})", e->opName(), operand(in[0]), operand(in[1]));
    }
    case OpType::Ternary: return fmt::format("{}({})", e->opName(), operandList(in, 0, 3));
    case OpType::Cast:
      return fmt::format("cast( {}, dtype = {} )", operand(in[0]), irName(e->output(0)->dtype()));
    case OpType::Broadcast:
      return fmt::format("broadcast( {}, flags = {} )", operand(in[0]),
                         boolList(e->attr<BroadcastAttr>().is_broadcast_dim));
    case OpType::Squeeze:
      return fmt::format("squeeze( {}, dims = {{{}}} )", operand(in[0]),
                         fmt::join(e->attr<SqueezeAttr>().dims, ", "));
    case OpType::Expand:
      return fmt::format("expand( {}, shape = {{{}}} )", operand(in[0]),
                         operandList(in, 1, in.size()));
    case OpType::Reshape:
      return fmt::format("view( {}, new_shape = {{{}}} )", operand(in[0]),
                         operandList(in, 1, in.size()));
    case OpType::Permute:
      return fmt::format("permute( {}, dims = {{{}}} )", operand(in[0]),
                         fmt::join(e->attr<PermuteAttr>().dims, ", "));
    case OpType::Reduction: {
      const auto& a = e->attr<ReductionAttr>();
      std::string op = a.op == ReductionOpType::Sum ? "add" : e->opName();
      return fmt::format("reduction( {}, op = {}, initial value = {}, allreduce = false )",
                         operand(in[0]), op, initialValue(a.op, e->output(0)->dtype()));
    }
    case OpType::Var:
    case OpType::VarMean:
    case OpType::Welford: {
      const auto& a = e->attr<VarianceAttr>();
      std::string s = fmt::format("{}( {}, axes = {{{}}}", e->opName(), operand(in[0]),
                                  fmt::join(a.axes, ", "));
      if (e->op() != OpType::Welford) s += fmt::format(", correction = {}", a.correction);
      return s + " )";
    }
    case OpType::Slice: {
      size_t rank = (in.size() - 1) / 3;
      std::vector<std::string> ranges;
      for (size_t d = 0; d < rank; ++d)
        ranges.push_back(fmt::format("{{{}, {}, {}}}", operand(in[1 + d]),
                                     operand(in[1 + rank + d]), operand(in[1 + 2 * rank + d])));
      return fmt::format("slice( {}, {{{}}} )", operand(in[0]), fmt::join(ranges, ", "));
    }
    case OpType::Pad:
      return fmt::format("pad( {}, {{{}}}, value = {} )", operand(in[0]),
                         operandList(in, 2, in.size()), operand(in[1]));
    case OpType::Cat:
      return fmt::format("cat( {}, dim = {} )", operandList(in, 0, in.size()),
                         e->attr<CatAttr>().dim);
    case OpType::Full:
      return fmt::format("full( {{{}}}, {} )", operandList(in, 1, in.size()), operand(in[0]));
    case OpType::Iota: return fmt::format("iota( {} )", operandList(in, 0, 3));
    case OpType::Rand: return fmt::format("{}( {} )", e->opName(), operandList(in, 0, in.size()));
    case OpType::Matmul: return fmt::format("matmul( {} )", operandList(in, 0, 2));
    case OpType::Linear: return fmt::format("linear( {} )", operandList(in, 0, in.size()));
    case OpType::IndexSelect:
    case OpType::Select:
    case OpType::Gather:
    case OpType::TakeAlongAxis:
    case OpType::Scatter:
      return fmt::format("{}( {}, dim = {} )", e->opName(), operandList(in, 0, in.size()),
                         e->attr<IndexAttr>().dim);
    case OpType::Scan:
      return fmt::format("{}( {}, dim = {} )", e->opName(), operand(in[0]),
                         e->attr<ScanAttr>().dim);
    case OpType::Argsort: {
      const auto& a = e->attr<SortAttr>();
      return fmt::format("argsort( {}, dim = {}, descending = {}, stable = {} )", operand(in[0]),
                         a.dim, a.descending, a.stable);
    }
    case OpType::TopK: {
      const auto& a = e->attr<TopKAttr>();
      return fmt::format("topk( {}, k = {}, dim = {}, largest = {}, sorted = {} )", operand(in[0]),
                         operand(in[1]), a.dim, a.largest, a.sorted);
    }
  }
  return "?";
}

}  // namespace

std::string printExpr(const Expr* e) {
  std::vector<std::string> outs;
  for (Val* v : e->outputs()) outs.push_back(operand(v));
  if (!e->isTensorOp()) {
    // Scalar arithmetic: "i5 = ( i0 * i1 );"
    std::vector<std::string> names;
    for (Val* v : e->outputs()) names.push_back(v->toString());
    return fmt::format("{} = {};\n", fmt::join(names, ", "),
                       e->output(0)->as<Scalar>()->inlineString());
  }
  std::string lhs = outs.size() == 1 ? outs[0] : fmt::format("{}", fmt::join(outs, ",\n  "));
  return fmt::format("{}\n   = {};\n", lhs, rhs(e));
}

std::string printFusion(const Fusion& fusion, const IrPrintOptions& options) {
  std::ostringstream os;
  auto declaration = [](const Val* v) {
    if (auto* tv = dynamic_cast<const TensorView*>(v))
      return fmt::format("{}, {}", tv->domainString(), irName(tv->dtype()));
    return fmt::format("{}, {}", v->toString(), irName(v->dtype()));
  };
  os << "Inputs:\n";
  for (Val* v : fusion.inputs()) os << "  " << declaration(v) << "\n";
  os << "Outputs:\n";
  for (Val* v : fusion.outputs()) {
    os << "  " << declaration(v);
    if (v->isTensor())
      if (auto* order = fusion.requiredStrideOrder(v->as<TensorView>()))
        os << fmt::format(", stride_order = [{}]", fmt::join(*order, ", "));
    if (Val* in = fusion.aliasedInput(v)) os << ", aliases " << in->toString();
    os << "\n";
  }
  os << "\n%kernel_math {\n";
  for (Expr* e : fusion.exprs()) {
    if (!e->isTensorOp()) continue;  // scalar arithmetic shows inline in its users
    os << printExpr(e);
  }
  os << "}\n";
  if (options.transforms) {
    os << "\n%transforms {\n";
    for (TensorView* tv : fusion.usedTensors()) {
      os << tv->domainString() << "\n";
      std::vector<std::string> alloc, contiguity;
      for (IterDomain* id : tv->allocation()) alloc.push_back(id->toString());
      for (auto& c : tv->contiguity())
        contiguity.push_back(c ? (*c ? "t" : "f") : "n");
      os << fmt::format("  allocation: [ {} ]{}\n", fmt::join(alloc, ", "),
                        tv->hasAllocation() ? "" : " (logical)");
      os << fmt::format("  contiguity: {}\n", fmt::join(contiguity, " "));
      os << fmt::format("  stride order: [{}]\n", fmt::join(tv->strideOrder(), ", "));
      if (auto* order = fusion.requiredStrideOrder(tv))
        os << fmt::format("  required stride order: [{}]\n", fmt::join(*order, ", "));
    }
    // Extents computed by scalar arithmetic (reshape, slice, pad, cat outputs).
    std::unordered_set<const Scalar*> shown;
    for (TensorView* tv : fusion.usedTensors())
      for (IterDomain* id : tv->logical())
        for (Scalar* s : {id->extent(), id->expandedExtent()})
          if (s && s->definition() && shown.insert(s).second)
            os << fmt::format("  {} = {}\n", s->toString(), s->inlineString());
    os << "}\n";
  }
  return os.str();
}

}  // namespace fusebox
