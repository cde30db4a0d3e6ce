// hemo_membw: measures the memory bandwidth a copy reaches, the ceiling a memory-bound
// LB update is judged against (bytes read + bytes written per second).
//   hemo_membw [--backend cpu|cuda] [--mib N] [--repeat N]
// Prints one JSON object. CUDA: a large cudaMemcpy device-to-device and a plain copy
// kernel (16-byte accesses), best of --repeat; CPU: an OpenMP copy loop.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#if HEMO_HAVE_CUDA
}  // namespace
namespace hemo::bench {
struct CudaCopyResult {
  double memcpy_gbs = 0, kernel_gbs = 0;
  std::string device;
};
CudaCopyResult cuda_copy_bandwidth(std::size_t bytes, int repeat);  // membw_cuda.cu
}  // namespace hemo::bench
namespace {
#endif

double cpu_copy_bandwidth(std::size_t bytes, int repeat) {
  const std::size_t n = bytes / sizeof(double);
  std::vector<double> a(n), b(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {  // first touch by the threads that copy later
    a[i] = double(i % 1000);
    b[i] = 0.0;
  }
  double best = 0.0;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) b[i] = a[i];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * double(bytes) / s / 1e9);
  }
  if (b[n / 2] != a[n / 2]) std::fprintf(stderr, "copy check failed\n");
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "cuda";
  std::size_t mib = 0;
  int repeat = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc) backend = argv[++i];
    else if (a == "--mib" && i + 1 < argc) mib = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: hemo_membw [--backend cpu|cuda] [--mib N] [--repeat N]\n");
      return 2;
    }
  }
  if (backend == "cpu") {
    if (!mib) mib = 1024;
    const double gbs = cpu_copy_bandwidth(mib << 20, repeat);
    std::printf("{\"backend\": \"cpu\", \"threads\": %d, \"buffer_mib\": %zu, \"copy_bandwidth_gbs\": %.1f}\n",
                omp_get_max_threads(), mib, gbs);
    return 0;
  }
#if HEMO_HAVE_CUDA
  if (!mib) mib = 4096;
  try {
    const auto r = hemo::bench::cuda_copy_bandwidth(mib << 20, repeat);
    std::printf("{\"backend\": \"cuda\", \"device\": \"%s\", \"buffer_mib\": %zu, \"memcpy_bandwidth_gbs\": %.1f, "
                "\"kernel_bandwidth_gbs\": %.1f, \"copy_bandwidth_gbs\": %.1f}\n",
                r.device.c_str(), mib, r.memcpy_gbs, r.kernel_gbs, std::max(r.memcpy_gbs, r.kernel_gbs));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
#else
  std::fprintf(stderr, "error: built without CUDA\n");
  return 1;
#endif
}
