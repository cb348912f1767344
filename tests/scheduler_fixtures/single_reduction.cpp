// Test scheduler: accepts exactly one reduction, alone or with set/cast.
#include "fixture_schedulers.h"

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::SingleReduction, "single_reduction",
                                 "1.0", "test: accepts one reduction, alone or with set/cast")
