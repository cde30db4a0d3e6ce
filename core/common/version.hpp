#pragma once
// Build identification, generated at build time (cmake/version.cmake) so the commit is
// current after every commit, not only after a re-configure.
namespace hemo {
const char* version();
const char* commit();
const char* build_type();
}  // namespace hemo
