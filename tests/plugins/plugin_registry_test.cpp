// The plugin host: discovery, the record checks, object lifetime, and each
// kind of bad plugin (built deliberately broken in tests/plugins/fixtures).
#include <fusebox/config.h>
#include <fusebox/ir/ops.h>
#include <fusebox/pass.h>
#include <fusebox/plugin/plugin_registry.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <sstream>

#include "support/hang_guard.h"
#include "support/run_command.h"
#include "support/temp_dir.h"
#include "support/without_permission_bypass.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kPluginDir = fs::path(FUSEBOX_BINARY_DIR) / "lib/fusebox/plugins";
const fs::path kFixtures = FUSEBOX_FIXTURES_DIR;
const std::vector<std::string> kBuiltinPasses = {"allocation_order_inference", "consecutive_cast",
                                                 "gather_before_pointwise", "remove_bcast_squeeze",
                                                 "remove_empty"};

PluginRegistry discover(std::vector<fs::path> paths) {
  std::vector<PluginSearchPath> search;
  for (auto& p : paths) search.push_back({p, {}});
  PluginRegistry registry;
  registry.discover(search);
  return registry;
}

// Runs `fn` and returns the UserError's message (fails the test when none is thrown).
template <class F>
std::string userErrorOf(F&& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError";
  return "";
}

TEST(PluginRegistry, BuiltinFolderIsBesideTheCoreLibrary) {
  EXPECT_EQ(fs::weakly_canonical(builtinPluginDir()), fs::weakly_canonical(kPluginDir));
  EXPECT_TRUE(fs::exists(defaultConfigFile())) << defaultConfigFile();
}

TEST(PluginRegistry, DiscoversTheFiveBuiltinPasses) {
  PluginRegistry registry = discover({kPluginDir});
  std::vector<std::string> names;
  // The folder holds the built-in schedulers too.
  for (const auto& p : registry.plugins()) {
    if (p.kind == PluginKind::Scheduler) {
      EXPECT_EQ(p.file.filename(), "libfusebox_scheduler_" + p.name + ".so");
      continue;
    }
    names.push_back(p.name);
    EXPECT_EQ(p.kind, PluginKind::Pass);
    EXPECT_EQ(p.version, "1.0");
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_EQ(p.file.parent_path(), fs::weakly_canonical(kPluginDir));
    EXPECT_EQ(p.file.filename(), "libfusebox_pass_" + p.name + ".so");
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, kBuiltinPasses);
  EXPECT_TRUE(registry.diagnostics().empty());
  EXPECT_NE(registry.find("remove_empty", PluginKind::Pass), nullptr);
  EXPECT_EQ(registry.find("remove_empty", PluginKind::Scheduler), nullptr);
}

TEST(PluginRegistry, EachPluginExportsOnlyItsEntry) {
  auto probe = testing::runCommand("nm --version");
  if (probe.exit_code != 0) GTEST_SKIP() << "nm is not available";
  for (const auto& name : kBuiltinPasses) {
    fs::path lib = kPluginDir / ("libfusebox_pass_" + name + ".so");
    auto result = testing::runCommand("nm -D --defined-only '" + lib.string() + "'");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    std::istringstream lines(result.output);
    std::vector<std::string> symbols;
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) symbols.push_back(line.substr(line.rfind(' ') + 1));
    EXPECT_EQ(symbols, std::vector<std::string>{"fusebox_plugin_info"}) << lib;
  }
}

TEST(PluginRegistry, HostAbiTagNamesCompilerLibraryStandardAndVersion) {
  std::string tag = hostAbiTag();
  EXPECT_THAT(tag, HasSubstr("gcc-"));
  EXPECT_THAT(tag, HasSubstr("libstdc++-cxx11abi"));
  EXPECT_THAT(tag, HasSubstr("/c++202002L/"));
  EXPECT_THAT(tag, HasSubstr("/fusebox-" FUSEBOX_VERSION_STRING));
}

