// The builder turns a program's call into the script reader's own call (a
// CallArgs of PyValues located at the caller's place) and its result back.
#include <fmt/format.h>
#include <fusebox/frontend/definition_builder.h>

#include "frontend/define_tensor.h"
#include "frontend/fd_methods.h"
#include "frontend/op_table.h"

namespace fusebox {
namespace {

using frontend::PyValue;

PyValue toPyValue(const DefinitionValue& v, const SourceLocation& where) {
  using K = DefinitionValue::Kind;
  PyValue p;
  switch (v.kind) {
    case K::None:
      p = PyValue::none(where);
      break;
    case K::Bool:
      p = PyValue::boolean(v.b, where);
      break;
    case K::Int:
      p = PyValue::integer(v.i, where);
      break;
    case K::Float:
      p = PyValue::floating(v.f, where);
      break;
    case K::String:
      p = PyValue::make(PyValue::Kind::String, where);
      p.s = v.s;
      break;
    case K::DType:
      p = frontend::dataTypeNamed(v.s, where, where);
      break;
    case K::List:
    case K::Tuple:
      p = PyValue::make(v.kind == K::List ? PyValue::Kind::List : PyValue::Kind::Tuple, where);
      for (const DefinitionValue& item : v.items) p.items.push_back(toPyValue(item, where));
      break;
    case K::Tensor:
    case K::Scalar:
      FUSEBOX_CHECK(v.val != nullptr, "a {} handle without a value",
                    v.kind == K::Tensor ? "tensor" : "scalar");
      p = frontend::fromVal(v.val, where);
      for (int64_t d : v.stride_order) p.items.push_back(PyValue::integer(d, where));
      break;
    case K::Vector:
      p = PyValue::make(PyValue::Kind::Vector, where);
      p.vec = v.vec;
      break;
  }
  p.var = v.name;
  return p;
}

DefinitionValue fromPyValue(const PyValue& p, const std::shared_ptr<const Fusion>& owner) {
  using K = DefinitionValue::Kind;
  DefinitionValue v;
  switch (p.kind) {
    case PyValue::Kind::None:
      return v;
    case PyValue::Kind::Tensor:
      v.kind = K::Tensor;
      v.val = p.val;
      v.stride_order = frontend::strideOrderOf(p);
      v.name = handleName(p.val);
      v.owner = owner;
      return v;
    case PyValue::Kind::Scalar:
      v.kind = K::Scalar;
      v.val = p.val;
      v.name = handleName(p.val);
      v.owner = owner;
      return v;
    case PyValue::Kind::Vector:
      v.kind = K::Vector;
      v.vec = p.vec;
      v.owner = owner;
      return v;
    case PyValue::Kind::Tuple:
    case PyValue::Kind::List:
      v.kind = p.kind == PyValue::Kind::Tuple ? K::Tuple : K::List;
      for (const PyValue& item : p.items) v.items.push_back(fromPyValue(item, owner));
      return v;
    default:
      // The builder's calls return handles, tuples of them, or None.
      FUSEBOX_CHECK(false, "a definition call returned {}", frontend::kindPhrase(p.kind));
  }
}

frontend::Token nameToken(std::string_view name, const SourceLocation& where) {
  frontend::Token t;
  t.kind = frontend::TokenKind::Name;
  t.text = std::string(name);
  t.line = where.line;
  t.column = where.column;
  return t;
}

frontend::CallArgs toCallArgs(const DefinitionCall& call) {
  frontend::CallArgs args;
  args.where = call.where;
  for (const DefinitionValue& v : call.positional)
    args.positional.push_back(toPyValue(v, call.where));
  for (const auto& [key, v] : call.keywords)
    args.keywords.emplace_back(nameToken(key, call.where), toPyValue(v, call.where));
  return args;
}

}  // namespace

std::string handleName(const Val* v) {
  return fmt::format("{}{}", v->isTensor() ? "T" : "S", v->name());
}

TensorDescriptor computeTensorDescriptor(const std::vector<int64_t>& sizes,
                                         const std::vector<int64_t>& strides) {
  FUSEBOX_USER_CHECK(sizes.size() == strides.size(),
                     "compute_tensor_descriptor: {} sizes but {} strides", sizes.size(),
                     strides.size());
  for (size_t d = 0; d < sizes.size(); ++d)
    FUSEBOX_USER_CHECK(sizes[d] >= 0 && strides[d] >= 0,
                       "compute_tensor_descriptor: dim {} has size {} and stride {}; both must be "
                       ">= 0",
                       d, sizes[d], strides[d]);
  frontend::TensorLayout layout = frontend::layoutFromStrides(sizes, strides);
  TensorDescriptor td{layout.contiguity, layout.stride_order};
  if (td.stride_order.empty())  // row-major
    for (size_t d = 0; d < sizes.size(); ++d)
      td.stride_order.push_back(static_cast<int64_t>(sizes.size() - 1 - d));
  return td;
}

DefinitionValue DefinitionValue::integer(int64_t v) {
  DefinitionValue d;
  d.kind = Kind::Int;
  d.i = v;
  return d;
}

DefinitionValue DefinitionValue::list(std::vector<int64_t> values) {
  DefinitionValue d;
  d.kind = Kind::List;
  for (int64_t x : values) d.items.push_back(integer(x));
  return d;
}

DefinitionBuilder::DefinitionBuilder() : fusion_(std::make_shared<Fusion>()) {}
DefinitionBuilder::~DefinitionBuilder() = default;
DefinitionBuilder::DefinitionBuilder(DefinitionBuilder&&) noexcept = default;
DefinitionBuilder& DefinitionBuilder::operator=(DefinitionBuilder&&) noexcept = default;

namespace {

void checkOwner(const DefinitionValue& v, const Fusion* fusion, const SourceLocation& where) {
  using K = DefinitionValue::Kind;
  if (v.kind == K::List || v.kind == K::Tuple)
    for (const DefinitionValue& item : v.items) checkOwner(item, fusion, where);
  if ((v.kind == K::Tensor || v.kind == K::Scalar || v.kind == K::Vector) &&
      v.owner.get() != fusion)
    throw UserError(where, fmt::format("{} belongs to another FusionDefinition (or to one whose "
                                       "`with` block was left); a definition uses the values it "
                                       "defined",
                                       v.name.empty() ? "a vector" : v.name));
}

}  // namespace

void DefinitionBuilder::checkOwners(const DefinitionCall& call) const {
  for (const DefinitionValue& v : call.positional) checkOwner(v, fusion_.get(), call.where);
  for (const auto& [key, v] : call.keywords) checkOwner(v, fusion_.get(), call.where);
}

DefinitionValue DefinitionBuilder::method(std::string_view name, const DefinitionCall& call) {
  FUSEBOX_USER_CHECK(fusion_ != nullptr, "{}: this definition is already finished",
                     call.where.str());
  checkOwners(call);
  if (name == "from_pytorch")
    throw UserError(call.where,
                    "fd.from_pytorch needs the tensor itself; the builder takes its sizes, "
                    "strides and dtype through fd.define_tensor");
  fusion_->setOriginOfNewExprs(call.where);
  return fromPyValue(
      frontend::callFdMethod(*fusion_, "fd", nameToken(name, call.where), toCallArgs(call)),
      fusion_);
}

DefinitionValue DefinitionBuilder::op(std::string_view name, const DefinitionCall& call) {
  FUSEBOX_USER_CHECK(fusion_ != nullptr, "{}: this definition is already finished",
                     call.where.str());
  checkOwners(call);
  fusion_->setOriginOfNewExprs(call.where);
  return fromPyValue(frontend::callFdOp(*fusion_, nameToken(name, call.where), toCallArgs(call)),
                     fusion_);
}

DefinitionValue DefinitionBuilder::valueMethod(const DefinitionValue& self, std::string_view name,
                                               const DefinitionCall& call) {
  FUSEBOX_USER_CHECK(fusion_ != nullptr, "{}: this definition is already finished",
                     call.where.str());
  checkOwner(self, fusion_.get(), call.where);
  checkOwners(call);
  return fromPyValue(frontend::callValueMethod(toPyValue(self, call.where),
                                               nameToken(name, call.where), toCallArgs(call)),
                     fusion_);
}

const Fusion& DefinitionBuilder::fusion() const {
  FUSEBOX_CHECK(fusion_ != nullptr, "the definition was released");
  return *fusion_;
}

std::unique_ptr<Fusion> DefinitionBuilder::release() {
  FUSEBOX_CHECK(fusion_ != nullptr, "the definition was released");
  fusion_->setOriginOfNewExprs({});
  std::unique_ptr<Fusion> copy = fusion_->clone();
  fusion_.reset();
  return copy;
}

std::vector<std::string> DefinitionBuilder::opNames() {
  return frontend::knownOpNames();
}

}  // namespace fusebox
