// Test scheduler: accepts everything as a fallback; its plan runs the reference evaluator.
#include "fixture_schedulers.h"

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::FallbackHost, "fallback_host", "1.0",
                                 "test: a fallback that accepts everything")
