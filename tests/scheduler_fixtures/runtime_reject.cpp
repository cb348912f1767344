// Test scheduler: accepts at compile time, rejects at run time.
#include "fixture_schedulers.h"

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::RuntimeReject, "runtime_reject", "1.0",
                                 "test: accepts at compile time, rejects at run time")
