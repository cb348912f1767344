// Plugin discovery and loading with Boost.DLL. A library's export table is read
// (library_info) before anything is loaded; only a library that exports the
// entry symbol is loaded, and only its record (plain data) is read until the API
// version and ABI tag check out.
#include <fusebox/pass.h>
#include <fusebox/plugin/plugin_registry.h>

#include <fmt/format.h>
#include <boost/dll/library_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "file_access.h"

namespace fusebox {

namespace fs = std::filesystem;

std::string_view toString(PluginKind kind) {
  switch (kind) {
    case PluginKind::Pass:
      return "pass";
    case PluginKind::Scheduler:
      return "scheduler";
  }
  return "unknown kind";
}

const char* hostAbiTag() {
  return FUSEBOX_PLUGIN_ABI_TAG;
}

PluginError::PluginError(std::string plugin, fs::path file, const std::string& message)
    : std::runtime_error(message), plugin_(std::move(plugin)), file_(std::move(file)) {}

std::string describePluginException(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return ex.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

namespace {

bool isSharedLibraryName(const fs::path& p) {
  const std::string name = p.filename().string();
  return p.extension() == ".so" || p.extension() == ".dylib" ||
         name.find(".so.") != std::string::npos;
}

// Plugin names appear as TOML keys and on command lines: keep them plain.
bool isValidPluginName(const char* name) {
  if (name == nullptr || *name == '\0') return false;
  for (const char* c = name; *c; ++c)
    if (!(std::islower(static_cast<unsigned char>(*c)) ||
          std::isdigit(static_cast<unsigned char>(*c)) || *c == '_'))
      return false;
  return true;
}

}  // namespace

struct PluginRegistry::Impl {
  struct Entry {
    PluginDescriptor descriptor;
    std::shared_ptr<boost::dll::shared_library> library;
    const PluginInfo* info;
  };
  std::vector<Entry> entries;
  std::vector<PluginDescriptor> descriptors;
  std::vector<PluginDiagnostic> diagnostics;
  std::vector<fs::path> searched;

  const Entry* find(std::string_view name, PluginKind kind) const {
    for (const auto& e : entries)
      if (e.descriptor.name == name && e.descriptor.kind == kind) return &e;
    return nullptr;
  }

  // Reads the export table without loading. Returns false (with a reason) when
  // the file is not a library or lacks the entry symbol.
  static bool exportsEntry(const fs::path& file, std::string& why) {
    try {
      boost::dll::library_info info(file);
      for (const std::string& s : info.symbols("boostdll"))
        if (s == FUSEBOX_PLUGIN_ENTRY_NAME) return true;
      // Some linkers merge sections; fall back to the whole table.
      for (const std::string& s : info.symbols())
        if (s == FUSEBOX_PLUGIN_ENTRY_NAME) return true;
      why = fmt::format(
          "it does not export '{}' (a plugin declares itself with "
          "FUSEBOX_DECLARE_PASS_PLUGIN or FUSEBOX_DECLARE_SCHEDULER_PLUGIN and is built "
          "with fusebox_add_pass or fusebox_add_scheduler)",
          FUSEBOX_PLUGIN_ENTRY_NAME);
    } catch (const std::exception& e) {
      why = fmt::format("it is not a shared library this system can read ({})", e.what());
    }
    return false;
  }

  void add(const fs::path& file, const SourceLocation& origin, bool named_directly) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(file, ec);
    if (ec) canonical = fs::absolute(file);
    for (const auto& e : entries)
      if (e.descriptor.file == canonical) return;  // listed twice: nothing new

    try {
      // Boost.DLL's reader reports an unreadable file as "basic_ios::clear"
      // and blocks on a FIFO: open it (without blocking) and check it first.
      ReadableFile check(canonical, "it");
    } catch (const UserError& e) {
      std::string message =
          fmt::format("plugin '{}' cannot be used: {}", canonical.string(), e.detail());
      if (named_directly) throw UserError(origin, message);
      diagnostics.push_back({canonical, message + "; skipped"});
      return;
    }
    std::string why;
    if (!exportsEntry(canonical, why)) {
      std::string message =
          fmt::format("'{}' is not a fusebox plugin: {}", canonical.string(), why);
      if (named_directly) throw UserError(origin, message);
      diagnostics.push_back({canonical, message + "; skipped"});
      return;
    }

    auto library = std::make_shared<boost::dll::shared_library>();
    try {
      library->load(canonical,
                    boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
      throw UserError(origin,
                      fmt::format("cannot load plugin '{}': {}", canonical.string(), e.what()));
    }
    const PluginInfo* info = nullptr;
    try {
      info = &library->get_alias<const PluginInfo>(FUSEBOX_PLUGIN_ENTRY_NAME);
    } catch (const std::exception& e) {
      throw UserError(origin, fmt::format("cannot read the record of plugin '{}': {}",
                                          canonical.string(), e.what()));
    }
    // api_version is the only field every API version has at this place.
    if (info == nullptr || info->api_version != kPluginApiVersion)
      throw UserError(
          origin, fmt::format("plugin '{}' was built for plugin API version {}, but this "
                              "fusebox uses version {}; rebuild the plugin against this "
                              "fusebox's SDK",
                              canonical.string(), info ? info->api_version : 0, kPluginApiVersion));
    const char* tag = info->abi_tag ? info->abi_tag : "(none)";
    if (std::strcmp(tag, hostAbiTag()) != 0)
      throw UserError(origin,
                      fmt::format("ABI mismatch: plugin '{}' was built as '{}', but this fusebox "
                                  "was built as '{}'; rebuild the plugin with the same compiler, "
                                  "standard library and fusebox version",
                                  canonical.string(), tag, hostAbiTag()));
    if (info->kind != static_cast<uint32_t>(PluginKind::Pass) &&
        info->kind != static_cast<uint32_t>(PluginKind::Scheduler))
      throw UserError(origin, fmt::format("plugin '{}' declares an unknown kind {}",
                                          canonical.string(), info->kind));
    if (!isValidPluginName(info->name))
      throw UserError(origin, fmt::format("plugin '{}' has an invalid name '{}': use lower-case "
                                          "letters, digits and '_'",
                                          canonical.string(), info->name ? info->name : ""));
    if (info->create == nullptr || info->destroy == nullptr)
      throw UserError(origin,
                      fmt::format("plugin '{}' has no factory in its record", canonical.string()));

    PluginDescriptor d{info->name, static_cast<PluginKind>(info->kind),
                       info->version ? info->version : "",
                       info->description ? info->description : "", canonical};
    for (const auto& e : entries)
      if (e.descriptor.name == d.name)
        throw UserError(origin,
                        fmt::format("two plugins are named '{}': '{}' and '{}'; remove "
                                    "or rename one of them",
                                    d.name, e.descriptor.file.string(), canonical.string()));
    entries.push_back({d, std::move(library), info});
    descriptors.push_back(std::move(d));
  }
};

PluginRegistry::PluginRegistry() : impl_(std::make_unique<Impl>()) {}
PluginRegistry::~PluginRegistry() = default;
PluginRegistry::PluginRegistry(PluginRegistry&&) noexcept = default;
PluginRegistry& PluginRegistry::operator=(PluginRegistry&&) noexcept = default;

void PluginRegistry::discover(const std::vector<PluginSearchPath>& paths) {
  for (const auto& p : paths) {
    std::error_code ec;
    auto status = fs::status(p.path, ec);
    if (ec || !fs::exists(status))
      throw UserError(p.origin, fmt::format("plugin path '{}' does not exist", p.path.string()));
    impl_->searched.push_back(p.path);
    if (!fs::is_directory(status)) {
      impl_->add(p.path, p.origin, /*named_directly=*/true);
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(p.path, ec))
      if (entry.is_regular_file() && isSharedLibraryName(entry.path()))
        files.push_back(entry.path());
    if (ec)
      throw UserError(p.origin, fmt::format("cannot list plugin folder '{}': {}", p.path.string(),
                                            ec.message()));
    std::sort(files.begin(), files.end());
    for (const auto& f : files) impl_->add(f, p.origin, /*named_directly=*/false);
  }
}

void PluginRegistry::addLibrary(const fs::path& file, const SourceLocation& origin) {
  std::error_code ec;
  if (!fs::exists(file, ec))
    throw UserError(origin, fmt::format("plugin path '{}' does not exist", file.string()));
  impl_->searched.push_back(file);
  impl_->add(file, origin, /*named_directly=*/true);
}

const std::vector<PluginDescriptor>& PluginRegistry::plugins() const {
  return impl_->descriptors;
}

std::vector<PluginDescriptor> PluginRegistry::plugins(PluginKind kind) const {
  std::vector<PluginDescriptor> out;
  for (const auto& d : impl_->descriptors)
    if (d.kind == kind) out.push_back(d);
  return out;
}

const PluginDescriptor* PluginRegistry::find(std::string_view name, PluginKind kind) const {
  const Impl::Entry* e = impl_->find(name, kind);
  return e ? &e->descriptor : nullptr;
}

std::string PluginRegistry::describeKnown(PluginKind kind) const {
  std::vector<std::string> parts;
  for (const auto& d : impl_->descriptors)
    if (d.kind == kind) parts.push_back(fmt::format("{} (from {})", d.name, d.file.string()));
  if (!parts.empty()) return fmt::format("{}", fmt::join(parts, ", "));
  std::vector<std::string> searched;
  for (const auto& p : impl_->searched) searched.push_back(p.string());
  return searched.empty() ? std::string("none (no plugin paths were searched)")
                          : fmt::format("none were found in {}", fmt::join(searched, ", "));
}

const std::vector<PluginDiagnostic>& PluginRegistry::diagnostics() const {
  return impl_->diagnostics;
}

std::shared_ptr<void> PluginRegistry::createObject(std::string_view name, PluginKind kind) const {
  const Impl::Entry* e = impl_->find(name, kind);
  if (e == nullptr)
    throw UserError(fmt::format("unknown {} '{}'; known {}s: {}", toString(kind), name,
                                toString(kind), describeKnown(kind)));
  void* object = callPlugin(e->descriptor, "its factory", [&] { return e->info->create(); });
  if (object == nullptr)
    throw PluginError(e->descriptor.name, e->descriptor.file,
                      fmt::format("plugin '{}' ({}) failed in its factory: it returned null",
                                  e->descriptor.name, e->descriptor.file.string()));
  // The deleter holds the library: it is unloaded only after the object is gone.
  auto library = e->library;
  auto destroy = e->info->destroy;
  return std::shared_ptr<void>(object, [library, destroy](void* p) { destroy(p); });
}

std::shared_ptr<Pass> PluginRegistry::createPass(std::string_view name) const {
  std::shared_ptr<void> object = createObject(name, PluginKind::Pass);
  std::shared_ptr<Pass> pass(object, static_cast<Pass*>(object.get()));
  const PluginDescriptor& d = *find(name, PluginKind::Pass);
  std::string reported = callPlugin(d, "name()", [&] { return pass->name(); });
  if (reported != d.name)
    throw PluginError(d.name, d.file,
                      fmt::format("plugin '{}' ({}) made a pass that calls itself '{}'; a pass's "
                                  "name() must equal the name in its plugin record",
                                  d.name, d.file.string(), reported));
  return pass;
}

}  // namespace fusebox
