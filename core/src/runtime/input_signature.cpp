// The cache key of a call: what each input looks like, and which scalar values
// matter because they feed shapes.
#include <fusebox/ir/shape_scalars.h>
#include <fusebox/runtime.h>

#include <fmt/format.h>

#include <unordered_set>

namespace fusebox {

int64_t recordedAlignment(const void* address) {
  auto a = reinterpret_cast<uintptr_t>(address);
  if (a == 0) return kMaxRecordedAlignment;
  return std::min<int64_t>(static_cast<int64_t>(a & (~a + 1)), kMaxRecordedAlignment);
}

ArgumentInfo argumentInfo(const Argument& argument) {
  if (const auto* s = std::get_if<ScalarValue>(&argument)) return *s;
  const Tensor& t = std::get<Tensor>(argument);
  return TensorArgInfo{t.dtype(), t.sizes(), t.strides(),
                       t.defined() ? recordedAlignment(t.data()) : kMaxRecordedAlignment};
}

std::vector<bool> shapeScalarInputs(const Fusion& fusion) {
  std::vector<const Val*> roots;
  for (const Val* v : fusion.allVals()) {
    if (const auto* id = dynamic_cast<const IterDomain*>(v)) {
      roots.push_back(id->extent());
      if (id->hasExpandedExtent()) roots.push_back(id->expandedExtent());
    }
  }
  for (const Expr* e : fusion.exprs())
    for (const Val* v : shapeOperands(e)) roots.push_back(v);

  // Every scalar the roots are computed from.
  std::unordered_set<const Val*> reached;
  while (!roots.empty()) {
    const Val* v = roots.back();
    roots.pop_back();
    if (v == nullptr || !v->isScalar() || !reached.insert(v).second) continue;
    if (const Expr* def = v->definition())
      for (const Val* operand : def->inputs()) roots.push_back(operand);
  }
  std::vector<bool> out;
  for (const Val* in : fusion.inputs()) out.push_back(in->isScalar() && reached.count(in) > 0);
  return out;
}

namespace {

// "4, 8" into `key`, without a format string (every call makes a signature).
void appendInts(std::string& key, const std::vector<int64_t>& values) {
  for (size_t d = 0; d < values.size(); ++d) {
    if (d > 0) key += ", ";
    key += fmt::format_int(values[d]).c_str();
  }
}

}  // namespace

std::string inputSignature(const std::vector<Argument>& inputs,
                           const std::vector<bool>& shape_scalars) {
  std::string key;
  key.reserve(48 * inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) key += "; ";
    if (const auto* s = std::get_if<ScalarValue>(&inputs[i])) {
      static constexpr const char* kKinds[] = {"bool", "int", "double"};
      key += kKinds[s->index()];
      if (i < shape_scalars.size() && shape_scalars[i]) {
        key += '=';
        key += toString(*s);
      }
      continue;
    }
    const Tensor& t = std::get<Tensor>(inputs[i]);
    if (!t.defined()) {
      key += "undefined";
      continue;
    }
    key += dtypeName(t.dtype());
    key += '[';
    appendInts(key, t.sizes());
    key += "]{";
    appendInts(key, t.strides());
    key += "}@";
    key += fmt::format_int(recordedAlignment(t.data())).c_str();
  }
  return key;
}

}  // namespace fusebox
