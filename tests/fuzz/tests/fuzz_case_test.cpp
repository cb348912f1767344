// Case files: written and read back, statements dropped with their inputs.
#include "fuzz_case.h"
#include "minimize.h"

#include <gtest/gtest.h>

namespace fusebox::fuzz {
namespace {

FuzzCase sample() {
  FuzzCase c;
  c.comments = {"a case"};
  c.body = {
      {"T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)",
       0},
      {"S1 = fd.define_scalar(None, dtype=DataType.Double)", 1},
      {"T2 = fd.ops.mul(T0, S1)", -1},
      {"fd.add_output(T2)", -1}};
  c.inputs = {"torch.randn((3,), dtype=torch.float32, device='cuda:0')", "1.5"};
  c.exact_outputs = {"T2"};
  return c;
}

TEST(FuzzCase, RendersAndReadsBack) {
  FuzzCase c = sample(), back;
  ASSERT_TRUE(parseCaseText(renderScript(c), back));
  EXPECT_EQ(back.comments, c.comments);
  EXPECT_EQ(back.inputs, c.inputs);
  EXPECT_EQ(back.exact_outputs, c.exact_outputs);
  ASSERT_EQ(back.body.size(), c.body.size());
  for (size_t i = 0; i < c.body.size(); ++i) {
    EXPECT_EQ(back.body[i].text, c.body[i].text);
    EXPECT_EQ(back.body[i].input_index, c.body[i].input_index);
  }
}

TEST(FuzzCase, DroppingADefinitionDropsItsInput) {
  FuzzCase d = withoutStatements(sample(), {true, false, false, false});
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0], "1.5");
  EXPECT_EQ(d.body[0].input_index, 0);
}

TEST(FuzzCase, RejectsOtherLayouts) {
  FuzzCase c;
  EXPECT_FALSE(parseCaseText("print('hello')\n", c));
}

TEST(FuzzMinimize, DdminKeepsWhatTheFailureNeeds) {
  // Fails when units 3 and 7 are both kept.
  std::vector<bool> keep = ddmin(
      10, [](const std::vector<bool>& k) { return k[3] && k[7]; }, 200);
  std::vector<bool> want(10, false);
  want[3] = want[7] = true;
  EXPECT_EQ(keep, want);
}

TEST(FuzzMinimize, TextShrinksToTheTrigger) {
  std::string text = "line one\nline two with BOOM inside\nline three\n";
  std::string m = minimizeText(
      text, [](const std::string& s) { return s.find("BOOM") != std::string::npos; }, 400);
  EXPECT_EQ(m, "BOOM");
}

}  // namespace
}  // namespace fusebox::fuzz
