#include "core/common/error.hpp"

namespace hemo {

// The destructors are the classes' key functions: defining them here puts the vtables
// and type information in libhemo_core alone. An exception thrown by a plugin then
// refers to core's copies, which stay mapped after the plugin is unloaded while the
// exception propagates (a plugin-local copy would vanish with the plugin and crash the
// handler).
InputError::~InputError() = default;
DivergenceError::~DivergenceError() = default;
WriteError::~WriteError() = default;

}  // namespace hemo
