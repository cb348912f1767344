#include "frontend/op_table.h"

#include <fmt/format.h>
#include <fusebox/ir/ops.h>

#include <algorithm>
#include <functional>
#include <map>

#include "frontend/op_table_internal.h"

namespace fusebox::frontend {

// ---- argument binding -----------------------------------------------------------

namespace {

// The keywords still open: names (and aliases) of parameters not yet given.
std::string openParamNames(const std::vector<OpParam>& params,
                           const std::vector<const PyValue*>& slots) {
  std::string s;
  for (size_t i = 0; i < params.size(); ++i)
    if (slots[i] == nullptr)
      for (std::string_view n : params[i].names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

std::string arityPhrase(const std::vector<OpParam>& params) {
  size_t required =
      std::count_if(params.begin(), params.end(), [](const OpParam& p) { return p.required; });
  if (required == params.size())
    return fmt::format("{} argument{}", required, required == 1 ? "" : "s");
  return fmt::format("{} to {} arguments", required, params.size());
}

}  // namespace

BoundArgs::BoundArgs(std::string function, std::vector<OpParam> params, const CallArgs& args)
    : function_(std::move(function)),
      params_(std::move(params)),
      slots_(params_.size(), nullptr),
      where_(args.where) {
  size_t given = args.positional.size() + args.keywords.size();
  if (args.positional.size() > params_.size()) {
    throw UserError(args.positional[params_.size()].where,
                    fmt::format("{} takes {}, got {}", function_, arityPhrase(params_), given));
  }
  for (size_t i = 0; i < args.positional.size(); ++i) slots_[i] = &args.positional[i];
  for (const auto& [key, value] : args.keywords) {
    size_t found = params_.size();
    for (size_t i = 0; i < params_.size() && found == params_.size(); ++i)
      for (std::string_view n : params_[i].names)
        if (n == key.text) found = i;
    SourceLocation key_loc{where_.file, key.line, key.column};
    if (found == params_.size()) {
      std::string open = openParamNames(params_, slots_);
      throw UserError(
          key_loc,
          fmt::format("unexpected keyword '{}' for {} ({})", displayText(key.text), function_,
                      open.empty() ? "every argument is already given" : "expected: " + open));
    }
    if (slots_[found] != nullptr)
      throw UserError(key_loc, fmt::format("{} got multiple values for '{}'", function_,
                                           params_[found].names[0]));
    slots_[found] = &value;
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].required && slots_[i] == nullptr)
      throw UserError(where_, fmt::format("{} takes {}, got {} (missing '{}')", function_,
                                          arityPhrase(params_), given, params_[i].names[0]));
  }
}

const PyValue& BoundArgs::at(size_t i) const {
  if (slots_.at(i) == nullptr)
    throw UserError(where_, fmt::format("{} needs argument '{}'", function_, params_[i].names[0]));
  return *slots_[i];
}

std::string BoundArgs::context(size_t i) const {
  return fmt::format("argument '{}' of {}", params_.at(i).names[0], function_);
}

// ---- the table ----------------------------------------------------------------------

namespace {

using namespace op_table;

PyValue tuple(std::initializer_list<Val*> vals, const BoundArgs& a) {
  PyValue t = PyValue::make(PyValue::Kind::Tuple, a.where());
  for (Val* v : vals) t.items.push_back(fromVal(v, a.where()));
  return t;
}

std::vector<int64_t> dimsOrAll(const BoundArgs& a, size_t i) {
  return a.has(i) ? asIntList(a.at(i), a.context(i)) : std::vector<int64_t>{};
}

// A 0/1 or False/True flag argument.
bool flagValue(const BoundArgs& a, size_t i) {
  const PyValue& v = a.at(i);
  if (v.kind == PyValue::Kind::Bool) return v.b;
  int64_t n = asInt(v, a.context(i));
  if (n != 0 && n != 1) throw UserError(v.where, fmt::format("expected 0 or 1 ({})", a.context(i)));
  return n == 1;
}

bool boolOr(const BoundArgs& a, size_t i, bool dflt) {
  return a.has(i) ? asBool(a.at(i), a.context(i)) : dflt;
}

// Default start/step for iota and bounds for rand_like: ints for integral dtypes.
Scalar* numberOfType(Fusion& f, double v, DataType t) {
  return isFloatingType(t) ? f.constantDouble(v) : f.constantInt(static_cast<int64_t>(v));
}

void addElementwise(OpMap& t) {
  for (UnaryOpType op : allUnaryOpTypes())
    t[std::string(toString(op))] = {{req({"arg"})}, [op](Fusion& f, const BoundArgs& a) {
                                      return result(
                                          unaryOp(op, asOperand(f, a.at(0), a.context(0))), a);
                                    }};
  for (BinaryOpType op : allBinaryOpTypes())
    t[std::string(toString(op))] = {
        {req({"arg1"}), req({"arg2"})}, [op](Fusion& f, const BoundArgs& a) {
          return result(binaryOp(op, asOperand(f, a.at(0), a.context(0)),
                                 asOperand(f, a.at(1), a.context(1))),
                        a);
        }};
  for (TernaryOpType op : allTernaryOpTypes())
    t[std::string(toString(op))] = {
        {req({"arg1"}), req({"arg2"}), req({"arg3"})}, [op](Fusion& f, const BoundArgs& a) {
          return result(
              ternaryOp(op, asOperand(f, a.at(0), a.context(0)),
                        asOperand(f, a.at(1), a.context(1)), asOperand(f, a.at(2), a.context(2))),
              a);
        }};
  t["cast"] = {{req({"arg"}), req({"dtype"})}, [](Fusion& f, const BoundArgs& a) {
                 DataType d = *asDataType(a.at(1), a.context(1), false);
                 return result(castOp(d, asOperand(f, a.at(0), a.context(0))), a);
               }};
}

void addDataMovement(OpMap& t) {
  t["set"] = {{req({"arg"})}, [](Fusion&, const BoundArgs& a) {
                return result(set(asTensor(a.at(0), a.context(0))), a);
              }};
  t["segment_set"] = {{req({"arg"})}, [](Fusion&, const BoundArgs& a) {
                        return result(segmentSet(asTensor(a.at(0), a.context(0))), a);
                      }};
  t["broadcast"] = {
      {req({"arg"}), req({"is_broadcast_dim"})}, [](Fusion&, const BoundArgs& a) {
        return result(broadcast(asTensor(a.at(0), a.context(0)), asBoolList(a.at(1), a.context(1))),
                      a);
      }};
  t["broadcast_in_dim"] = {{req({"arg"}), req({"shape", "output_shape"}), req({"broadcast_dims"})},
                           [](Fusion& f, const BoundArgs& a) {
                             return result(broadcastInDim(asTensor(a.at(0), a.context(0)),
                                                          asShape(f, a.at(1), a.context(1)),
                                                          asIntList(a.at(2), a.context(2))),
                                           a);
                           }};
  // squeeze_expanded (newer nvFuser): an expanded broadcast dim is squeezed
  // only when it is True.
  t["squeeze"] = {{req({"arg"}), req({"dims"}), opt({"squeeze_expanded"})},
                  [](Fusion&, const BoundArgs& a) {
                    const bool squeeze_expanded = a.has(2) && asBool(a.at(2), a.context(2));
                    return result(squeeze(asTensor(a.at(0), a.context(0)),
                                          asIntList(a.at(1), a.context(1)), squeeze_expanded),
                                  a);
                  }};
  t["expand"] = {{req({"arg"}), req({"shape"})}, [](Fusion& f, const BoundArgs& a) {
                   return result(
                       expand(asTensor(a.at(0), a.context(0)), asShape(f, a.at(1), a.context(1))),
                       a);
                 }};
  t["reshape"] = {{req({"arg"}), req({"new_shape"})}, [](Fusion& f, const BoundArgs& a) {
                    return result(
                        reshape(asTensor(a.at(0), a.context(0)), asShape(f, a.at(1), a.context(1))),
                        a);
                  }};
  t["permute"] = {{req({"arg"}), req({"dims"})}, [](Fusion&, const BoundArgs& a) {
                    return result(
                        permute(asTensor(a.at(0), a.context(0)), asIntList(a.at(1), a.context(1))),
                        a);
                  }};
}

void addReductions(OpMap& t) {
  // nvFuser's overloads: (arg, dtype) over every dim, (arg, dim, keepdim,
  // dtype) and (arg, dims, keepdim, dtype); nvfuser_direct spelled keepdim
  // keep_dim for a while.
  for (ReductionOpType op :
       {ReductionOpType::Sum, ReductionOpType::Prod, ReductionOpType::Max, ReductionOpType::Min}) {
    t[std::string(toString(op))] = {
        {req({"arg"}), opt({"dims", "axes", "dim"}), opt({"keepdim", "keep_dim"}), opt({"dtype"})},
        [op](Fusion&, const BoundArgs& a) {
          TensorView* x = asTensor(a.at(0), a.context(0));
          // prod(t, DataType.Float): the second argument is the dtype.
          const bool dtype_second = a.has(1) && a.at(1).kind == PyValue::Kind::DType;
          const size_t dtype_at = dtype_second ? 1 : 3;
          if (dtype_second) {
            const std::optional<DataType>& second = a.at(1).dtype;
            for (size_t i : {size_t{2}, size_t{3}})
              if (a.has(i))
                throw UserError(a.at(i).where,
                                fmt::format("{}(arg, dtype) reduces every dim and takes no {} "
                                            "(its second argument DataType.{} is the dtype)",
                                            a.function(), i == 2 ? "keepdim" : "second dtype",
                                            second ? pythonName(*second) : "Null"));
          }
          std::optional<DataType> dtype;
          if (a.has(dtype_at)) dtype = asDataType(a.at(dtype_at), a.context(dtype_at), true);
          std::vector<int64_t> dims = dtype_second ? std::vector<int64_t>{} : dimsOrAll(a, 1);
          return result(reduction(op, x, dims, boolOr(a, 2, false), dtype), a);
        }};
  }
  std::vector<OpParam> var_params{req({"arg"}), opt({"dims", "axes"}), opt({"correction"}),
                                  opt({"keepdim"})};
  auto correction = [](const BoundArgs& a) {
    return a.has(2) ? asInt(a.at(2), a.context(2)) : int64_t{1};
  };
  t["var"] = {var_params, [correction](Fusion&, const BoundArgs& a) {
                return result(variance(asTensor(a.at(0), a.context(0)), dimsOrAll(a, 1),
                                       correction(a), boolOr(a, 3, false)),
                              a);
              }};
  t["var_mean"] = {var_params, [correction](Fusion&, const BoundArgs& a) {
                     VarMeanResult r = varMean(asTensor(a.at(0), a.context(0)), dimsOrAll(a, 1),
                                               correction(a), boolOr(a, 3, false));
                     return tuple({r.var, r.mean}, a);
                   }};
  t["welford"] = {{req({"arg"}), req({"dims", "axes"})}, [](Fusion&, const BoundArgs& a) {
                    WelfordResult r =
                        welford(asTensor(a.at(0), a.context(0)), asIntList(a.at(1), a.context(1)));
                    return tuple({r.avg, r.var_sum, r.n}, a);
                  }};
}

void addResize(OpMap& t) {
  // manual_normalization (newer nvFuser) is accepted: for indices that are
  // already in range both settings mean the same slice.
  t["slice"] = {{req({"arg"}), req({"start_indices"}), req({"end_indices"}), opt({"strides"}),
                 opt({"manual_normalization"})},
                [](Fusion& f, const BoundArgs& a) {
                  if (a.has(4)) flagValue(a, 4);
                  std::vector<Val*> steps;
                  if (a.has(3)) steps = asShape(f, a.at(3), a.context(3));
                  return result(
                      slice(asTensor(a.at(0), a.context(0)), asShape(f, a.at(1), a.context(1)),
                            asShape(f, a.at(2), a.context(2)), steps),
                      a);
                }};
  t["pad"] = {
      {req({"arg"}), req({"pad_widths"}), opt({"value"})}, [](Fusion& f, const BoundArgs& a) {
        Val* value = a.has(2) ? asScalar(f, a.at(2), a.context(2)) : nullptr;
        return result(
            pad(asTensor(a.at(0), a.context(0)), asShape(f, a.at(1), a.context(1)), value), a);
      }};
  t["cat"] = {
      {req({"tensors"}), opt({"dim"}), opt({"manual_padding"})}, [](Fusion&, const BoundArgs& a) {
        if (a.has(2) && flagValue(a, 2))
          throw UserError(a.at(2).where,
                          "fd.ops.cat: manual_padding=True is not supported (expected 0 or False)");
        int64_t dim = a.has(1) ? asInt(a.at(1), a.context(1)) : 0;
        std::vector<TensorView*> xs = asTensorList(a.at(0), a.context(0));
        if (xs.empty()) throw UserError(a.at(0).where, "fd.ops.cat needs at least one tensor");
        return result(cat(xs, dim), a);
      }};
}

void addCreation(OpMap& t) {
  t["full"] = {
      {req({"shape"}), req({"fill_value"}), req({"dtype"})}, [](Fusion& f, const BoundArgs& a) {
        return result(full(f, asShape(f, a.at(0), a.context(0)), asScalar(f, a.at(1), a.context(1)),
                           *asDataType(a.at(2), a.context(2), false)),
                      a);
      }};
  t["iota"] = {{req({"length"}), opt({"start"}), opt({"step"}), opt({"dtype"})},
               [](Fusion& f, const BoundArgs& a) {
                 DataType d =
                     a.has(3) ? *asDataType(a.at(3), a.context(3), false) : DataType::Int64;
                 Val* start = a.has(1) ? asScalar(f, a.at(1), a.context(1)) : numberOfType(f, 0, d);
                 Val* step = a.has(2) ? asScalar(f, a.at(2), a.context(2)) : numberOfType(f, 1, d);
                 return result(iota(f, asScalar(f, a.at(0), a.context(0)), start, step, d), a);
               }};
  for (RandomDistribution dist : {RandomDistribution::Uniform, RandomDistribution::Normal}) {
    bool uniform_dist = dist == RandomDistribution::Uniform;
    std::vector<OpParam> params{uniform_dist ? req({"minval", "low"}) : req({"mean"}),
                                uniform_dist ? req({"maxval", "high"}) : req({"std"}),
                                req({"shape"}),
                                opt({"dtype"}),
                                opt({"rng_seed"}),
                                opt({"rng_offset"})};
    t[uniform_dist ? "uniform" : "normal"] = {
        params, [uniform_dist](Fusion& f, const BoundArgs& a) {
          DataType d = a.has(3) ? *asDataType(a.at(3), a.context(3), false) : DataType::Float;
          if (a.has(4) != a.has(5))
            throw UserError(
                a.where(),
                fmt::format("{} needs both rng_seed and rng_offset, or neither", a.function()));
          Val* seed = a.has(4) ? asScalar(f, a.at(4), a.context(4)) : nullptr;
          Val* offset = a.has(5) ? asScalar(f, a.at(5), a.context(5)) : nullptr;
          auto make = uniform_dist ? uniform : normal;
          return result(
              make(f, asShape(f, a.at(2), a.context(2)), asScalar(f, a.at(0), a.context(0)),
                   asScalar(f, a.at(1), a.context(1)), d, seed, offset),
              a);
        }};
    // rand_like / randn_like: the distribution on [0, 1) / N(0, 1) with the operand's shape and
    // dtype.
    t[uniform_dist ? "rand_like" : "randn_like"] = {
        {req({"arg"}), opt({"rng_seed"}), opt({"rng_offset"})},
        [uniform_dist](Fusion& f, const BoundArgs& a) {
          TensorView* x = asTensor(a.at(0), a.context(0));
          if (a.has(1) != a.has(2))
            throw UserError(
                a.where(),
                fmt::format("{} needs both rng_seed and rng_offset, or neither", a.function()));
          std::vector<Val*> shape;
          for (IterDomain* id : x->logicalNoReductions()) shape.push_back(id->logicalExtent());
          Val* seed = a.has(1) ? asScalar(f, a.at(1), a.context(1)) : nullptr;
          Val* offset = a.has(2) ? asScalar(f, a.at(2), a.context(2)) : nullptr;
          auto make = uniform_dist ? uniform : normal;
          return result(
              make(f, shape, f.constantDouble(0), f.constantDouble(1), x->dtype(), seed, offset),
              a);
        }};
  }
}

// argsort and topk with nvFuser's names and defaults (topk's k: a number or
// an integer scalar, such as a scalar input).
void addSorts(OpMap& t) {
  t["argsort"] = {{req({"arg"}), req({"dim"}), opt({"descending"}), opt({"stable"})},
                  [](Fusion&, const BoundArgs& a) {
                    return result(
                        argsort(asTensor(a.at(0), a.context(0)), asInt(a.at(1), a.context(1)),
                                boolOr(a, 2, false), boolOr(a, 3, false)),
                        a);
                  }};
  t["topk"] = {{req({"arg"}), req({"k"}), opt({"dim"}), opt({"largest"}), opt({"sorted"})},
               [](Fusion& f, const BoundArgs& a) {
                 const int64_t dim = a.has(2) ? asInt(a.at(2), a.context(2)) : -1;
                 TopKResult r =
                     topk(asTensor(a.at(0), a.context(0)), asScalar(f, a.at(1), a.context(1)), dim,
                          boolOr(a, 3, true), boolOr(a, 4, false));
                 return tuple({r.values, r.indices}, a);
               }};
}

void addMatmulAndQueries(OpMap& t) {
  t["matmul"] = {{req({"arg1"}), req({"arg2"})}, [](Fusion&, const BoundArgs& a) {
                   return result(
                       matmul(asTensor(a.at(0), a.context(0)), asTensor(a.at(1), a.context(1))), a);
                 }};
  t["linear"] = {
      {req({"arg1", "input"}), req({"arg2", "weight"}), opt({"bias"})},
      [](Fusion&, const BoundArgs& a) {
        TensorView* bias = a.has(2) ? asTensor(a.at(2), a.context(2)) : nullptr;
        return result(
            linear(asTensor(a.at(0), a.context(0)), asTensor(a.at(1), a.context(1)), bias), a);
      }};
  // Queries that make no expression: the extent scalars themselves.
  t["size"] = {{req({"arg"}), req({"dim"})}, [](Fusion&, const BoundArgs& a) {
                 TensorView* x = asTensor(a.at(0), a.context(0));
                 int64_t dim =
                     normalizeDim(asInt(a.at(1), a.context(1)), x->nDims(), "fd.ops.size dim");
                 return result(x->axis(dim)->logicalExtent(), a);
               }};
  t["shape"] = {{req({"arg"})}, [](Fusion&, const BoundArgs& a) {
                  TensorView* x = asTensor(a.at(0), a.context(0));
                  PyValue v = PyValue::make(PyValue::Kind::Vector, a.where());
                  for (IterDomain* id : x->logicalNoReductions())
                    v.vec.push_back(id->logicalExtent());
                  return v;
                }};
  t["at"] = {{req({"arg"}), req({"index"})}, [](Fusion&, const BoundArgs& a) {
               const PyValue& v = a.at(0);
               if (v.kind != PyValue::Kind::Vector) throwWrongKind(v, "a vector", a.context(0));
               int64_t n = static_cast<int64_t>(v.vec.size());
               int64_t i = normalizeDim(asInt(a.at(1), a.context(1)), n, "fd.ops.at index");
               return result(v.vec[i], a);
             }};
}

const OpMap& opTable() {
  static const auto table = [] {
    OpMap t;
    addElementwise(t);
    addDataMovement(t);
    addReductions(t);
    addResize(t);
    addCreation(t);
    addMatmulAndQueries(t);
    addSorts(t);
    addIndexingAndScans(t);
    addCompositeAndLayout(t);
    return t;
  }();
  return table;
}

}  // namespace

// The message of a UserError raised without a location, prefixed with the
// function's name unless the builder already put it there.
std::string builderErrorDetail(const UserError& e, const std::string& function) {
  std::string d = e.detail().empty() ? e.what() : e.detail();
  if (d.rfind(function + ":", 0) == 0) return d;
  return fmt::format("{}: {}", function, d);
}

std::vector<std::string> knownOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : opTable()) names.push_back(name);
  return names;
}

std::vector<OpParam> opParams(std::string_view name) {
  auto it = opTable().find(name);
  return it == opTable().end() ? std::vector<OpParam>{} : it->second.params;
}

PyValue callFdOp(Fusion& fusion, const Token& op, const CallArgs& args) {
  SourceLocation op_loc{args.where.file, op.line, op.column};
  auto it = opTable().find(op.text);
  if (it == opTable().end()) {
    std::string known;
    for (const std::string& n : knownOpNames()) known += (known.empty() ? "" : ", ") + n;
    throw UserError(op_loc,
                    fmt::format("unknown op fd.ops.{} (known: {})", displayText(op.text), known));
  }
  std::string function = "fd.ops." + op.text;
  BoundArgs bound(function, it->second.params, args);
  try {
    PyValue v = it->second.fn(fusion, bound);
    if (v.where.line == 0) v.where = args.where;
    return v;
  } catch (const UserError& e) {
    // Errors the interpreter raised already carry a location; builder errors do not.
    if (e.where().known()) throw;
    throw UserError(args.where, builderErrorDetail(e, function));
  }
}

}  // namespace fusebox::frontend
