#pragma once
// Finds and loads plugins (Boost.DLL). A plugin called NAME is the file
// hemo_plugin_NAME.so in the first folder of the search path that has it:
//   1. each folder of $HEMO_PLUGIN_PATH (colon-separated),
//   2. the installed plugins, <executable>/../lib/hemoflow (<prefix>/lib/hemoflow),
//   3. the build's library folder, <executable>/../lib,
//   4. the executable's own folder (a bundle copies plugins next to the binary).
// Nothing is compiled in: a moved install tree finds its plugins.
#include <memory>
#include <string>
#include <vector>

#include "core/plugin/plugin_api.hpp"

namespace hemo {

struct LoadedPlugin {
  std::string file;
  const PluginDescriptor* descriptor = nullptr;
  std::shared_ptr<void> library;  // keeps the shared library mapped while in use
  std::string name() const { return descriptor->name; }
  std::string kind() const { return descriptor->kind; }
};

/// One entry of `hemoflow info`: a plugin file and what loading it gave.
struct PluginListing {
  std::string file;
  std::string name, kind, version, summary;
  std::string error;  // empty when the plugin loaded
};

class PluginLoader {
 public:
  explicit PluginLoader(std::vector<std::string> search_dirs = default_search_dirs());
  static std::vector<std::string> default_search_dirs();
  const std::vector<std::string>& search_dirs() const { return dirs_; }

  /// Loads plugin `name`. InputError when no file is found (naming the folders searched
  /// and the closest known name); std::runtime_error naming the file when it is found but
  /// broken (not a shared library, missing symbol, ABI mismatch).
  LoadedPlugin load(const std::string& name) const;

  /// Every plugin file on the search path (first occurrence of each name), loaded to
  /// read its descriptor; broken files are listed with their error.
  std::vector<PluginListing> discover() const;

 private:
  std::vector<std::string> dirs_;
};

}  // namespace hemo
