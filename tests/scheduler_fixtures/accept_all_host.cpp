// Test scheduler: accepts everything; its plan runs the reference evaluator.
#include "fixture_schedulers.h"

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::AcceptAllHost, "accept_all_host", "1.0",
                                 "test: accepts everything, runs the reference evaluator")
