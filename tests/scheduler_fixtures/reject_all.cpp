// Test scheduler: rejects every segment.
#include "fixture_schedulers.h"

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::RejectAll, "reject_all", "1.0",
                                 "test: rejects every segment")
