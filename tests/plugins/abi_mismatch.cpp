// A plugin that claims a different ABI version: the loader must refuse it by name
// before touching its descriptor.
#include "core/plugin/plugin_api.hpp"

extern "C" __attribute__((visibility("default"))) const int hemo_plugin_abi = 999;
extern "C" __attribute__((visibility("default"))) const hemo::PluginDescriptor* hemo_plugin_descriptor() {
  return nullptr;
}
