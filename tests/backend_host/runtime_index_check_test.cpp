// The device runtime's index checks (index_check.cuh), compiled for the host:
// what the checks return, which bad index a thread's IndexErrorLatch keeps,
// when it reaches the IndexErrors words and the host words they point at,
// and the forms over the words themselves that kernels from an earlier
// kernelgen still call.
#include <gtest/gtest.h>

#include <cstdint>

#include <fusebox_runtime.cuh>

namespace fusebox::testing {
namespace {

TEST(RuntimeIndexCheck, ChecksReturnTheIndexOrZero) {
  unsigned long long words[3] = {0, 0, 0};
  {
    IndexErrorLatch latch(words);
    EXPECT_EQ(checkedIndex(0, 5, latch, 1), 0);
    EXPECT_EQ(checkedIndex(4, 5, latch, 1), 4);
    EXPECT_EQ(checkedIndex(5, 5, latch, 1), 0);
    EXPECT_EQ(checkedIndex(-1, 5, latch, 1), 0);
    // select counts from the end: -size is the first element.
    EXPECT_EQ(checkedSelectIndex(-1, 5, latch, 2), 4);
    EXPECT_EQ(checkedSelectIndex(-5, 5, latch, 2), 0);
    EXPECT_EQ(checkedSelectIndex(3, 5, latch, 2), 3);
    EXPECT_EQ(checkedSelectIndex(-6, 5, latch, 2), 0);
    EXPECT_EQ(checkedSelectIndex(5, 5, latch, 2), 0);
  }
  // The first bad index the thread met: 5 by check 1.
  EXPECT_EQ(words[0], 1u);
  EXPECT_EQ(words[1], 5u);
}

TEST(RuntimeIndexCheck, TheLatchRecordsWhenTheThreadLeavesAndOnlyIfNothingIs) {
  unsigned long long words[3] = {0, 0, 0};
  {
    IndexErrorLatch latch(words);
    EXPECT_EQ(checkedIndex(1, 3, latch, 7), 1);
    EXPECT_EQ(checkedSelectIndex(-2, 3, latch, 8), 1);
  }
  EXPECT_EQ(words[0], 0u) << "no bad index, nothing recorded";
  {
    IndexErrorLatch latch(words);
    EXPECT_EQ(checkedSelectIndex(int64_t{1} << 40, 3, latch, 8), 0);
    EXPECT_EQ(words[0], 0u) << "held in the latch until the thread leaves";
    EXPECT_EQ(checkedIndex(-9, 3, latch, 7), 0);
  }
  EXPECT_EQ(words[0], 8u);
  EXPECT_EQ(words[1], static_cast<unsigned long long>(int64_t{1} << 40));
  {
    // Another thread recorded first: its record stays.
    IndexErrorLatch latch(words);
    recordIndexError(latch, 3, -4);
  }
  EXPECT_EQ(words[0], 8u);
  EXPECT_EQ(words[1], static_cast<unsigned long long>(int64_t{1} << 40));
}

TEST(RuntimeIndexCheck, TheFormsOverTheWordsRecordAtOnce) {
  unsigned long long words[3] = {0, 0, 0};
  EXPECT_EQ(checkedIndex(2, 3, words, 4), 2);
  EXPECT_EQ(words[0], 0u);
  EXPECT_EQ(checkedSelectIndex(-3, 3, words, 5), 0);
  EXPECT_EQ(checkedIndex(3, 3, words, 4), 0);
  EXPECT_EQ(words[0], 4u);
  EXPECT_EQ(words[1], 3u);
  EXPECT_EQ(checkedSelectIndex(-4, 3, words, 5), 0);
  EXPECT_EQ(words[0], 4u) << "the first record stays";
}

TEST(RuntimeIndexCheck, TheThreadThatClaimsTheRecordWritesTheHostWords) {
  unsigned long long host[2] = {0, 0};
  unsigned long long words[3] = {0, 0, reinterpret_cast<unsigned long long>(host)};
  recordIndexError(words, 6, -12);
  EXPECT_EQ(host[0], 6u);
  EXPECT_EQ(host[1], static_cast<unsigned long long>(int64_t{-12}));
  // A second error finds the record claimed: neither copy changes.
  recordIndexError(words, 2, 40);
  EXPECT_EQ(words[0], 6u);
  EXPECT_EQ(host[0], 6u);
  EXPECT_EQ(host[1], static_cast<unsigned long long>(int64_t{-12}));
}

}  // namespace
}  // namespace fusebox::testing
