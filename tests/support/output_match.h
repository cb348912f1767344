// GoogleTest assertions over checkClose / checkExact (fusebox/eval/check_close.h):
// the one comparison the test utilities share, so integers compare as
// integers and signed zeros count where results must be bit for bit.
//   EXPECT_TRUE(matchesExactly(got, want)) << "output " << k;
//   EXPECT_TRUE(matchesWithin(got, want, tolerances[k])) << "output " << k;
#pragma once

#include <fusebox/eval/check_close.h>

#include <gtest/gtest.h>

namespace fusebox::testing {

inline ::testing::AssertionResult verdict(const CloseResult& r) {
  if (r.pass) return ::testing::AssertionSuccess();
  if (!r.shape_error.empty()) return ::testing::AssertionFailure() << r.shape_error;
  return ::testing::AssertionFailure()
         << r.mismatches << " mismatched (" << r.tolerance << "), first at " << r.first_mismatch;
}

// Bit for bit: NaN matches NaN, -0.0 does not match 0.0, int64 compares as int64.
inline ::testing::AssertionResult matchesExactly(const Argument& actual, const Argument& expected) {
  return verdict(checkExact(actual, expected));
}

// As the tolerance model says for this output (outputTolerances).
inline ::testing::AssertionResult matchesWithin(const Argument& actual, const Argument& expected,
                                                const OutputTolerance& tolerance) {
  return verdict(checkClose(actual, expected, tolerance));
}

}  // namespace fusebox::testing
