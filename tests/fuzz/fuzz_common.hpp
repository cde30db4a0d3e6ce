#pragma once
// What every fuzz entry point (tests/fuzz/*_fuzz.cpp) shares: a per-process scratch file
// for readers that take a path, and the way a finding is reported (a message, then
// abort(), which libFuzzer and the replay test both catch).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace hemo::fuzz {

/// A broken promise of the code under test: prints it and aborts, so that libFuzzer saves
/// the input and the replay test fails.
[[noreturn]] inline void finding(const char* target, const std::string& what) {
  std::fprintf(stderr, "%s: finding: %s\n", target, what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// Writes these bytes to `path` (replacing what it held).
inline void write_bytes(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) finding("fuzz", "cannot write the scratch file " + path);
}

/// A file in the temporary folder ($TMPDIR, /dev/shm is fastest) named after the process,
/// so that parallel fuzzing jobs (-jobs=N) do not overwrite each other's input; removed
/// when the process exits.
struct ScratchFile {
  std::string path;
  explicit ScratchFile(const std::string& tag, const std::string& extension)
      : path((std::filesystem::temp_directory_path() / ("hemo_" + tag + "_fuzz_" + std::to_string(::getpid()) + extension))
                 .string()) {}
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  /// Replaces the file's contents with these bytes.
  void write(const std::uint8_t* data, std::size_t size) const { write_bytes(path, data, size); }
};

/// True when HEMO_FUZZ_EXPECT_VALID is set (the replay test of the valid seeds): then an
/// input that the reader refuses is a finding too, so that the seeds stay valid files as
/// the formats change (a seed the reader refuses starts the fuzzer nowhere useful).
inline bool expect_valid() {
  static const bool on = std::getenv("HEMO_FUZZ_EXPECT_VALID") != nullptr;
  return on;
}

}  // namespace hemo::fuzz
