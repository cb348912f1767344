// The generator's core: inputs, the statement loop, outputs and aliases, and
// the bookkeeping that keeps every kept statement valid.
#include "generator_internal.h"

#include <fmt/format.h>
#include <fusebox/frontend/python_definition.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fusebox::fuzz {

const std::vector<FeatureInfo>& generatorFeatures() {
  static const std::vector<FeatureInfo> features = {
      {"alias", "outputs written in place of an input (add_output(T, alias_input=I))"},
      {"float-scalar", "Python float literals not representable in the tensor's dtype (0.1)"},
      {"nonfinite", "nan/inf literals and inputs"},
      {"big-int", "integer literals beyond int32"},
      {"size0", "dims of size 0"},
      {"large", "tensors of up to 64K elements with rows of 128 or more"},
      {"deep", "a chain of 12,000 to 20,000 dependent ops (1 case in 2,000)"},
      {"size1-iteration", "symbolic (-1) dims that are 1 at run time"},
      {"strided-input", "permuted, non-contiguous and offset input layouts"},
      {"stride0-input", "inputs with a stride-0 dim that is not a broadcast"},
      {"scalar-input", "symbolic scalar inputs"},
      {"scalar-ops", "arithmetic on scalars, scalar outputs"},
      {"symbolic-shape", "shape arguments read from tensor extents (T.size(i))"},
      {"output-stride-order", "add_output(T, stride_order=[...])"},
      {"squeeze-expanded", "squeeze of an expanded broadcast dim"},
      {"unary", "unary math"},
      {"binary", "binary math and comparisons"},
      {"ternary", "where, clamp, lerp, threshold"},
      {"cast", "casts between all dtypes"},
      {"set", "set and segment_set"},
      {"broadcast", "broadcast and broadcast_in_dim"},
      {"expand", "expand"},
      {"squeeze", "squeeze"},
      {"permute", "permute"},
      {"reshape", "reshape"},
      {"reduction", "sum, prod, max, min"},
      {"variance", "var, var_mean, welford"},
      {"slice", "slice"},
      {"pad", "pad"},
      {"cat", "cat"},
      {"full", "full"},
      {"iota", "iota"},
      {"rand", "uniform, normal, rand_like, randn_like"},
      {"matmul", "matmul and linear"},
      {"indexing",
       "index_select, select, gather, take_along_axis, scatter, embedding_fwd at indices made "
       "in range from iota"},
      {"scan", "cumsum, cumprod, cummax, cummin"},
      {"sort", "argsort, topk (of exact values)"},
      {"triu", "triu"},
      {"masked",
       "where(mask, -inf/inf/0, x) masks, the softmax over a -inf mask, log of a "
       "masked 0"},
      {"hostile-index",
       "after the outputs, an indexing op at indices read from the data (in range or not) with "
       "index shapes that may not fit the input; kept when the evaluator refuses it"},
  };
  return features;
}

int64_t TensorVar::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool intFitsCompute(double max_abs, DataType compute) {
  return compute == DataType::Double ? max_abs <= 9007199254740992.0 : max_abs <= 16777216.0;
}

DataType lessPrecise(DataType a, DataType b) {
  auto rank = [](DataType t) {
    switch (t) {
      case DataType::BFloat16:
        return 0;
      case DataType::Half:
        return 1;
      case DataType::Float:
        return 2;
      default:
        return 3;
    }
  };
  return rank(a) <= rank(b) ? a : b;
}

void measure(TensorVar& v, const Tensor& t) {
  v.finite = true;
  v.max_abs = 0;
  v.min_abs = t.numel() > 0 ? INFINITY : 0;
  v.samples.clear();
  for (double x : t.toDoubles()) {
    if (v.samples.size() < 6 && std::isfinite(x) &&
        std::find(v.samples.begin(), v.samples.end(), x) == v.samples.end())
      v.samples.push_back(x);
    if (!std::isfinite(x))
      v.finite = false;
    else
      v.max_abs = std::max(v.max_abs, std::fabs(x));
    v.min_abs = std::min(v.min_abs, std::fabs(x));
  }
}

NewVar resultOf(std::string name, const std::vector<Operand>& operands, bool op_exact) {
  NewVar v{std::move(name), op_exact, 0};
  for (const Operand& o : operands) {
    v.exact = v.exact && o.exact;
    v.approx_depth = std::max(v.approx_depth, o.approx_depth);
    if (!o.exact) v.precision = lessPrecise(v.precision, o.precision);
  }
  if (!v.exact) v.approx_depth += 1;
  return v;
}

Generator::Generator(uint64_t seed, const GeneratorOptions& o)
    : options(o), rng_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}

int64_t Generator::between(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
}

bool Generator::chance(double p) {
  return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < p;
}

bool Generator::allowed(std::string_view feature) const {
  return options.excluded.count(std::string(feature)) == 0;
}

