// Families that reach what a hostile or everyday user writes beyond valid
// arithmetic: masks of +-inf (masked fill, a masked softmax, the log of a
// masked zero), and, after the outputs, one indexing op at indices read from
// the data with index shapes that may not fit the input (issue 29). That
// last statement is kept whether or not the evaluator accepts it: both sides
// must then refuse it alike (an "invalid" case), and a runtime that runs
// what the evaluator refuses is a `reference-rejects` failure.
#include "generator_internal.h"

#include <fmt/format.h>
#include <fusebox/frontend/python_definition.h>

namespace fusebox::fuzz {

namespace {

std::string sizeList(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

}  // namespace

bool Generator::genMasked() {
  const TensorVar* x = pickTensor([](const TensorVar& t) {
    return isFloatingType(t.dtype) && t.rank() >= 1 && t.finite && t.exact && t.numel() > 0;
  });
  if (x == nullptr) return false;
  const TensorVar input = *x;  // new statements may grow the pool
  const int64_t rank = input.rank();
  std::string mask;
  if (rank >= 2 && chance(0.6)) {
    // Causal: key > query over the last two dims.
    const int64_t q = input.sizes[static_cast<size_t>(rank - 2)],
                  k = input.sizes[static_cast<size_t>(rank - 1)];
    if (!tryTensor(fmt::format("fd.ops.iota({}, dtype=DataType.Int)", intArgument(q)), {}, true))
      return false;
    const std::string query = tensors.back().name;
    if (!tryTensor(fmt::format("fd.ops.iota({}, dtype=DataType.Int)", intArgument(k)), {}, true))
      return false;
    const std::string key = tensors.back().name;
    const std::vector<int64_t> square = {q, k};
    if (!tryTensor(fmt::format("fd.ops.gt(fd.ops.broadcast_in_dim({}, shape={}, "
                               "broadcast_dims=[1]), fd.ops.broadcast_in_dim({}, shape={}, "
                               "broadcast_dims=[0]))",
                               key, sizeList(square), query, sizeList(square)),
                   {}, true, /*must_accept=*/true))
      return false;
    mask = tensors.back().name;
  } else {
    const TensorVar* c = pickTensor([&](const TensorVar& t) {
      return t.exact && t.dtype == DataType::Bool && broadcastable(input, t) && t.rank() <= rank;
    });
    if (c == nullptr) return false;
    mask = c->name;
  }
  const std::string fill =
      pick(std::vector<std::string>{"float('-inf')", "float('-inf')", "float('inf')", "0.0"});
  Operand ox = tensorOperand(input);
  Operand of;
  of.text = fill;
  of.finite = fill == "0.0";
  if (!tryTensor(fmt::format("fd.ops.where({}, {}, {})", mask, fill, input.name), {ox, of}, true))
    return false;
  const std::string masked = tensors.back().name;
  const int64_t last = rank - 1;
  if (fill == "float('-inf')" && chance(0.7)) {
    // softmax over the last dim of the masked scores; a fully masked row is
    // NaN on both sides (-inf - -inf).
    const Operand om = tensorOperand(tensors.back());
    if (!tryTensor(fmt::format("fd.ops.max({}, dims=[{}], keepdim=True)", masked, last), {om},
                   true))
      return false;
    const std::string row_max = tensors.back().name;
    if (!tryTensor(fmt::format("fd.ops.exp(fd.ops.sub({}, {}))", masked, row_max), {om}, false))
      return false;
    const std::string e = tensors.back().name;
    const Operand oe = tensorOperand(tensors.back());
    if (!tryTensor(fmt::format("fd.ops.sum({}, dims=[{}], keepdim=True)", e, last), {oe}, false))
      return false;
    const std::string denominator = tensors.back().name;
    return tryTensor(fmt::format("fd.ops.div({}, {})", e, denominator), {oe}, false);
  }
  if (fill == "0.0" && chance(0.5))  // log of a masked zero: -inf, exactly
    return tryTensor(fmt::format("fd.ops.log({})", masked), {tensorOperand(tensors.back())}, false);
  return true;
}

void Generator::appendHostileIndexing() {
  // The input indexed: any tensor of rank >= 1; the indices: an exact,
  // finite tensor's values as integers, reduced into the dim's range or not.
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() >= 1; });
  if (x == nullptr) return;
  const TensorVar input = *x;
  const TensorVar* source = pickTensor([&](const TensorVar& t) {
    return t.exact && t.finite && t.max_abs < 1e9 && t.dtype != DataType::Bool &&
           (t.rank() == input.rank() || t.rank() == 1);
  });
  if (source == nullptr) return;
  const TensorVar from = *source;
  static const std::vector<const char*> ops = {"gather", "take_along_axis", "scatter",
                                               "index_select", "embedding_fwd"};
  std::string op = pick(ops);
  if (from.rank() != input.rank()) op = "index_select";
  if (op == "index_select" && from.rank() != 1) op = "gather";
  if (op == "embedding_fwd" && input.rank() != 2) op = "gather";
  const int64_t d = op == "embedding_fwd" ? 0 : between(0, input.rank() - 1);
  std::string index = fmt::format("fd.ops.cast({}, dtype=DataType.Int)", from.name);
  const int64_t mode = between(0, 3);
  // (Not by a size of 0: kernels answer an integer division by 0 with 0
  // where the evaluator refuses it, a known difference.)
  if (mode <= 1 &&
      input.sizes[static_cast<size_t>(d)] > 0)  // into [0, size): only shapes may not fit
    index = fmt::format("fd.ops.remainder({}, {}.size({}))", index, input.name, d);
  else if (mode == 2)  // one past either end sometimes
    index = fmt::format("fd.ops.add({}, {})", index, between(-1, 1));
  const std::string idx = newName('T');
  const std::string out = newName('T');
  const FuzzCase before = result.fuzz_case;
  auto& body = result.fuzz_case.body;
  body.push_back({fmt::format("{} = {}", idx, index), -1});
  std::string call;
  if (op == "scatter")
    call = fmt::format("fd.ops.scatter({}, {}, {}, dim={})", input.name, idx,
                       chance(0.5) && isFloatingType(input.dtype) ? "1.0" : input.name, d);
  else if (op == "embedding_fwd")
    call = fmt::format("fd.ops.embedding_fwd({}, {})", idx, input.name);
  else
    call = fmt::format("fd.ops.{}({}, {}, dim={})", op, input.name, idx, d);
  body.push_back({fmt::format("{} = {}", out, call), -1});
  std::string result_name = out;
  // What the checker may expect of the result: what it may of the data read
  // (an indexing op moves values), unless a sum or cumsum follows.
  TensorVar expect = input;
  // What reads the result: nothing, a sum (a reduction kernel) or a cumsum
  // (a scan), of values small enough that their rounding stays small.
  if (isFloatingType(input.dtype) && input.rank() >= 1 && tame(input) && chance(0.4)) {
    result_name = newName('T');
    const bool scan = chance(0.5);
    body.push_back({fmt::format("{} = fd.ops.{}({}, {}={})", result_name, scan ? "cumsum" : "sum",
                                out, scan ? "dim" : "dims", scan ? "-1" : "[-1]"),
                    -1});
    expect.exact = false;
    expect.precision = lessPrecise(input.precision, input.dtype);
  }
  expect.name = result_name;
  body.push_back({fmt::format("fd.add_output({})", result_name), -1});
  // The frontend must take it (shapes it can prove wrong it refuses at once,
  // a case the checker would only call invalid); whether it runs is the test.
  try {
    parsePythonDefinition(renderScript(result.fuzz_case), "case.py");
    use("hostile-index");
    noteOutput(expect);
  } catch (const UserError&) {
    result.fuzz_case = before;
  }
}

}  // namespace fusebox::fuzz