TEST(PluginRegistry, PassOutlivesTheRegistryThatLoadedIt) {
  std::shared_ptr<Pass> pass;
  {
    PluginRegistry registry = discover({kPluginDir});
    pass = registry.createPass("consecutive_cast");
  }
  // The registry is gone; the pass's library must still be loaded.
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 1, DataType::Float);
  f.addOutput(castOp(DataType::Float, castOp(DataType::Double, t0)));
  EXPECT_EQ(pass->name(), "consecutive_cast");
  EXPECT_TRUE(pass->run(f));
  EXPECT_EQ(f.tensorExprs().size(), 1u);  // a set() of the input: the casts are gone
}

TEST(PluginRegistry, MissingPathIsAnErrorAtItsConfigLocation) {
  PluginRegistry registry;
  SourceLocation where{"my.toml", 3, 10};
  std::string message = userErrorOf([&] {
    registry.discover({{"/no/such/plugin/folder", where}});
  });
  EXPECT_THAT(message, HasSubstr("my.toml:3:10"));
  EXPECT_THAT(message, HasSubstr("plugin path '/no/such/plugin/folder' does not exist"));
}

TEST(PluginRegistry, LibraryWithoutEntryInAFolderIsSkippedWithADiagnostic) {
  PluginRegistry registry = discover({kFixtures / "not_a_plugin"});
  EXPECT_TRUE(registry.plugins().empty());
  ASSERT_EQ(registry.diagnostics().size(), 1u);
  EXPECT_THAT(registry.diagnostics()[0].message, HasSubstr("is not a fusebox plugin"));
  EXPECT_THAT(registry.diagnostics()[0].message, HasSubstr("fusebox_plugin_info"));
  EXPECT_THAT(registry.describeKnown(PluginKind::Pass), HasSubstr("none were found in"));
}

TEST(PluginRegistry, LibraryWithoutEntryNamedDirectlyIsAnError) {
  PluginRegistry registry;
  fs::path lib = kFixtures / "not_a_plugin/libnot_a_plugin.so";
  std::string message = userErrorOf([&] { registry.addLibrary(lib, {"c.toml", 2, 1}); });
  EXPECT_THAT(message, HasSubstr("c.toml:2:1"));
  EXPECT_THAT(message, HasSubstr("libnot_a_plugin.so' is not a fusebox plugin"));
  // Both declaration macros are named: the library may have meant either kind.
  EXPECT_THAT(message,
              HasSubstr("FUSEBOX_DECLARE_PASS_PLUGIN or FUSEBOX_DECLARE_SCHEDULER_PLUGIN"));
}

TEST(PluginRegistry, FileThatIsNotALibraryIsSkippedWithADiagnostic) {
  testing::TempDir dir;
  dir.write("libfake.so", "this is a text file, not a shared library\n");
  dir.write("README.txt", "not even named like a library: ignored\n");
  PluginRegistry registry = discover({dir.path()});
  EXPECT_TRUE(registry.plugins().empty());
  ASSERT_EQ(registry.diagnostics().size(), 1u);
  EXPECT_THAT(registry.diagnostics()[0].message, HasSubstr("libfake.so' is not a fusebox plugin"));
  EXPECT_THAT(registry.diagnostics()[0].message, HasSubstr("not a shared library"));
}

TEST(PluginRegistry, UnreadablePluginSaysPermissionDenied) {
  testing::TempDir dir;
  const fs::path lib = dir.path() / "libfusebox_pass_remove_empty.so";
  fs::copy_file(kPluginDir / "libfusebox_pass_remove_empty.so", lib);
  ASSERT_EQ(::chmod(lib.c_str(), 0), 0);
  // In a child that file permissions apply to, even when the tests run as root.
  const std::string named = testing::runWithoutPermissionBypass([&] {
    PluginRegistry registry;
    return userErrorOf([&] { registry.addLibrary(lib, {"c.toml", 2, 1}); });
  });
  EXPECT_THAT(named, HasSubstr("c.toml:2:1: plugin '" + lib.string() +
                               "' cannot be used: cannot open it: Permission denied"));
  EXPECT_THAT(named, Not(HasSubstr("basic_ios")));
  const std::string in_folder = testing::runWithoutPermissionBypass([&] {
    PluginRegistry registry = discover({dir.path()});
    std::string text;
    for (const auto& d : registry.diagnostics()) text += d.message + "\n";
    return text;
  });
  EXPECT_THAT(in_folder, HasSubstr("cannot open it: Permission denied; skipped"));
}

