// The size classes a symbolic kernel's source depends on (shape_classes.h).
#include "kernelgen/shape_classes.h"

#include <fmt/format.h>
#include <fusebox/ir/shape_scalars.h>

#include <algorithm>
#include <cstdint>

namespace fusebox::kernelgen {

char valueClass(int64_t v) {
  if (v == INT64_MIN) return 'm';  // a pad of -2^63 crops everything (element_values.cpp)
  return v < 0 ? '-' : v == 0 ? '0' : v == 1 ? '1' : 'n';
}

namespace {

std::string classesOf(const std::vector<int64_t>& values) {
  std::string s;
  for (int64_t v : values) s += valueClass(v);
  return s;
}

void addTensor(std::string& out, const TensorView* tv, const std::vector<int64_t>& sizes,
               const std::vector<std::vector<int64_t>>& spaces) {
  out += fmt::format("T{}[{}]", tv->name(), classesOf(sizes));
  const auto space = std::find(spaces.begin(), spaces.end(), sizes);
  if (space != spaces.end()) out += fmt::format("={}", space - spaces.begin());
}

// The classes of an expr's shape scalars that its code depends on
// (element_values.cpp). A pad's widths and a slice's starts from the inputs
// are parameters whatever their values (Affine::c_param), constant ones are
// the same in every call, and a slice's stops only size its output: of those,
// only a crop of 2^63 and a slice's steps (an index's coefficients) count.
std::string scalarClasses(RuntimeInfo& info, const Expr* e, const TensorSizes& sizes) {
  std::string out;
  auto classOf = [&](const Val* v) {
    return valueClass(evaluateShapeScalar(info, v, "shape scalar"));
  };
  if (e->op() == OpType::Pad) {
    for (size_t k = 2; k < e->inputs().size(); ++k) out += classOf(e->input(k)) == 'm' ? 'm' : '.';
  } else if (e->op() == OpType::Slice) {
    const size_t r = sizes.at(e->input(0)->as<TensorView>()).size();
    for (size_t d = 0; d < r; ++d) out += classOf(e->input(1 + 2 * r + d));
  } else {
    for (const Val* v : shapeOperands(e))
      if (v != nullptr && v->isScalar() && isIntegralType(v->dtype())) out += classOf(v);
  }
  return out;
}

}  // namespace

std::string shapeClasses(const Fusion& segment, const TensorSizes& sizes, RuntimeInfo& info,
                         const std::vector<Access>& accesses,
                         const std::vector<std::vector<int64_t>>& spaces) {
  std::string out;
  const std::vector<const TensorArgInfo*> args = tensorInputArgs(segment, info);
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k] == nullptr) continue;
    addTensor(out, segment.inputs()[k]->as<TensorView>(), args[k]->sizes, spaces);
    out += fmt::format("{{{}}} ", classesOf(args[k]->strides));
  }
  for (const Expr* e : segment.exprs()) {
    for (const Val* o : e->outputs())
      if (o->isTensor()) {
        addTensor(out, o->as<TensorView>(), sizes.at(o->as<TensorView>()), spaces);
        out += " ";
      }
    if (const std::string scalars = scalarClasses(info, e, sizes); !scalars.empty())
      out += fmt::format("e{}({}) ", e->name(), scalars);
  }
  for (const Access& a : accesses) {
    if (!a.offset.affine) {
      out += "x";
    } else {
      out += classesOf(a.offset.a.coef);
      out += a.offset.a.c_param ? 'p' : valueClass(a.offset.a.c);
    }
    out += a.conditional ? "? " : " ";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace fusebox::kernelgen
