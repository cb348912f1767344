// The plugin host: finds plugin libraries, checks their records, loads them and
// makes objects from them. Libraries stay loaded as long as the registry or any
// object made from them is alive.
#pragma once

#include <fusebox/error.h>
#include <fusebox/plugin/plugin_api.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

class Pass;

std::string_view toString(PluginKind kind);  // "pass", "scheduler"

// A file or folder to search, and where it was configured (for messages).
struct PluginSearchPath {
  std::filesystem::path path;
  SourceLocation origin;
};

// What the host knows of a plugin once its record checked out.
struct PluginDescriptor {
  std::string name;
  PluginKind kind;
  std::string version;
  std::string description;
  std::filesystem::path file;
};

// A problem that did not stop discovery: a file that is not a fusebox plugin.
struct PluginDiagnostic {
  std::filesystem::path file;
  std::string message;
};

// Plugin code failed: it threw, or broke its contract (e.g. a pass whose name()
// differs from its record). Names the plugin and its file.
class PluginError : public std::runtime_error {
 public:
  PluginError(std::string plugin, std::filesystem::path file, const std::string& message);
  const std::string& plugin() const { return plugin_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::string plugin_;
  std::filesystem::path file_;
};

// Calls `fn` (which calls into plugin `plugin`); any exception it throws becomes a
// PluginError naming the plugin, its file and `what` the host was asking for.
// UserErrors pass through (as a copy made by the host) when `pass_user_errors`:
// a pass rejecting its options is the user's to fix, not the plugin's fault.
template <class F>
auto callPlugin(const PluginDescriptor& plugin, std::string_view what, F&& fn,
                bool pass_user_errors = false) -> decltype(fn());

class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();
  PluginRegistry(PluginRegistry&&) noexcept;
  PluginRegistry& operator=(PluginRegistry&&) noexcept;

  // Searches every path: a folder contributes each shared library in it (not
  // recursively), a file must be a plugin itself. Throws UserError for: a path
  // that does not exist, a file named directly that is not a fusebox plugin, a
  // wrong API version, an ABI tag mismatch, and two plugins with one name (naming
  // both files). A library in a folder without the entry symbol is skipped and
  // noted in diagnostics().
  void discover(const std::vector<PluginSearchPath>& paths);
  // One library; `origin` says where it was configured.
  void addLibrary(const std::filesystem::path& file, const SourceLocation& origin = {});

  // Every plugin found, in discovery order (files sorted by name within a folder).
  const std::vector<PluginDescriptor>& plugins() const;
  std::vector<PluginDescriptor> plugins(PluginKind kind) const;
  // nullptr when no plugin of that kind has the name.
  const PluginDescriptor* find(std::string_view name, PluginKind kind) const;
  // "a (from /path/liba.so), b (from ...)" or "none were found in: <paths>".
  std::string describeKnown(PluginKind kind) const;
  const std::vector<PluginDiagnostic>& diagnostics() const;

  // Makes a new object of the plugin's kind. Throws UserError for an unknown name
  // (listing the known ones) and PluginError when the plugin's code fails. The
  // object keeps its library loaded.
  std::shared_ptr<void> createObject(std::string_view name, PluginKind kind) const;
  std::shared_ptr<Pass> createPass(std::string_view name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- implementation of callPlugin -------------------------------------------------------
std::string describePluginException(std::exception_ptr e);

template <class F>
auto callPlugin(const PluginDescriptor& plugin, std::string_view what, F&& fn,
                bool pass_user_errors) -> decltype(fn()) {
  std::string message;
  try {
    return fn();
  } catch (const UserError& e) {
    // A copy made here: the plugin's exception object (and its vtable) may be
    // gone with the plugin's library before anyone catches it.
    if (pass_user_errors) throw UserError(e.where(), e.detail());
    message = describePluginException(std::current_exception());
  } catch (const PluginError& e) {
    throw PluginError(e.plugin(), e.file(), e.what());
  } catch (...) {
    message = describePluginException(std::current_exception());
  }
  throw PluginError(plugin.name, plugin.file,
                    "plugin '" + plugin.name + "' (" + plugin.file.string() + ") failed in " +
                        std::string(what) + ": " + message);
}

}  // namespace fusebox