TEST(PluginRegistry, FifoNamedDirectlyIsAnErrorNotAHang) {
  testing::TempDir dir;
  const fs::path fifo = dir.path() / "libfifo.so";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  testing::HangGuard guard;
  PluginRegistry registry;
  EXPECT_THAT(userErrorOf([&] {
                registry.addLibrary(fifo, {"c.toml", 2, 1});
              }),
              HasSubstr("cannot be used: it is a named pipe (FIFO), not a regular file"));
}

TEST(PluginRegistry, WrongApiVersionIsAnError) {
  std::string message = userErrorOf([&] { discover({kFixtures / "wrong_api"}); });
  EXPECT_THAT(message, HasSubstr("libwrong_api.so"));
  EXPECT_THAT(message, HasSubstr("plugin API version 999"));
  EXPECT_THAT(message, HasSubstr(fmt::format("this fusebox uses version {}", kPluginApiVersion)));
  EXPECT_THAT(message, HasSubstr("rebuild the plugin"));
}

TEST(PluginRegistry, AbiMismatchIsAnError) {
  std::string message = userErrorOf([&] { discover({kFixtures / "abi_mismatch"}); });
  EXPECT_THAT(message, HasSubstr("ABI mismatch"));
  EXPECT_THAT(message, HasSubstr("libabi_mismatch.so"));
  EXPECT_THAT(message, HasSubstr("'gcc-4.8/libstdc++-cxx11abi0/c++201103L/fusebox-0.0.1'"));
  EXPECT_THAT(message, HasSubstr(std::string("'") + hostAbiTag() + "'"));
}

TEST(PluginRegistry, DuplicateNameNamesBothFiles) {
  std::string message = userErrorOf([&] { discover({kFixtures / "duplicate"}); });
  EXPECT_THAT(message, HasSubstr("two plugins are named 'dup_pass'"));
  EXPECT_THAT(message, HasSubstr("libdup_one.so"));
  EXPECT_THAT(message, HasSubstr("libdup_two.so"));
}

TEST(PluginRegistry, SameFolderListedTwiceIsNotADuplicate) {
  PluginRegistry registry = discover({kPluginDir, kPluginDir / "."});
  EXPECT_EQ(registry.plugins(PluginKind::Pass).size(), kBuiltinPasses.size());
  EXPECT_EQ(registry.plugins().size(), discover({kPluginDir}).plugins().size());
}

TEST(PluginRegistry, UnknownNameListsTheKnownOnesAndWhereEachWasFound) {
  PluginRegistry registry = discover({kPluginDir});
  std::string message = userErrorOf([&] { registry.createPass("remove_emtpy"); });
  EXPECT_THAT(message, HasSubstr("unknown pass 'remove_emtpy'"));
  for (const auto& name : kBuiltinPasses)
    EXPECT_THAT(
        message,
        HasSubstr(name + " (from " +
                  fs::weakly_canonical(kPluginDir / ("libfusebox_pass_" + name + ".so")).string() +
                  ")"));
}

TEST(PluginRegistry, ThrowingFactoryBecomesAPluginErrorNamingThePlugin) {
  PluginRegistry registry = discover({kFixtures / "misbehaving"});
  try {
    registry.createPass("bad_factory");
    FAIL() << "expected a PluginError";
  } catch (const PluginError& e) {
    EXPECT_EQ(e.plugin(), "bad_factory");
    EXPECT_EQ(e.file().filename(), "libbad_factory.so");
    EXPECT_THAT(e.what(), HasSubstr("plugin 'bad_factory'"));
    EXPECT_THAT(e.what(), HasSubstr("failed in its factory: cannot construct bad_factory"));
  }
}

}  // namespace
}  // namespace fusebox
