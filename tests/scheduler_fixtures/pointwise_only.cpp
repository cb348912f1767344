// Test scheduler: accepts segments with no reduction-like expression.
#include "fixture_schedulers.h"

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::PointwiseOnly, "pointwise_only", "1.0",
                                 "test: accepts segments without reductions")