void Generator::use(std::string_view feature) {
  auto& f = result.features;
  if (std::find(f.begin(), f.end(), feature) == f.end()) f.emplace_back(feature);
}

std::string Generator::newName(char prefix) {
  return fmt::format("{}{}", prefix, counter_++);
}

const TensorVar* Generator::pickTensor(const std::function<bool(const TensorVar&)>& ok) {
  std::vector<const TensorVar*> candidates;
  for (const auto& t : tensors)
    if (!ok || ok(t)) candidates.push_back(&t);
  if (candidates.empty()) return nullptr;
  // Recent tensors more often (long chains), older ones still (diamonds).
  int64_t n = static_cast<int64_t>(candidates.size());
  int64_t back = 0;
  while (back < n - 1 && chance(0.45)) ++back;
  if (chance(0.25)) back = between(0, n - 1);
  return candidates[static_cast<size_t>(n - 1 - back)];
}

double Generator::tameBound(DataType t) {
  switch (t) {
    case DataType::Double:
      return 1e6;
    case DataType::Float:
      return 64;
    default:
      return 4;  // half, bfloat16 (and integers never get here inexact)
  }
}

bool Generator::tame(const TensorVar& t) {
  return t.exact || (t.finite && t.max_abs <= tameBound(t.dtype) && t.approx_depth <= 3);
}

int64_t Generator::numelCap() const {
  int64_t base_numel = 1;
  for (int64_t s : base) base_numel *= std::max<int64_t>(s, 1);
  return std::max<int64_t>(8 * options.max_numel, 2 * base_numel);
}

bool Generator::broadcastable(const TensorVar& a, const TensorVar& b) const {
  int64_t ra = a.rank(), rb = b.rank();
  int64_t numel = 1;
  for (int64_t k = 1; k <= std::max(ra, rb); ++k) {
    int64_t sa = k <= ra ? a.sizes[static_cast<size_t>(ra - k)] : 1;
    int64_t sb = k <= rb ? b.sizes[static_cast<size_t>(rb - k)] : 1;
    numel *= std::max(sa, sb);
    if (k > std::min(ra, rb)) continue;
    size_t ia = static_cast<size_t>(ra - k), ib = static_cast<size_t>(rb - k);
    if (a.dims[ia] == DimKind::Bcast || b.dims[ib] == DimKind::Bcast) continue;
    if (a.sizes[ia] != b.sizes[ib]) return false;
  }
  return numel <= numelCap();
}

Operand Generator::tensorOperand(const TensorVar& t) const {
  Operand o;
  o.text = t.name;
  o.is_tensor = true;
  o.dtype = t.dtype;
  o.exact = t.exact;
  o.finite = t.finite;
  o.max_abs = t.max_abs;
  o.min_abs = t.min_abs;
  o.approx_depth = t.approx_depth;
  o.precision = t.precision;
  o.tensor = &t;
  return o;
}

// ---- statements -----------------------------------------------------------------

bool Generator::tryStatement(const std::vector<NewVar>& vars, const std::string& rhs,
                             bool must_accept) {
  if (failed_) return false;
  std::string lhs;
  for (const auto& v : vars) lhs += (lhs.empty() ? "" : ", ") + v.name;
  FuzzCase trial = result.fuzz_case;
  trial.body.push_back({lhs + " = " + rhs, -1});
  for (const auto& v : vars) trial.body.push_back({"fd.add_output(" + v.name + ")", -1});
  const std::string script = renderScript(trial);
  try {
    PythonDefinition def = parsePythonDefinition(script, "case.py");
    const auto& outs = def.fusion->outputs();
    std::vector<const Val*> new_outputs(outs.end() - static_cast<std::ptrdiff_t>(vars.size()),
                                        outs.end());
    std::vector<Argument> values = evaluateFusion(*def.fusion, input_values_);
    recordVars(vars, values, new_outputs);
  } catch (const UserError& e) {
    ++result.rejected;
    size_t call = rhs.find('(');
    result.rejections.push_back(rhs.substr(0, call) + ": " + e.what());
    if (!must_accept) return false;
    fail(trial, vars, "frontend-rejects", e.what());
    return false;
  } catch (const std::exception& e) {
    // Not a UserError: the frontend or the evaluator broke on a valid-looking
    // statement. That is a finding; the case ends here.
    fail(trial, vars, "generator", e.what());
    return false;
  }
  result.fuzz_case.body.push_back({lhs + " = " + rhs, -1});
  return true;
}

void Generator::fail(FuzzCase trial, const std::vector<NewVar>& vars, const std::string& category,
                     const std::string& message) {
  {
    result.generator_failure = message;
    result.generator_failure_category = category;
    trial.body.resize(trial.body.size() - vars.size());
    for (const auto& v : vars) trial.body.push_back({"fd.add_output(" + v.name + ")", -1});
    result.fuzz_case = trial;
    failed_ = true;
  }
}

