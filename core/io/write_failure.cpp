#include "core/io/write_failure.hpp"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/common/error.hpp"
#include "core/common/text.hpp"

namespace hemo::io {

std::string write_cause(int err) {
  switch (err) {
    case 0: return {};
    case ENOSPC: return "no space left on the device (errno ENOSPC)";
    case EDQUOT: return "the disk quota is exceeded (errno EDQUOT)";
    case EFBIG:
      return "the file would exceed the largest file allowed: the process's file size limit (ulimit -f) or the file "
             "system's (errno EFBIG)";
    case EROFS: return "the file system is read-only (errno EROFS)";
    case EACCES: return "permission denied (errno EACCES)";
    case EPERM: return "operation not permitted (errno EPERM)";
    case ENOTDIR: return "a part of the path is a file, not a folder (errno ENOTDIR)";
    case ENOENT: return "a folder of the path does not exist (errno ENOENT)";
    case EIO: return "an input/output error of the device (errno EIO)";
    default: return str(std::strerror(err), " (errno ", err, ")");
  }
}

std::int64_t free_bytes(const std::string& path) {
  // The file itself may not exist yet, nor its folder (the error may be that it cannot
  // be made): the nearest folder that does.
  std::filesystem::path p = std::filesystem::absolute(path);
  std::error_code ec;
  while (!p.empty() && !std::filesystem::is_directory(p, ec)) {
    if (p == p.parent_path()) return -1;
    p = p.parent_path();
  }
  struct statvfs fs {};
  if (p.empty() || ::statvfs(p.c_str(), &fs) != 0) return -1;
  return std::int64_t(fs.f_bavail) * std::int64_t(fs.f_frsize);
}

std::string byte_count(std::uint64_t bytes) {
  return bytes < 1024 ? str(bytes, " bytes") : str(bytes, " bytes = ", fmt_bytes(double(bytes)));
}

void write_failed(const std::string& path, const std::string& doing, std::uint64_t bytes, const std::string& cause,
                  std::uint64_t whole) {
  const std::int64_t room = free_bytes(path);
  throw WriteError(str("cannot write ", path, ": ", cause.empty() ? std::string("unknown cause") : cause, "; failed to ",
                       doing, bytes > 0 ? ": " + byte_count(bytes) : std::string(),
                       whole > bytes ? str(" of a file of about ", fmt_bytes(double(whole))) : std::string(),
                       room >= 0 ? str("; ", fmt_bytes(double(room)), " free on its file system") : std::string()),
                   path, bytes);
}

void write_failed(const std::string& path, const std::string& doing, std::uint64_t bytes, int err) {
  write_failed(path, doing, bytes, write_cause(err));
}

void make_folder(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) write_failed(path, "make this folder", 0, ec.value());
}

}  // namespace hemo::io
