// One scheduler's answer (Scheduler::propose) as the tests of its checks and
// params want it: a Decision, the structural part alone, the params, the plan.
#pragma once

#include <fusebox/checked_math.h>
#include <fusebox/scheduler.h>

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusebox::test {

// Inputs that fit `f`: constant extents as they are, 8 for the others.
inline std::vector<ArgumentInfo> someInputs(const Fusion& f) {
  std::vector<ArgumentInfo> out;
  for (const Val* v : f.inputs()) {
    if (!v->isTensor()) {
      out.emplace_back(isIntegralType(v->dtype()) ? ScalarValue(int64_t{1}) : ScalarValue(1.0));
      continue;
    }
    std::vector<int64_t> sizes;
    for (const IterDomain* id : v->as<TensorView>()->logicalNoReductions()) {
      const Scalar* extent = id->logicalExtent();
      sizes.push_back(extent->isConst() ? toInt(*extent->value()) : 8);
    }
    out.emplace_back(TensorArgInfo{v->dtype(), sizes, contiguousStrides(sizes), 16});
  }
  return out;
}

// propose() as a Decision: accepted when the scheduler proposes.
inline Decision runTimeDecision(Scheduler& s, const Fusion& f, RuntimeInfo& info) {
  CompileTimeCache cache;
  Answer answer = s.propose(f, info, cache);
  return answer.proposed() ? Decision::accept() : Decision::reject(answer.refusal().reason());
}

// The structural part of the answer (the compile-time check): a refusal of
// the structure rejects; anything else (with inputs that fit) accepts.
inline Decision structuralDecision(Scheduler& s, const Fusion& f) {
  RuntimeInfo info(f, someInputs(f), {});
  CompileTimeCache cache;
  Answer answer = s.propose(f, info, cache);
  if (answer.proposed() || !answer.refusal().structural()) return Decision::accept();
  return Decision::reject(answer.refusal().reason());
}

// The proposal's params and plan; a refusal fails the test (and throws).
inline std::unique_ptr<Proposal> proposalOf(Scheduler& s, const Fusion& f, RuntimeInfo& info) {
  CompileTimeCache cache;
  Answer answer = s.propose(f, info, cache);
  if (!answer.proposed()) {
    ADD_FAILURE() << s.name() << " refused: " << answer.refusal().describe();
    throw std::runtime_error("refused: " + answer.refusal().describe());
  }
  return answer.takeProposal();
}
inline std::shared_ptr<const HeuristicParams> paramsOf(Scheduler& s, const Fusion& f,
                                                       RuntimeInfo& info) {
  return proposalOf(s, f, info)->params();
}
inline std::unique_ptr<SegmentPlan> planOf(Scheduler& s, const Fusion& f, RuntimeInfo& info) {
  return proposalOf(s, f, info)->makePlan();
}

}  // namespace fusebox::test