void Generator::recordVars(const std::vector<NewVar>& vars, const std::vector<Argument>& values,
                           const std::vector<const Val*>& outputs) {
  size_t first = values.size() - vars.size();
  for (size_t k = 0; k < vars.size(); ++k) {
    const Argument& value = values[first + k];
    const Val* out = outputs[k];
    if (const auto* s = std::get_if<ScalarValue>(&value)) {
      scalars.push_back({vars[k].name, out->dtype(), *s, false});
      continue;
    }
    const Tensor& t = std::get<Tensor>(value);
    TensorVar v;
    v.name = vars[k].name;
    v.dtype = t.dtype();
    v.sizes = t.sizes();
    const auto* tv = out->as<TensorView>();
    for (const IterDomain* id : tv->logicalNoReductions())
      v.dims.push_back(!id->isBroadcast()        ? DimKind::Iter
                       : id->hasExpandedExtent() ? DimKind::Expanded
                                                 : DimKind::Bcast);
    v.exact = vars[k].exact;
    v.approx_depth = vars[k].approx_depth;
    v.precision =
        isFloatingType(v.dtype) ? lessPrecise(vars[k].precision, v.dtype) : vars[k].precision;
    measure(v, t);
    tensors.push_back(std::move(v));
  }
}

// ---- outputs -----------------------------------------------------------------------

void Generator::chooseOutputs() {
  // Tensors nothing reads are outputs (else they would be dead code); plus a
  // few intermediates and sometimes an input passed through.
  std::vector<bool> is_output(tensors.size(), false);
  const auto& body = result.fuzz_case.body;
  auto used = [&](const std::string& name) {
    for (const auto& st : body) {
      size_t eq = st.text.find(" = ");
      std::string rhs = eq == std::string::npos ? st.text : st.text.substr(eq);
      for (size_t pos = rhs.find(name); pos != std::string::npos; pos = rhs.find(name, pos + 1)) {
        size_t end = pos + name.size();
        if ((pos == 0 || !std::isalnum(static_cast<unsigned char>(rhs[pos - 1]))) &&
            (end == rhs.size() || !std::isalnum(static_cast<unsigned char>(rhs[end]))))
          return true;
      }
    }
    return false;
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorVar& t = tensors[i];
    bool leaf = t.input_index < 0 && !used(t.name);
    if (leaf || (t.input_index < 0 && chance(0.15)) || (t.input_index >= 0 && chance(0.03)))
      is_output[i] = true;
  }
  if (std::none_of(is_output.begin(), is_output.end(), [](bool b) { return b; }))
    is_output.back() = true;

  // An alias: an output of an input's shape and dtype, written in place of it.
  std::vector<std::string> lines;
  if (allowed("alias") && chance(0.25)) {
    std::vector<const TensorVar*> targets;
    for (const auto& t : tensors)
      if (t.input_index >= 0 && t.writable && t.numel() > 0) targets.push_back(&t);
    if (!targets.empty()) {
      const TensorVar* in = pick(targets);
      // An inexact value cast to an integer input's dtype would be noise.
      const TensorVar* src = pickTensor([&](const TensorVar& t) {
        return t.input_index < 0 && t.sizes == in->sizes && t.dims.size() == in->dims.size() &&
               (t.exact || isFloatingType(in->dtype));
      });
      if (src) {
        use("alias");
        const TensorVar* out = src;
        if (src->dtype != in->dtype) {
          Operand o = tensorOperand(*src);
          bool exact = !(isIntegralType(src->dtype) && isFloatingType(in->dtype) &&
                         !intFitsCompute(src->max_abs, computeType(in->dtype)));
          if (tryTensor(fmt::format("fd.ops.cast({}, dtype=DataType.{})", src->name,
                                    pythonName(in->dtype)),
                        {o}, exact))
            out = &tensors.back();
          else
            out = nullptr;
        }
        if (out != nullptr) {
          lines.push_back(fmt::format("fd.add_output({}, alias_input={})", out->name, in->name));
          noteOutput(*out);
          for (size_t i = 0; i < tensors.size(); ++i)
            if (tensors[i].name == out->name) is_output[i] = false;  // written once, as the alias
        }
      }
    }
  }
  is_output.resize(tensors.size(), false);  // the alias's cast, if one was added

  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!is_output[i]) continue;
    const TensorVar& t = tensors[i];
    noteOutput(t);
    if (t.rank() > 1 && allowed("output-stride-order") && chance(0.15)) {
      use("output-stride-order");
      std::vector<int64_t> order(static_cast<size_t>(t.rank()));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng_);
      lines.push_back(
          fmt::format("fd.add_output({}, stride_order=[{}])", t.name, fmt::join(order, ", ")));
    } else {
      lines.push_back(fmt::format("fd.add_output({})", t.name));
    }
  }
  // The same tensor twice: each returned tensor must be the caller's alone.
  if (chance(0.05))
    for (const auto& l : lines)
      if (l.find("alias_input") == std::string::npos) {
        lines.push_back(l);
        break;
      }
  if (allowed("scalar-ops") && !scalars.empty() && chance(0.15)) {
    use("scalar-ops");
    lines.push_back(fmt::format("fd.add_output({})", pick(scalars).name));
  }
  std::shuffle(lines.begin(), lines.end(), rng_);
  for (auto& l : lines) result.fuzz_case.body.push_back({l, -1});
}

