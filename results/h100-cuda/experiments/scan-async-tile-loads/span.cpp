// Look-back span experiment: the single pass (table defaults) with span 1, 2, 4 against CUB,
// interleaved rounds, each call after an L2 flush, host wall time around call + fence.
#include <Kokkos_Core.hpp>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>
#include "kps/scan/dispatch.hpp"

using Exec = Kokkos::Cuda;
template <class T> using V = Kokkos::View<T*, Kokkos::CudaSpace>;

template <class T, int S>
void run_span(const Exec& e, const T* in, T* out, std::size_t n, kps::impl::Workspace<Exec>& ws, kps::SinglePassPolicy p) {
  kps::impl::single_pass_scan<Exec, T, kps::impl::NoProbe, S>(e, in, out, n, true, p, ws);
}

template <class T>
void study(std::size_t n, const char* tname, int rounds) {
  Exec e;
  V<T> in("in", n), out("out", n), flush("flush", (std::size_t(256) << 20) / sizeof(T));
  auto h = Kokkos::create_mirror_view(in);
  std::mt19937 g(1234 + n);
  for (std::size_t i = 0; i < n; ++i) h(i) = std::is_integral_v<T> ? T(g() % 100) : T((g() % 1000) / 100.0);
  Kokkos::deep_copy(in, h);
  std::vector<double> ref(n);
  double acc = 0;
  for (std::size_t i = 0; i < n; ++i) { ref[i] = acc; acc += double(h(i)); }
  kps::impl::Workspace<Exec> ws;
  void* tmp = nullptr; std::size_t tmp_bytes = 0;
  cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in.data(), out.data(), int(n), e.cuda_stream());
  cudaMalloc(&tmp, tmp_bytes);
  const kps::SinglePassPolicy p{};
  std::vector<std::function<void()>> calls{
      [&] { run_span<T, 1>(e, in.data(), out.data(), n, ws, p); },
      [&] { run_span<T, 2>(e, in.data(), out.data(), n, ws, p); },
      [&] { run_span<T, 4>(e, in.data(), out.data(), n, ws, p); },
      [&] { cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in.data(), out.data(), int(n), e.cuda_stream()); }};
  const char* names[] = {"span1", "span2", "span4", "cub"};
  for (std::size_t c = 0; c < calls.size(); ++c) {  // check
    Kokkos::deep_copy(out, T(-7));
    calls[c](); e.fence();
    auto ho = Kokkos::create_mirror_view(out); Kokkos::deep_copy(ho, out);
    for (std::size_t i = 0; i < n; ++i) {
      const double d = std::abs(double(ho(i)) - ref[i]);
      if (d > 1e-6 * std::max(1.0, std::abs(ref[i])) * (std::is_integral_v<T> ? 0 : 1) + (std::is_integral_v<T> ? 0.5 : 0)) {
        std::printf("WRONG %s %s n=%zu at %zu: %g vs %g\n", names[c], tname, n, i, double(ho(i)), ref[i]); std::exit(3);
      }
    }
  }
  std::vector<std::vector<double>> t(calls.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const std::size_t c = (k + r) % calls.size();
      Kokkos::deep_copy(e, flush, T(r)); e.fence();
      auto t0 = std::chrono::steady_clock::now();
      calls[c](); e.fence();
      t[c].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
  std::vector<double> med;
  for (auto& v : t) { std::sort(v.begin(), v.end()); med.push_back(v[v.size() / 2]); }
  std::printf("%-6s 2^%-2d", tname, int(std::log2(double(n))));
  for (std::size_t c = 0; c < calls.size(); ++c) std::printf("  %s %7.1f", names[c], med[c]);
  std::printf("  | cub/span1 %.3f cub/span2 %.3f cub/span4 %.3f\n", med[3] / med[0], med[3] / med[1], med[3] / med[2]);
  cudaFree(tmp);
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const int rounds = 101;
  for (int k = 18; k <= 26; ++k) {
    study<int>(std::size_t(1) << k, "int32", rounds);
    study<double>(std::size_t(1) << k, "double", rounds);
  }
  for (int k = 18; k <= 26; ++k) {  // again: the spread between two passes
    study<int>(std::size_t(1) << k, "int32", rounds);
    study<double>(std::size_t(1) << k, "double", rounds);
  }
}
