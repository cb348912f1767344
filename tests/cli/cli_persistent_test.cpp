// The normalization workloads through the CLI on the host backend: each runs
// as one inner_persistent segment (the segmented_fusion dump says so) and
// validates; a row too wide for the registers is split into reduction and
// pointwise kernels, with inner_persistent's reason in the segmenter log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "support/run_command.h"

namespace {

using fusebox::testing::runCommand;
using testing::HasSubstr;
using testing::Not;

std::string exe() {
  return FUSEBOX_EXE;
}
std::string workload(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/benchmarks/workloads/" + name + ".py";
}

struct Case {
  const char* workload;
  const char* inputs;
};

TEST(CliPersistent, EachForwardAndSoftmaxBackwardIsOneSegment) {
  for (const Case& c : {Case{"layernorm_fwd_bf16", " -i T0=3x520 -i T1=520 -i T2=520"},
                        Case{"rmsnorm_fwd_bf16", " -i T0=3x520 -i T1=520"},
                        Case{"softmax_fwd_bf16", " -i T0=3x520"},
                        Case{"softmax_bwd_bf16", " -i T0=3x520 -i T1=3x520"}}) {
    SCOPED_TRACE(c.workload);
    auto r = runCommand(exe() + " run " + workload(c.workload) + c.inputs +
                        " --no-ir --validate --dump segmented_fusion");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("Segmented fusion: 1 group (inner_persistent)"));
    EXPECT_THAT(r.output, HasSubstr("1 segment in "));
    EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  }
}

TEST(CliPersistent, LayernormAndRmsnormBackwardAreOneCooperativeSegment) {
  for (const Case& c :
       {Case{"layernorm_bwd_bf16", " -i T0=40x300 -i T1=40x300 -i T2=40 -i T3=40 -i T4=300"},
        Case{"rmsnorm_bwd_bf16", " -i T0=40x300 -i T1=40x300 -i T2=40 -i T3=300"}}) {
    SCOPED_TRACE(c.workload);
    auto r = runCommand(exe() + " run " + workload(c.workload) + c.inputs +
                        " --no-ir --validate --dump segmented_fusion,scheduler_params");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("Segmented fusion: 1 group (inner_outer_persistent)"));
    EXPECT_THAT(r.output, HasSubstr(" cooperative\n"));
    EXPECT_THAT(r.output, HasSubstr("1 segment in "));
    EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  }
}

// Channels-last batch norm: statistics over the rows (an outer reduction),
// one outer_persistent segment; a column split over two bands of rows is a
// cooperative launch. Longer columns than the (host's one multiprocessor)
// grid keeps on chip are split into a reduction and a pointwise kernel.
TEST(CliPersistent, BatchNormIsOneOuterSegmentOrSplitWhenTooLong) {
  const std::string common = " -i T1=96 -i T2=96 --no-ir --validate";
  auto r = runCommand(exe() + " run " + workload("batchnorm_fwd_bf16") + " -i T0=400x96" + common +
                      " --dump segmented_fusion,scheduler_params");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Segmented fusion: 1 group (outer_persistent)"));
  EXPECT_THAT(r.output, HasSubstr(" cooperative\n"));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  r = runCommand(exe() + " run " + workload("batchnorm_fwd_bf16") + " -i T0=2000x96" + common +
                 " --dump segmenter_log");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("outer_persistent: run time: a column of 2000 elements keeps "
                                  "4000 B of persistent buffers on chip"));
  EXPECT_THAT(r.output, HasSubstr("2 segments in "));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
}

// The split batch norm: with input forwarding (the default) both kernels read
// the bf16 input and cast it themselves; without it the reduction kernel
// writes the float cast (T3) for the pointwise kernel to read back.
TEST(CliPersistent, TheSplitBatchNormReadsTheBf16InputInBothKernels) {
  const std::string run = exe() + " run " + workload("batchnorm_fwd_bf16") +
                          " -i T0=2000x96 -i T1=96 -i T2=96 --no-ir --validate "
                          "--dump segmented_fusion";
  auto r = runCommand(run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Segmented fusion: 2 groups (reduction, pointwise)"));
  EXPECT_THAT(r.output, HasSubstr("group 0 (reduction), 4 expressions (+1 forwarded)"));
  EXPECT_THAT(r.output, HasSubstr("group 1 (pointwise), 14 expressions (+1 forwarded)"));
  EXPECT_THAT(r.output, Not(HasSubstr("group 0 -> group 1: T3_g")));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  r = runCommand(run + " --set runtime.forward_inputs=false");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("group 0 -> group 1: T3_g"));
  EXPECT_THAT(r.output, Not(HasSubstr("forwarded")));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  r = runCommand("env FUSEBOX_DISABLE=forward_inputs " + run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("group 0 -> group 1: T3_g"));
}

// A row too wide for one block (2 x 262144 bf16) is one kernel either way:
// by default each pass reads the row again; kept in registers, it spans a
// cluster of blocks. Kept in one block's registers, it does not fit, and
// the segmenter log says why the fusion is split.
TEST(CliPersistent, ARowTooWideForOneBlockIsReadAgainSpansAClusterOrIsSplit) {
  const std::string run = exe() + " run " + workload("softmax_fwd_bf16") +
                          " -i T0=2x262144 --no-ir --validate --dump segmenter_log "
                          "--dump scheduler_params";
  const std::string registers = " --set schedulers.inner_persistent.persistent_buffers=registers";
  auto r = runCommand(run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("1 segment in "));
  EXPECT_THAT(r.output, HasSubstr("buffer_placement: none: every pass reads its inputs again"));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  r = runCommand(run + registers);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("1 segment in "));
  EXPECT_THAT(r.output, HasSubstr("by inner_persistent"));
  EXPECT_THAT(r.output, HasSubstr("row_split: 8 blocks a row (a thread-block cluster"));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
  r = runCommand(run + registers + " --set schedulers.inner_persistent.blocks_per_row=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("inner_persistent: run time: a row of 262144 elements keeps 524288 B of "
                        "persistent buffers on chip"));
  EXPECT_THAT(r.output, HasSubstr("3 segments in "));
  EXPECT_THAT(r.output, Not(HasSubstr("by inner_persistent")));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS"));
}

}  // namespace
