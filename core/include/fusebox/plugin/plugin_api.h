// The plugin ABI: the one record every fusebox plugin library exports.
//
// A plugin is a shared library (built with fusebox_add_pass / fusebox_add_scheduler)
// that exports exactly one symbol, `fusebox_plugin_info`, through BOOST_DLL_ALIAS.
// The symbol points at a PluginInfo record: plain data the host can read without
// calling any plugin code. The host checks the API version (first field) and the
// ABI tag before it calls the factory.
//
//   #include <fusebox/pass.h>
//   class MyPass : public fusebox::Pass { ... };
//   FUSEBOX_DECLARE_PASS_PLUGIN(MyPass, "my_pass", "1.0", "what it does")
#pragma once

#include <fusebox/version.h>

#include <cstddef>  // pulls in the standard library's configuration macros
#include <cstdint>
#include <type_traits>

#ifndef BOOST_DLL_USE_STD_FS
#define BOOST_DLL_USE_STD_FS  // std::filesystem instead of Boost.Filesystem (no link needed)
#endif
#include <boost/dll/alias.hpp>
// fmt's types and inline functions reach plugins through error.h: its version
// is part of the ABI tag.
#include <fmt/core.h>

namespace fusebox {

// Bumped whenever PluginInfo or the Pass/Scheduler interfaces change incompatibly.
// 2: Scheduler::isFallback.
// 3: KernelParams holds 128 pointers (was 48).
// 4: KernelParams holds 112 ints (was 16); ParamBinding::Source::Value;
//    RuntimeInfo::shapeMode.
// 5: KernelPlan::index_checks, ParamBinding::Source::IndexErrors (kernels with
//    indirect loads); ExpressionEvaluator remembers unknown values (layout).
// 6: Expr::origin (where the script wrote it), Fusion's origin for new
//    expressions (layout); uncheckedIndicesProblem.
// 7: KernelPlan::kernel_ir (layout).
// 8: one scheduler call: Scheduler::propose (a Refusal or a Proposal) replaces
//    canScheduleCompileTime / canScheduleRunTime / computeHeuristics / schedule.
// 9: in-place writes: RuntimeInfo::inPlaceRequests, KernelPlan::OutputSpec::
//    in_place_of_input (layout).
// 10: thread-block clusters: LaunchConfig::cluster,
//     DeviceProperties::max_cluster_blocks and l2_cache_bytes (layout).
// 11: the IndexErrors words are a record kept across launches, with the host
//     words it is read from (a kernel records through recordIndexError);
//     ParamBinding::kept (layout).
inline constexpr uint32_t kPluginApiVersion = 11;

enum class PluginKind : uint32_t { Pass = 1, Scheduler = 2 };

// The record a plugin exports. C-compatible layout; `api_version` stays first in
// every future version so that any host can read it.
struct PluginInfo {
  uint32_t api_version;     // kPluginApiVersion the plugin was built with
  const char* abi_tag;      // FUSEBOX_PLUGIN_ABI_TAG the plugin was built with
  uint32_t kind;            // a PluginKind
  const char* name;         // unique among loaded plugins: what configs name
  const char* version;      // the plugin's own version
  const char* description;  // one line for `fusebox plugins`
  // Creates one object of the kind's interface (fusebox::Pass* for a pass) as
  // void*; destroy deletes it inside the plugin that made it.
  void* (*create)();
  void (*destroy)(void* object);
};
static_assert(std::is_standard_layout_v<PluginInfo> && std::is_trivial_v<PluginInfo>);

// The ABI tag of the code being compiled: host and plugin must agree exactly.
const char* hostAbiTag();  // the tag the host (libfusebox_runtime) was built with

}  // namespace fusebox

// ---- the ABI tag, computed at compile time ------------------------------------------
#define FUSEBOX_PLUGIN_STR_(x) #x
#define FUSEBOX_PLUGIN_STR(x) FUSEBOX_PLUGIN_STR_(x)

#if defined(__clang__)
#define FUSEBOX_PLUGIN_ABI_COMPILER \
  "clang-" FUSEBOX_PLUGIN_STR(__clang_major__) "." FUSEBOX_PLUGIN_STR(__clang_minor__)
#elif defined(__GNUC__)
#define FUSEBOX_PLUGIN_ABI_COMPILER \
  "gcc-" FUSEBOX_PLUGIN_STR(__GNUC__) "." FUSEBOX_PLUGIN_STR(__GNUC_MINOR__)
#else
#define FUSEBOX_PLUGIN_ABI_COMPILER "unknown-compiler"
#endif

#if defined(_LIBCPP_VERSION)
#define FUSEBOX_PLUGIN_ABI_STDLIB "libc++-" FUSEBOX_PLUGIN_STR(_LIBCPP_VERSION)
#elif defined(__GLIBCXX__)
// libstdc++'s dual ABI changes std::string and std::list layouts.
#define FUSEBOX_PLUGIN_ABI_STDLIB "libstdc++-cxx11abi" FUSEBOX_PLUGIN_STR(_GLIBCXX_USE_CXX11_ABI)
#else
#define FUSEBOX_PLUGIN_ABI_STDLIB "unknown-stdlib"
#endif

#define FUSEBOX_PLUGIN_ABI_FMT "fmt-" FUSEBOX_PLUGIN_STR(FMT_VERSION)

#define FUSEBOX_PLUGIN_ABI_TAG                                                         \
  FUSEBOX_PLUGIN_ABI_COMPILER "/" FUSEBOX_PLUGIN_ABI_STDLIB "/c++" FUSEBOX_PLUGIN_STR( \
      __cplusplus) "/" FUSEBOX_PLUGIN_ABI_FMT "/fusebox-" FUSEBOX_VERSION_STRING

// ---- the entry -----------------------------------------------------------------------
// Defines the record and exports it as `fusebox_plugin_info`. Use once per library,
// at global scope. BASE is the interface (fusebox::Pass), CLASS the implementation
// (default-constructible).
#define FUSEBOX_DECLARE_PLUGIN_(KIND, BASE, CLASS, NAME, VERSION, DESCRIPTION)       \
  namespace {                                                                        \
  void* fuseboxPluginCreate() {                                                      \
    return static_cast<BASE*>(new CLASS());                                          \
  }                                                                                  \
  void fuseboxPluginDestroy(void* object) {                                          \
    delete static_cast<BASE*>(object);                                               \
  }                                                                                  \
  const ::fusebox::PluginInfo fusebox_plugin_record = {::fusebox::kPluginApiVersion, \
                                                       FUSEBOX_PLUGIN_ABI_TAG,       \
                                                       static_cast<uint32_t>(KIND),  \
                                                       NAME,                         \
                                                       VERSION,                      \
                                                       DESCRIPTION,                  \
                                                       &fuseboxPluginCreate,         \
                                                       &fuseboxPluginDestroy};       \
  }                                                                                  \
  BOOST_DLL_ALIAS(fusebox_plugin_record, fusebox_plugin_info)

#define FUSEBOX_DECLARE_PASS_PLUGIN(CLASS, NAME, VERSION, DESCRIPTION)                        \
  FUSEBOX_DECLARE_PLUGIN_(::fusebox::PluginKind::Pass, ::fusebox::Pass, CLASS, NAME, VERSION, \
                          DESCRIPTION)

// The exported symbol's name, for the host and for tests.
#define FUSEBOX_PLUGIN_ENTRY_NAME "fusebox_plugin_info"
