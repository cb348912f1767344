// Checks a Fusion's invariants: every operand is owned and defined before use,
// use/definition links agree, the graph is acyclic, domains are consistent with
// each op's shape rule, allocation domains are permutations, required stride
// orders name outputs, dtypes match op rules.
#pragma once

#include <fusebox/ir/fusion.h>

#include <string>
#include <vector>

namespace fusebox {

// Every broken invariant, one message each; empty when the fusion is valid.
std::vector<std::string> findFusionProblems(const Fusion& fusion);
// Throws InternalError listing the problems.
void verifyFusion(const Fusion& fusion);

}  // namespace fusebox
