// Runs a fuzz entry point over saved inputs without libFuzzer, so that the corpus (and
// every crash once found and fixed) is an ordinary regression test. Arguments: files or
// directories (every regular file in them, in name order). With --expect-valid first,
// only the files named valid_* are run, and the entry point is told (through the
// environment, fuzz_common.hpp) that the reader must accept each of them.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  int first = 1;
  const bool valid_only = argc > 1 && std::strcmp(argv[1], "--expect-valid") == 0;
  if (valid_only) {
    ::setenv("HEMO_FUZZ_EXPECT_VALID", "1", 1);
    ++first;
  }
  for (int i = first; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file() && (!valid_only || entry.path().filename().string().rfind("valid_", 0) == 0))
          inputs.push_back(entry.path());
    } else if (fs::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      return 1;
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    // An empty corpus would make the test pass without testing anything.
    std::fprintf(stderr, "replay: no inputs (usage: %s [--expect-valid] DIR_OR_FILE...)\n", argc > 0 ? argv[0] : "replay");
    return 1;
  }
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.string().c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu inputs without a finding%s\n", inputs.size(), valid_only ? ", each accepted" : "");
  return 0;
}