void Generator::noteOutput(const TensorVar& t) {
  if (t.exact) result.fuzz_case.exact_outputs.push_back(t.name);
  if (!t.exact && isFloatingType(t.dtype) && lessPrecise(t.precision, t.dtype) != t.dtype)
    result.fuzz_case.tolerances.push_back(t.name + "=" + std::string(pythonName(t.precision)));
}

// ---- the loop -------------------------------------------------------------------------

GeneratedCase Generator::run() {
  defineInputs();
  measureInputs();
  using Family = bool (Generator::*)();
  struct Entry {
    const char* feature;
    Family fn;
    int weight;
  };
  static const std::vector<Entry> families = {
      {"unary", &Generator::genUnary, 12},
      {"binary", &Generator::genBinary, 16},
      {"ternary", &Generator::genTernary, 5},
      {"cast", &Generator::genCast, 7},
      {"scalar-ops", &Generator::genScalarOp, 2},
      {"set", &Generator::genSet, 2},
      {"broadcast", &Generator::genBroadcast, 3},
      {"broadcast", &Generator::genBroadcastInDim, 4},
      {"expand", &Generator::genExpand, 3},
      {"squeeze", &Generator::genSqueeze, 3},
      {"permute", &Generator::genPermute, 4},
      {"reshape", &Generator::genReshape, 5},
      {"reduction", &Generator::genReduction, 6},
      {"variance", &Generator::genVariance, 2},
      {"slice", &Generator::genSlice, 4},
      {"pad", &Generator::genPad, 3},
      {"cat", &Generator::genCat, 3},
      {"full", &Generator::genFull, 1},
      {"iota", &Generator::genIota, 1},
      {"rand", &Generator::genRandom, 1},
      {"matmul", &Generator::genMatmul, 1},
      {"indexing", &Generator::genIndexing, 3},
      {"scan", &Generator::genScan, 2},
      {"sort", &Generator::genSort, 1},
      {"triu", &Generator::genTriu, 1},
      {"masked", &Generator::genMasked, 2},
  };
  int total = 0;
  for (const auto& e : families) total += e.weight;
  int64_t target = between(std::min<int64_t>(3, options.max_statements), options.max_statements);
  int64_t made = 0;
  for (int64_t attempt = 0; made < target && attempt < target * 4 && !failed_; ++attempt) {
    int64_t r = between(0, total - 1);
    const Entry* chosen = &families.back();
    for (const auto& e : families) {
      if (r < e.weight) {
        chosen = &e;
        break;
      }
      r -= e.weight;
    }
    if (!allowed(chosen->feature)) continue;
    if ((this->*(chosen->fn))()) {
      use(chosen->feature);
      ++made;
    }
  }
  if (!failed_ && allowed("deep") && chance(options.deep_probability)) appendDeepChain();
  if (!failed_) chooseOutputs();
  if (!failed_ && allowed("hostile-index") && chance(options.hostile_index_probability))
    appendHostileIndexing();
  return result;
}

void Generator::appendDeepChain() {
  // Too long to check statement by statement: neg keeps every value exact,
  // so the chain's end is the start or its negation.
  const TensorVar* x = pickTensor(
      [](const TensorVar& t) { return t.exact && t.numel() <= 64 && t.dtype != DataType::Bool; });
  if (x == nullptr) return;
  use("deep");
  TensorVar end = *x;
  std::string prev = x->name;
  int64_t n = between(12000, 20000);
  for (int64_t i = 0; i < n; ++i) {
    std::string name = newName('T');
    result.fuzz_case.body.push_back({fmt::format("{} = fd.ops.neg({})", name, prev), -1});
    prev = name;
  }
  end.name = prev;
  end.input_index = -1;
  tensors.push_back(end);
}

GeneratedCase generateCase(uint64_t seed, const GeneratorOptions& options) {
  Generator g(seed, options);
  GeneratedCase c = g.run();
  c.fuzz_case.comments.insert(
      c.fuzz_case.comments.begin(),
      fmt::format("fusebox fuzz case, seed {} (features: {})", seed, fmt::join(c.features, ", ")));
  return c;
}

}  // namespace fusebox::fuzz
