#pragma once
// A fresh directory under the system's temporary directory for one test, removed with
// everything in it when the test ends: unique per process, time and call.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <system_error>

namespace hemo::test {

struct TempDir {
  std::filesystem::path path;
  /// `prefix` names the test file's subject ("io", "checkpoint").
  explicit TempDir(const std::string& prefix) {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path = std::filesystem::temp_directory_path() / ("hemo_test_" + prefix + "_" + std::to_string(::getpid()) + "_" +
                                                     std::to_string(stamp) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace hemo::test
