#pragma once
// Reporting an output that could not be written (WriteError, core/common/error.hpp) so a
// user can act on it: which file, how many bytes were being written, why (a full disk or
// quota, the process's file size limit, a path that is not a writable folder) and how
// much room its file system has left.
#include <cstdint>
#include <string>

namespace hemo::io {

/// What errno `err` says about a failed write, in words a user can act on: "no space
/// left on the device (errno ENOSPC)". `err` = 0: "".
std::string write_cause(int err);

/// The bytes an unprivileged user may still write on the file system holding `path` (or
/// its nearest existing parent folder); -1 where that cannot be told.
std::int64_t free_bytes(const std::string& path);

/// "1234567 bytes = 1.2 MiB".
std::string byte_count(std::uint64_t bytes);

/// Throws WriteError: "cannot write PATH: CAUSE; failed to DOING: BYTES [of a file of
/// about WHOLE]; F free on its file system". `doing` says the step ("write row 3 of
/// /fields/f"), `bytes` how much it wrote (0: leave it out), `whole` the whole file's
/// size where known; `cause` (errno's words, or a library's own) says why.
[[noreturn]] void write_failed(const std::string& path, const std::string& doing, std::uint64_t bytes,
                               const std::string& cause, std::uint64_t whole = 0);

/// The same, with the cause from errno `err`.
[[noreturn]] void write_failed(const std::string& path, const std::string& doing, std::uint64_t bytes, int err);

/// Makes the folder `path` and its parents where missing; WriteError naming it if that
/// fails (a part of the path is a file, a read-only file system, no permission).
void make_folder(const std::string& path);

}  // namespace hemo::io
