// bench/cuda/peers.cpp — CUB DeviceScan / DeviceReduce for int32, int64, float and double.
// Every CUDA call is checked; a failure throws std::runtime_error with CUDA's message.
// Compiled once against the toolkit's CUB (namespace kps::bench::cuda) and, where KPS_CCCL_ROOT names a
// newer CCCL, once more against it (cuda/peers_cccl.cpp: namespace kps::bench::cuda::cccl, CUB wrapped in
// a namespace of its own so that both live in one program).
#include "cuda/peers.hpp"

#include <type_traits>

#include "support/peers.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>
#if __has_include(<cuda/version>)
#include <cuda/version>  // CCCL 2 and later
#endif

#ifndef KPS_CUB_PEER_NAMESPACE
#define KPS_CUB_PEER_NAMESPACE kps::bench::cuda
#endif
// The peers' name in the benchmarks (scan/<name>/..., ratio_to_<name>) and their place among the
// peers (support/peers.hpp: providers run in rank order).
#ifndef KPS_CUB_PEER_NAME
#define KPS_CUB_PEER_NAME "cub"
#define KPS_CUB_PEER_RANK 0
#endif

namespace KPS_CUB_PEER_NAMESPACE {

/// "CCCL 3.0.1" (or "CUB 1.17.2" before CCCL): the CUB these peers were compiled against.
std::string cub_version() {
#if defined(CCCL_MAJOR_VERSION)
  return "CCCL " + std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
         std::to_string(CCCL_PATCH_VERSION);
#else
  return "CUB " + std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) + "." +
         std::to_string(CUB_SUBMINOR_VERSION);
#endif
}

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("kps CUB peer: ") + what + ": " + cudaGetErrorString(e));
}

/// Temporary storage reused across calls; freed when Kokkos finalizes.
void* temp_storage(const Kokkos::Cuda& exec, std::size_t bytes) {
  static Kokkos::View<unsigned char*, Kokkos::CudaSpace>* buffer = nullptr;
  if (!buffer) {
    buffer = new Kokkos::View<unsigned char*, Kokkos::CudaSpace>();  // one per CUB peer
    Kokkos::push_finalize_hook([] {
      delete buffer;
      buffer = nullptr;
    });
  }
  if (buffer->extent(0) < bytes) {
    exec.fence();
    *buffer = {};
    *buffer = Kokkos::View<unsigned char*, Kokkos::CudaSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::cub::temp"), bytes);
  }
  return buffer->data();
}

/// Calls `f(count)` with n as a 32-bit count where it fits, else 64-bit: CUB picks its offset
/// type from the count's type (cub/detail/choose_offset.cuh), and its 32-bit-offset kernels are
/// the faster ones (DeviceReduce::Sum on sm_90: 32 registers and 5280 blocks at 2^26 int32,
/// against 40 registers and 3960 blocks with a 64-bit count). The usual call passes an int.
template <class F>
void with_count(std::size_t n, F&& f) {
  if (n <= std::numeric_limits<std::uint32_t>::max())
    f(static_cast<std::uint32_t>(n));
  else
    f(static_cast<std::uint64_t>(n));
}

}  // namespace

template <class T>
void cub_exclusive_sum(const Kokkos::Cuda& exec, const T* in, T* out, std::size_t n) {
  if (n == 0) return;
  with_count(n, [&](auto count) {
    std::size_t bytes = 0;
    check(CUB_NS_QUALIFIER::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, count, exec.cuda_stream()), "DeviceScan size");
    void* temp = temp_storage(exec, bytes);
    check(CUB_NS_QUALIFIER::DeviceScan::ExclusiveSum(temp, bytes, in, out, count, exec.cuda_stream()), "DeviceScan::ExclusiveSum");
  });
}

template <class T>
void cub_sum(const Kokkos::Cuda& exec, const T* in, T* out, std::size_t n) {
  with_count(n, [&](auto count) {
    std::size_t bytes = 0;
    check(CUB_NS_QUALIFIER::DeviceReduce::Sum(nullptr, bytes, in, out, count, exec.cuda_stream()), "DeviceReduce size");
    void* temp = temp_storage(exec, bytes);
    check(CUB_NS_QUALIFIER::DeviceReduce::Sum(temp, bytes, in, out, count, exec.cuda_stream()), "DeviceReduce::Sum");
  });
}

template <class T>
T cub_sum(const Kokkos::Cuda& exec, const T* in, std::size_t n) {
  if (n == 0) return T(0);
  // The result lives in a buffer of its own (the temporary storage may move when it grows).
  static Kokkos::View<unsigned char*, Kokkos::CudaSpace>* result_buffer = nullptr;
  if (!result_buffer) {
    result_buffer = new Kokkos::View<unsigned char*, Kokkos::CudaSpace>("kps::cub::result", 16);
    Kokkos::push_finalize_hook([] {
      delete result_buffer;
      result_buffer = nullptr;
    });
  }
  T* result = reinterpret_cast<T*>(result_buffer->data());
  cub_sum(exec, in, result, n);
  // The sum to the host as CUB's users take it: a copy into ordinary (pageable) host memory,
  // which returns only once the copy is done (CUDA's "API synchronization behavior"); a
  // synchronize after it would find the stream idle and cost one more round trip to the driver.
  T host = T(0);
  check(cudaMemcpyAsync(&host, result, sizeof(T), cudaMemcpyDeviceToHost, exec.cuda_stream()), "copy result");
  return host;
}

#define KPS_CUB_INSTANTIATE(T)                                                              \
  template void cub_exclusive_sum<T>(const Kokkos::Cuda&, const T*, T*, std::size_t); \
  template T cub_sum<T>(const Kokkos::Cuda&, const T*, std::size_t);                 \
  template void cub_sum<T>(const Kokkos::Cuda&, const T*, T*, std::size_t);
KPS_CUB_INSTANTIATE(std::int32_t)
KPS_CUB_INSTANTIATE(std::int64_t)
KPS_CUB_INSTANTIATE(float)
KPS_CUB_INSTANTIATE(double)

namespace {

/// This CUB's scan and sum as peers of the benchmarks' space, where it is CUDA.
template <class T>
void add_peers(kps::bench::Peers& all) {
  using kps::bench::Exec;
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    all.add(kps::bench::ScanPeer<T>{KPS_CUB_PEER_NAME, [](const Exec& e, const T* in, T* out, std::size_t n) {
                                      cub_exclusive_sum(e, in, out, n);
                                    }, kps::bench::Placement::rounds, false, {}});
    all.add(kps::bench::SumPeer<T>{KPS_CUB_PEER_NAME,
                                   [](const Exec& e, const T* x, std::size_t n) { return cub_sum(e, x, n); },
                                   [](const Exec& e, const T* x, std::size_t n, T* r) { cub_sum(e, x, r, n); },
                                   kps::bench::Placement::rounds, true, {}});
  }
}

[[maybe_unused]] const int registered = kps::bench::add_peer_provider(KPS_CUB_PEER_RANK, [](kps::bench::Peers& all) {
  add_peers<std::int32_t>(all);
  add_peers<std::int64_t>(all);
  add_peers<float>(all);
  add_peers<double>(all);
});

}  // namespace

}  // namespace KPS_CUB_PEER_NAMESPACE
