#include "core/plugin/loader.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/common/error.hpp"
#include "core/common/text.hpp"

namespace hemo {

namespace fs = std::filesystem;

namespace {
constexpr const char* file_prefix = "hemo_plugin_";
constexpr const char* file_suffix = ".so";

std::string file_name_for(const std::string& name) { return file_prefix + name + file_suffix; }

LoadedPlugin open_plugin_file(const std::string& file) {
  auto lib = std::make_shared<boost::dll::shared_library>();
  try {
    lib->load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw std::runtime_error(str("plugin file '", file, "' could not be loaded: ", e.what()));
  }
  if (!lib->has("hemo_plugin_abi") || !lib->has("hemo_plugin_descriptor")) {
    throw std::runtime_error(str("plugin file '", file,
                                 "' is not a hemoflow plugin: it does not export hemo_plugin_abi and "
                                 "hemo_plugin_descriptor (use HEMO_EXPORT_PLUGIN)"));
  }
  const int abi = lib->get<const int>("hemo_plugin_abi");
  if (abi != plugin_abi_version) {
    throw std::runtime_error(str("plugin file '", file, "' was built for plugin ABI ", abi, ", this hemoflow uses ABI ",
                                 plugin_abi_version, ": rebuild the plugin against this hemoflow"));
  }
  const auto describe = lib->get<const PluginDescriptor*()>("hemo_plugin_descriptor");
  LoadedPlugin p;
  p.file = file;
  p.descriptor = describe();
  if (!p.descriptor || !p.descriptor->name || !p.descriptor->create || !p.descriptor->declare_config)
    throw std::runtime_error(str("plugin file '", file, "' exports an incomplete descriptor"));
  p.library = lib;
  return p;
}
}  // namespace

PluginLoader::PluginLoader(std::vector<std::string> search_dirs) : dirs_(std::move(search_dirs)) {}

std::vector<std::string> PluginLoader::default_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("HEMO_PLUGIN_PATH"))
    for (const std::string& d : split(env, ':'))
      if (!d.empty()) dirs.push_back(d);
  // Relative to the executable only, so that an installed tree still works when moved.
  boost::dll::fs::error_code ec;
  const fs::path exe_dir = boost::dll::program_location(ec).parent_path().string();
  if (!ec) {
    const fs::path lib_dir = fs::weakly_canonical(exe_dir / ".." / "lib");
    dirs.push_back((lib_dir / "hemoflow").string());
    dirs.push_back(lib_dir.string());
    dirs.push_back(exe_dir.string());
  }
  // Drop duplicates, keeping the first occurrence (its priority).
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (auto& d : dirs)
    if (seen.insert(d).second) unique.push_back(d);
  return unique;
}

LoadedPlugin PluginLoader::load(const std::string& name) const {
  for (const std::string& dir : dirs_) {
    const fs::path file = fs::path(dir) / file_name_for(name);
    std::error_code ec;
    if (fs::exists(file, ec)) {
      LoadedPlugin p = open_plugin_file(file.string());
      if (p.name() != name) {
        throw std::runtime_error(str("plugin file '", file.string(), "' declares the name '", p.name(), "', expected '",
                                     name, "'"));
      }
      return p;
    }
  }
  std::vector<std::string> known;
  for (const PluginListing& l : discover())
    if (l.error.empty()) known.push_back(l.name);
  const std::string hint = closest_match(name, known);
  throw InputError(str("unknown plugin '", name, "'", hint.empty() ? "" : " (did you mean '" + hint + "'?)",
                       "; available: ", known.empty() ? "none" : join(known, ", "),
                       "; searched: ", join(dirs_, ", "), " (set HEMO_PLUGIN_PATH to add folders)"));
}

std::vector<PluginListing> PluginLoader::discover() const {
  std::vector<PluginListing> out;
  std::set<std::string> names;
  for (const std::string& dir : dirs_) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string fname = entry.path().filename().string();
      if (fname.rfind(file_prefix, 0) == 0 && entry.path().extension() == file_suffix) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const std::string stem = f.stem().string().substr(std::string(file_prefix).size());
      if (!names.insert(stem).second) continue;  // shadowed by an earlier folder
      PluginListing l;
      l.file = f.string();
      try {
        const LoadedPlugin p = open_plugin_file(l.file);
        l.name = p.descriptor->name;
        l.kind = p.descriptor->kind ? p.descriptor->kind : "";
        l.version = p.descriptor->version ? p.descriptor->version : "";
        l.summary = p.descriptor->summary ? p.descriptor->summary : "";
      } catch (const std::exception& e) {
        l.name = stem;
        l.error = e.what();
      }
      out.push_back(l);
    }
  }
  return out;
}

}  // namespace hemo
