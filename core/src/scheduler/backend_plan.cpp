// BackendPlan's key function: its type information lives in the plugin
// SDK library (libfusebox_core), so plugins and the runtime agree on it.
#include <fusebox/backend_plan.h>

namespace fusebox {

BackendPlan::~BackendPlan() = default;

}  // namespace fusebox
