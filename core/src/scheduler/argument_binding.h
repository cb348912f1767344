// Binding a fusion's inputs to what is known of them at run time (sizes,
// dtypes, scalar values), shared by RuntimeInfo (a segment's, in the plugin
// SDK) and the host's FusionRuntimeFacts (the complete fusion's).
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/scheduler.h>

#include <string>
#include <vector>

namespace fusebox {

// Binds `fusion`'s inputs in `ee`, checking what can be checked from sizes
// alone (the counterpart of the evaluator's input validation). Throws
// UserError naming the input; `what` names the fusion in messages.
void bindArgumentInfos(const Fusion& fusion, const std::vector<ArgumentInfo>& infos,
                       ExpressionEvaluator& ee, const std::string& what);

}  // namespace fusebox
