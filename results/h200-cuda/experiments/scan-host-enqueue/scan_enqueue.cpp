// scan_enqueue.cpp — where the time of an exclusive scan of 8-byte values goes on CUDA, kps'
// `automatic` against the toolkit's CUB (DeviceScan::ExclusiveSum, temporary storage allocated
// once): the host's part of the call (the call returns once its launches are queued: timed with
// a fence after it, outside the time), the GPU's part (CUDA events around the call), and the
// round trip (call + fence, host clock). Sizes 2^22..2^24, int64 and double, interleaved
// repetitions (301), median and 10th / 90th percentiles; each result checked once.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include "kps/scan.hpp"

using Exec = Kokkos::Cuda;
using clk = std::chrono::steady_clock;

__global__ void empty_kernel() {}

static double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::size_t(p * double(v.size() - 1))];
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class T>
void run(const Exec& exec, const char* type, std::size_t n) {
  Kokkos::View<T*, Kokkos::CudaSpace> in("in", n), out("out", n), ref("ref", n);
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(std::size_t i) { in(i) = T(i % 7); });
  void* temp = nullptr;
  std::size_t bytes = 0;
  const cudaStream_t s = exec.cuda_stream();
  check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in.data(), ref.data(), int(n), s), "size");
  check(cudaMalloc(&temp, bytes), "temp");
  const auto kps_call = [&] { kps::exclusive_scan(exec, in, out); };
  const auto cub_call = [&] { check(cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), ref.data(), int(n), s), "scan"); };
  kps_call();
  cub_call();
  exec.fence();
  long bad = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(exec, 0, n),
                          KOKKOS_LAMBDA(std::size_t i, long& b) { b += out(i) != ref(i); }, bad);
  if (bad) {
    std::fprintf(stderr, "%s %zu: %ld elements differ from CUB's\n", type, n, bad);
    std::exit(1);
  }
  struct Case { const char* name; std::function<void()> call; };
  const std::vector<Case> cases{{"kps automatic", kps_call}, {"CUB ExclusiveSum", cub_call},
                                {"empty kernel", [&] { empty_kernel<<<1, 32, 0, s>>>(); }}};
  std::vector<std::vector<double>> host(cases.size()), gpu(cases.size()), trip(cases.size());
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  for (int rep = 0; rep < 301; ++rep)
    for (std::size_t j = 0; j < cases.size(); ++j) {
      const std::size_t k = (j + rep) % cases.size();
      exec.fence();
      auto t0 = clk::now();
      cases[k].call();
      auto t1 = clk::now();
      exec.fence();
      auto t2 = clk::now();
      host[k].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      trip[k].push_back(std::chrono::duration<double, std::micro>(t2 - t0).count());
      check(cudaEventRecord(e0, s), "record");
      cases[k].call();
      check(cudaEventRecord(e1, s), "record");
      check(cudaEventSynchronize(e1), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
      gpu[k].push_back(1000.0 * ms);
    }
  for (std::size_t k = 0; k < cases.size(); ++k)
    std::printf("%-6s 2^%d %-18s host %6.2f [%6.2f %6.2f]  gpu %8.2f [%8.2f %8.2f]  call+fence %8.2f [%8.2f %8.2f] us\n",
                type, int(std::log2(double(n))), cases[k].name, pct(host[k], .5), pct(host[k], .1), pct(host[k], .9),
                pct(gpu[k], .5), pct(gpu[k], .1), pct(gpu[k], .9), pct(trip[k], .5), pct(trip[k], .1), pct(trip[k], .9));
  cudaFree(temp);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const Exec exec;
  for (int e : {22, 23, 24}) {
    run<std::int64_t>(exec, "int64", std::size_t(1) << e);
    run<double>(exec, "double", std::size_t(1) << e);
  }
  return 0;
}
