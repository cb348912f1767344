// `fusebox` given files that are not what they seem: devices, FIFOs, files too
// big, a config nested 40,000 levels, an empty --save-outputs, a compiler that
// never finishes. Each is exit 1 with a message naming the file; each command
// runs under `timeout`, so a regression that blocks fails instead of hanging.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::runCommand;

constexpr const char* kNegScript = R"(from nvfuser import FusionDefinition, DataType

def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    T1 = fd.ops.neg(T0)
    fd.add_output(T1)
)";

// `fusebox <arguments>` under a time limit far above what it needs.
testing::CommandResult fusebox(const std::string& arguments, const std::string& environment = "") {
  return runCommand(environment + " timeout 120 " + FUSEBOX_EXE + " " + arguments);
}

TEST(CliFiles, ScriptThatIsADeviceIsRefused) {
  auto r = fusebox("run /dev/urandom");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(
      r.output,
      HasSubstr("error: /dev/urandom: the script is a character device, not a regular file"));
}

TEST(CliFiles, ScriptThatIsAFifoIsRefused) {
  testing::TempDir dir;
  const fs::path fifo = dir.path() / "fifo.py";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = fusebox("print " + fifo.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fifo.py: the script is a named pipe (FIFO)"));
}

TEST(CliFiles, ScriptOverTheLimitIsRefused) {
  testing::TempDir dir;
  const fs::path big = dir.write("big.py", kNegScript);
  fs::resize_file(big, (uint64_t{16} << 20) + 1);
  auto r = fusebox("print " + big.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("big.py: the script is larger than the limit of 16 MiB"));
}

TEST(CliFiles, NpyInputThatIsAFifoOrADeviceIsRefused) {
  testing::TempDir dir;
  const fs::path script = dir.write("neg.py", kNegScript);
  const fs::path fifo = dir.path() / "fifo.npy", zero = dir.path() / "zero.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", zero);
  auto r = fusebox("run --backend eval " + script.string() + " --input T0=" + fifo.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: --input T0: " + fifo.string() +
                                  ": the .npy file is a named pipe (FIFO), not a regular file"));
  r = fusebox("run --backend eval " + script.string() + " --input T0=" + zero.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the .npy file is a character device"));
  r = fusebox("run --backend eval " + script.string() + " --input T0=/dev/zero");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--input T0=/dev/zero: expected a shape"));
}

TEST(CliFiles, DeeplyNestedConfigIsAnErrorNotACrash) {
  testing::TempDir dir;
  const fs::path script = dir.write("neg.py", kNegScript);
  std::string header = "[a";
  for (int i = 0; i < 40000; ++i) header += ".a";
  const fs::path config = dir.write("deep.toml", header + "]\n");
  auto r = fusebox("print --config " + config.string() + " " + script.string());
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 500);
  EXPECT_THAT(r.output, HasSubstr(config.string() + ":1:34: the config nests deeper than 16"));
}

TEST(CliFiles, ConfigFromAPipeStillWorksAndIsBounded) {
  testing::TempDir dir;
  const fs::path script = dir.write("neg.py", kNegScript);
  auto r =
      runCommand("timeout 120 bash -c \"" + std::string(FUSEBOX_EXE) +
                 " plugins --config <(printf '[passes]\\ndisabled = [\\\"remove_empty\\\"]\\n')\"");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("remove_empty"));
  r = runCommand("timeout 120 bash -c \"" + std::string(FUSEBOX_EXE) + " print --config <(yes) " +
                 script.string() + "\"");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the config file is larger than the limit of 1 MiB"));
}

TEST(CliFiles, EmptySaveOutputsIsAnError) {
  testing::TempDir dir;
  const fs::path script = dir.write("neg.py", kNegScript);
  auto r =
      fusebox("run --backend eval --no-ir " + script.string() + " --input T0=4 --save-outputs ''");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--save-outputs: expected a folder to write the outputs to"));
  EXPECT_THAT(r.output, Not(HasSubstr("output 0")));
}

TEST(CliFiles, OutputsToAFifoNoOneReadsAreErrorsNotWaits) {
  testing::TempDir dir;
  const fs::path script = dir.write("neg.py", kNegScript);
  fs::create_directories(dir.path() / "out");
  const fs::path npy = dir.path() / "out" / "output_0.npy", dot = dir.path() / "graph.dot";
  ASSERT_EQ(::mkfifo(npy.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(dot.c_str(), 0600), 0);
  const std::string run = "run --backend eval --no-ir " + script.string() + " --input T0=4 ";
  auto r = fusebox(run + "--save-outputs " + (dir.path() / "out").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(npy.string() +
                                  ": cannot write the .npy file: it is a named pipe (FIFO) that "
                                  "no one reads"));
  r = fusebox(run + "--dump-graph " + dot.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("graph_file: " + dot.string() + ": cannot write the graph file"));
}

TEST(CliFiles, CompilerThatNeverFinishesIsStopped) {
  testing::TempDir dir;
  const fs::path script = dir.write("neg.py", kNegScript);
  const fs::path compiler = dir.write("slow-cxx.sh",
                                      "#!/bin/sh\ncase \"$1\" in --version|-dumpmachine) exec c++ "
                                      "\"$1\";; esac\nexec sleep 1000\n");
  auto r = fusebox("run --backend host --no-ir " + script.string() + " --input T0=4",
                   "FUSEBOX_KERNEL_CACHE=memory FUSEBOX_HOST_CXX='sh " + compiler.string() +
                       "' FUSEBOX_HOST_CXX_TIMEOUT=2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: host backend: the C++ compiler `sh " + compiler.string() +
                                  "` did not finish compiling kernel"));
  EXPECT_THAT(r.output, HasSubstr("within 2 s and was stopped"));
}

TEST(CliFiles, ArgumentsInCliMessagesAreEscapedAndCut) {
  testing::TempDir dir;
  const std::string script = dir.write("neg.py", kNegScript).string();
  auto r = fusebox("run --backend $(printf '\\033[2J') " + script);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\\x1b[2J"));
  EXPECT_THAT(r.output, Not(HasSubstr("\x1b")));
  r = fusebox("run --backend $(head -c 100000 /dev/zero | tr '\\0' b) " + script);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("bbb..."));
  EXPECT_LT(r.output.size(), 1000u);
}

}  // namespace
}  // namespace fusebox
