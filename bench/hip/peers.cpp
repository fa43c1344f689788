// bench/hip/peers.cpp — the GPU peers of a HIP build: hipCUB's DeviceScan / DeviceReduce (over
// rocPRIM) for int32, int64, float and double, where the build found hipCUB (KPS_HIPCUB, from
// bench/CMakeLists.txt); without it, one note in the JSON context saying that the peers are left
// out and why. Every HIP call is checked; a failure throws std::runtime_error with HIP's message.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "support/peers.hpp"

#if defined(KPS_HIPCUB)
#include <hipcub/hipcub.hpp>
#endif

namespace kps::bench::hip {
namespace {

/// The rank of the GPU vendor's library among the peers (support/peers.hpp), as CUB's on CUDA.
constexpr int hipcub_rank = 0;

#if defined(KPS_HIPCUB)
void check(hipError_t e, const char* what) {
  if (e != hipSuccess) throw std::runtime_error(std::string("kps hipCUB peer: ") + what + ": " + hipGetErrorString(e));
}

/// Temporary storage reused across calls; freed when Kokkos finalizes.
void* temp_storage(const Kokkos::HIP& exec, std::size_t bytes) {
  static Kokkos::View<unsigned char*, Kokkos::HIPSpace>* buffer = nullptr;
  if (!buffer) {
    buffer = new Kokkos::View<unsigned char*, Kokkos::HIPSpace>();
    Kokkos::push_finalize_hook([] {
      delete buffer;
      buffer = nullptr;
    });
  }
  if (buffer->extent(0) < bytes) {
    exec.fence();
    *buffer = {};
    *buffer = Kokkos::View<unsigned char*, Kokkos::HIPSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::hipcub::temp"),
                                                             bytes);
  }
  return buffer->data();
}

template <class T>
void exclusive_sum(const Kokkos::HIP& exec, const T* in, T* out, std::size_t n) {
  if (n == 0) return;
  std::size_t bytes = 0;
  check(hipcub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, exec.hip_stream()), "DeviceScan size");
  check(hipcub::DeviceScan::ExclusiveSum(temp_storage(exec, bytes), bytes, in, out, n, exec.hip_stream()),
        "DeviceScan::ExclusiveSum");
}

template <class T>
void sum_into(const Kokkos::HIP& exec, const T* in, T* out, std::size_t n) {
  std::size_t bytes = 0;
  check(hipcub::DeviceReduce::Sum(nullptr, bytes, in, out, n, exec.hip_stream()), "DeviceReduce size");
  check(hipcub::DeviceReduce::Sum(temp_storage(exec, bytes), bytes, in, out, n, exec.hip_stream()), "DeviceReduce::Sum");
}

template <class T>
T sum(const Kokkos::HIP& exec, const T* in, std::size_t n) {
  if (n == 0) return T(0);
  static Kokkos::View<T, Kokkos::HIPSpace>* result = nullptr;
  if (!result) {
    result = new Kokkos::View<T, Kokkos::HIPSpace>("kps::hipcub::result");
    Kokkos::push_finalize_hook([] {
      delete result;
      result = nullptr;
    });
  }
  sum_into(exec, in, result->data(), n);
  T host = T(0);
  check(hipMemcpyAsync(&host, result->data(), sizeof(T), hipMemcpyDeviceToHost, exec.hip_stream()), "copy result");
  check(hipStreamSynchronize(exec.hip_stream()), "synchronize");
  return host;
}

template <class T>
void add_peers(Peers& all) {
  if constexpr (std::is_same_v<Exec, Kokkos::HIP>) {
    all.add(ScanPeer<T>{"hipcub", [](const Exec& e, const T* in, T* out, std::size_t n) { exclusive_sum(e, in, out, n); }});
    all.add(SumPeer<T>{"hipcub", [](const Exec& e, const T* x, std::size_t n) { return sum(e, x, n); },
                       [](const Exec& e, const T* x, std::size_t n, T* r) { sum_into(e, x, r, n); }, Placement::rounds,
                       true});
  }
}
#endif

[[maybe_unused]] const int registered = add_peer_provider(hipcub_rank, [](Peers& all) {
#if defined(KPS_HIPCUB)
  add_peers<std::int32_t>(all);
  add_peers<std::int64_t>(all);
  add_peers<float>(all);
  add_peers<double>(all);
#else
  if constexpr (std::is_same_v<Exec, Kokkos::HIP>)
    all.note("hipcub: not found at configure time (ROCm's hipCUB and rocPRIM; Debian 12 has neither): the GPU "
             "vendor's scan and sum are left out");
#endif
});

}  // namespace
}  // namespace kps::bench::hip
