// RuntimeOptions::defer_index_errors: a kernel's index-error record is read
// from host memory the kernel writes (IndexErrorRecord), so the call that met
// an index out of range returns without waiting; the next call, or
// checkDeferredIndexErrors, raises it once. On the host backend the kernel
// has finished when the call returns, so the deferral itself (what is
// raised, when, and only once) is tested here; on the GPU it is run by
// RuntimeCuda and by the Python suite on CUDA tensors.
#include <fusebox/backend/backend_choice.h>
#include <fusebox/config.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/index_error_record.h>

#include <gmock/gmock.h>

#include "runtime/runtime_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using namespace runtime_testing;

PythonDefinition gatherRows() {
  return parsePythonDefinition(
      "from nvfuser import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    T2 = fd.ops.index_select(T0, T1, dim=0)\n"
      "    fd.add_output(T2)\n",
      "deferred_index_errors_test.py");
}

std::unique_ptr<FusionRuntime> runtimeFor(const PythonDefinition& def, Captured& captured,
                                          bool defer) {
  RuntimeOptions o = captured.options();
  o.input_names = def.input_names;
  o.defer_index_errors = defer;
  return std::make_unique<FusionRuntime>(def.fusion->clone(), loadConfigFile(defaultConfigFile()),
                                         builtinPlugins(), Options(), o);
}

Tensor table() {
  Tensor t = Tensor::empty(DataType::Float, {4, 8});
  for (int64_t i = 0; i < t.numel(); ++i) static_cast<float*>(t.data())[i] = static_cast<float>(i);
  return t;
}

TEST(DeferredIndexErrors, TheNextCallRaisesItOnce) {
  const PythonDefinition def = gatherRows();
  Captured captured;
  auto rt = runtimeFor(def, captured, /*defer=*/true);
  EXPECT_NO_THROW(rt->run({table(), int64Values({1, 7})}));  // 7: the table has 4 rows
  try {
    rt->run({table(), int64Values({3, 0})});
    FAIL() << "the next call did not raise the earlier call's index error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("an earlier call of this fusion: index_select"));
    EXPECT_THAT(e.what(), HasSubstr("index 7 is out of range for dim 0"));
    EXPECT_THAT(e.what(), HasSubstr("that call's outputs hold element 0"));
  }
  // Raised once: the same call now runs, with the right rows.
  std::vector<Argument> out = rt->run({table(), int64Values({3, 0})});
  const Tensor& rows = std::get<Tensor>(out.at(0));
  EXPECT_EQ(rows.getDouble({0, 5}), 3 * 8 + 5);
  EXPECT_EQ(rows.getDouble({1, 2}), 2);
}

TEST(DeferredIndexErrors, TurningDeferralOffRaisesWhatIsPendingThenChecksEachCall) {
  // `fusebox run --bench` defers while it times cache-hit calls, then turns
  // deferral off: an index error one of those calls met is raised there.
  const PythonDefinition def = gatherRows();
  Captured captured;
  auto rt = runtimeFor(def, captured, /*defer=*/false);
  rt->setDeferIndexErrors(true);
  EXPECT_NO_THROW(rt->run({table(), int64Values({9})}));
  try {
    rt->setDeferIndexErrors(false);
    FAIL() << "turning deferral off did not raise the pending index error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("index 9 is out of range for dim 0"));
  }
  // Not deferred any more: the call itself raises.
  EXPECT_THROW(rt->run({table(), int64Values({4})}), UserError);
}

TEST(DeferredIndexErrors, CheckingRaisesItWithoutAnotherCall) {
  const PythonDefinition def = gatherRows();
  Captured captured;
  auto rt = runtimeFor(def, captured, /*defer=*/true);
  rt->run({table(), int64Values({-5})});
  EXPECT_THROW(rt->checkDeferredIndexErrors(/*wait=*/true), UserError);
  EXPECT_NO_THROW(rt->checkDeferredIndexErrors(/*wait=*/true));
  rt->run({table(), int64Values({2})});
  EXPECT_NO_THROW(rt->checkDeferredIndexErrors(/*wait=*/true));
}

TEST(IndexErrorRecordTest, TakingAnErrorZeroesBothCopiesOfTheRecord) {
  std::shared_ptr<Backend> backend = sharedBackend(BackendKind::Host);
  IndexErrorRecord record(*backend, {{"gather", "T0", 1, 10, 0}}, "kernel_k");
  auto* device = static_cast<int64_t*>(record.words().data());
  ASSERT_EQ(record.words().numel(), 3);
  auto* host = reinterpret_cast<int64_t*>(static_cast<uintptr_t>(device[2]));
  ASSERT_NE(host, nullptr) << "the words name the host words the kernel writes";
  EXPECT_FALSE(record.raised());
  EXPECT_EQ(record.take(), "");
  // What the claiming thread writes (recordIndexError).
  device[0] = host[0] = 1;
  device[1] = host[1] = 12;
  EXPECT_TRUE(record.raised());
  EXPECT_EQ(record.take(),
            "gather: index 12 is out of range for dim 1 of T0, of size 10 (expected 0 <= index < "
            "10); kernel kernel_k found it");
  EXPECT_FALSE(record.raised());
  EXPECT_EQ(device[0], 0);
  EXPECT_EQ(device[1], 0);
  EXPECT_EQ(host[1], 0);
  EXPECT_EQ(device[2], static_cast<int64_t>(reinterpret_cast<uintptr_t>(host)));
  EXPECT_EQ(record.take(), "");
  // An id the kernel has no check for is the runtime's bug, not the user's.
  device[0] = host[0] = 5;
  EXPECT_THROW(record.take(), InternalError);
  EXPECT_FALSE(record.raised()) << "zeroed all the same";
}

TEST(DeferredIndexErrors, WithoutTheOptionTheCallItselfFails) {
  const PythonDefinition def = gatherRows();
  Captured captured;
  auto rt = runtimeFor(def, captured, /*defer=*/false);
  EXPECT_THROW(rt->run({table(), int64Values({1, 7})}), UserError);
  EXPECT_NO_THROW(rt->run({table(), int64Values({1, 2})}));
}

}  // namespace
}  // namespace fusebox
