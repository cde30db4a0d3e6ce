#include "core/io/output_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/io/write_failure.hpp"

namespace hemo::io {

namespace fs = std::filesystem;

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

FolderLock FolderLock::take(const std::string& folder, const std::string& what) {
  make_folder(folder);  // WriteError naming the folder and the cause
  const std::string path = (fs::path(folder) / ".hemoflow.lock").string();
  FolderLock lock;
  lock.fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.fd_ < 0)
    throw WriteError(str("cannot open the output folder's lock file '", path, "': ", std::strerror(errno)), path, 0);
  if (::flock(lock.fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::ifstream in(path);
    std::stringstream holder;
    holder << in.rdbuf();
    std::string who = holder.str();
    while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
    if (err == EWOULDBLOCK)
      throw InputError(str("the output folder '", folder, "' is in use by another run (",
                           who.empty() ? std::string("its lock file names no process") : who,
                           "): wait for it to end, or give this run another --output"));
    throw WriteError(str("cannot lock the output folder's lock file '", path, "': ", std::strerror(err)), path, 0);
  }
  // Ours: say who holds it, for the next run that finds it taken.
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[32] = {};
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  const std::string text = str("process ", ::getpid(), " on ", host, ", case ", what, ", since ", when, "\n");
  if (::ftruncate(lock.fd_, 0) == 0) {
    const ssize_t written = ::pwrite(lock.fd_, text.data(), text.size(), 0);
    (void)written;  // the lock holds without its text; the text only names the holder
  }
  return lock;
}

int remove_partial_writes(const std::string& folder) {
  int removed = 0;
  for (const fs::path& dir : {fs::path(folder), fs::path(folder) / "fields", fs::path(folder) / "particles"}) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      std::error_code e2;
      if (entry.path().extension() == ".tmp" && entry.is_regular_file(e2) && fs::remove(entry.path(), e2)) ++removed;
    }
  }
  return removed;
}

bool holds_run(const std::string& folder) {
  std::error_code ec;
  const fs::path f(folder);
  for (const char* name : {"summary.json", "case.toml", "checkpoint.h5", "fields"})
    if (fs::exists(f / name, ec)) return true;
  return false;
}

namespace {

/// The step count a summary.json says its run took: the `"steps": N` line JsonWriter
/// writes (0 where the file cannot be read or has none).
long long summary_steps(const fs::path& summary) {
  std::ifstream in(summary);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("\"steps\":");
    if (at == std::string::npos) continue;
    return std::strtoll(line.c_str() + at + 8, nullptr, 10);
  }
  return 0;
}

/// Regular files below a folder (0 where it is missing).
std::size_t files_below(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec)) ++n;
  return n;
}

}  // namespace

std::vector<std::string> results_in(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  const fs::path f(folder);
  if (fs::exists(f / "checkpoint.h5", ec)) found.push_back("checkpoint.h5");
  for (const char* dir : {"fields", "particles"})
    if (const std::size_t n = files_below(f / dir)) found.push_back(str(dir, "/ (", n, n == 1 ? " file)" : " files)"));
  std::size_t csv = 0;  // with a row under the header: a series begun
  for (const auto& entry : fs::directory_iterator(f, ec)) {
    if (entry.path().extension() != ".csv") continue;
    std::ifstream in(entry.path());
    std::string line;
    int lines = 0;
    while (lines < 2 && std::getline(in, line)) ++lines;
    if (lines >= 2) ++csv;
  }
  if (csv) found.push_back(str(csv, csv == 1 ? " CSV file" : " CSV files"));
  if (fs::exists(f / "summary.json", ec))
    if (const long long steps = summary_steps(f / "summary.json"); steps > 0)
      found.push_back(str("summary.json of ", steps, steps == 1 ? " step" : " steps"));
  return found;
}

}  // namespace hemo::io
