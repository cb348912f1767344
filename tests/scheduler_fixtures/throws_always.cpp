// Test scheduler: throws from propose.
#include "fixture_schedulers.h"

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::ThrowsAlways, "throws_always", "1.0",
                                 "test: throws from propose")
