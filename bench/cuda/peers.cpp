// bench/cuda/peers.cpp — CUB DeviceScan / DeviceReduce for int32, int64, float and double, and for
// every problem of the operators-and-types families (bench/support/problems.hpp: ExclusiveScan with
// the problem's operator and initial value, Reduce with them, ArgMin / ArgMax).
// Every CUDA call is checked; a failure throws std::runtime_error with CUDA's message.
// Compiled once against the toolkit's CUB (namespace kps::bench::cuda) and, where KPS_CCCL_ROOT names a
// newer CCCL, once more against it (cuda/peers_cccl.cpp: namespace kps::bench::cuda::cccl, CUB wrapped in
// a namespace of its own so that both live in one program).
#include "cuda/peers.hpp"

#include <type_traits>

#include "support/peers.hpp"
#include "support/problems.hpp"

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

/// A device buffer of `bytes` for one result, kept for the program's life (freed when Kokkos
/// finalizes): where CUB writes the reductions' values before the copy to the host.
void* result_slot(std::size_t bytes) {
  static Kokkos::View<unsigned char*, Kokkos::CudaSpace>* slot = nullptr;
  if (!slot || slot->extent(0) < bytes) {
    if (!slot) {
      Kokkos::push_finalize_hook([] {
        delete slot;
        slot = nullptr;
      });
      slot = new Kokkos::View<unsigned char*, Kokkos::CudaSpace>();
    }
    *slot = Kokkos::View<unsigned char*, Kokkos::CudaSpace>("kps::cub::op_result", bytes < 64 ? 64 : bytes);
  }
  return slot->data();
}

/// DeviceScan::ExclusiveScan with the problem's operator and initial value.
template <class Op, class T>
void cub_op_scan(const Kokkos::Cuda& exec, const T* in, T* out, std::size_t n, T init) {
  if (n == 0) return;
  with_count(n, [&](auto count) {
    std::size_t bytes = 0;
    check(CUB_NS_QUALIFIER::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, Op{}, init, count, exec.cuda_stream()),
          "DeviceScan size");
    void* temp = temp_storage(exec, bytes);
    check(CUB_NS_QUALIFIER::DeviceScan::ExclusiveScan(temp, bytes, in, out, Op{}, init, count, exec.cuda_stream()),
          "DeviceScan::ExclusiveScan");
  });
}

/// DeviceReduce::Reduce with the problem's operator and initial value, the value to the host.
template <class Op, class T>
T cub_op_reduce(const Kokkos::Cuda& exec, const T* in, std::size_t n, T init) {
  T* result = static_cast<T*>(result_slot(sizeof(T)));
  with_count(n, [&](auto count) {
    std::size_t bytes = 0;
    check(CUB_NS_QUALIFIER::DeviceReduce::Reduce(nullptr, bytes, in, result, count, Op{}, init, exec.cuda_stream()),
          "DeviceReduce size");
    void* temp = temp_storage(exec, bytes);
    check(CUB_NS_QUALIFIER::DeviceReduce::Reduce(temp, bytes, in, result, count, Op{}, init, exec.cuda_stream()),
          "DeviceReduce::Reduce");
  });
  T host{};
  check(cudaMemcpyAsync(&host, result, sizeof(T), cudaMemcpyDeviceToHost, exec.cuda_stream()), "copy result");
  return host;
}

/// DeviceReduce::ArgMin / ArgMax (the value and its index, as two outputs: CCCL's newer form).
template <bool Max, class T>
kps::ValueIndex<T> cub_arg(const Kokkos::Cuda& exec, const T* in, std::size_t n) {
  char* slot = static_cast<char*>(result_slot(16 + sizeof(T)));
  auto* index = reinterpret_cast<std::int64_t*>(slot);
  auto* value = reinterpret_cast<T*>(slot + 16);
  std::size_t bytes = 0;
  const auto count = static_cast<::cuda::std::int64_t>(n);
  if constexpr (Max) {
    check(CUB_NS_QUALIFIER::DeviceReduce::ArgMax(nullptr, bytes, in, value, index, count, exec.cuda_stream()),
          "DeviceReduce size");
    check(CUB_NS_QUALIFIER::DeviceReduce::ArgMax(temp_storage(exec, bytes), bytes, in, value, index, count,
                                                 exec.cuda_stream()),
          "DeviceReduce::ArgMax");
  } else {
    check(CUB_NS_QUALIFIER::DeviceReduce::ArgMin(nullptr, bytes, in, value, index, count, exec.cuda_stream()),
          "DeviceReduce size");
    check(CUB_NS_QUALIFIER::DeviceReduce::ArgMin(temp_storage(exec, bytes), bytes, in, value, index, count,
                                                 exec.cuda_stream()),
          "DeviceReduce::ArgMin");
  }
  kps::ValueIndex<T> host{};
  check(cudaMemcpyAsync(&host.index, index, sizeof(std::int64_t), cudaMemcpyDeviceToHost, exec.cuda_stream()),
        "copy index");
  check(cudaMemcpyAsync(&host.value, value, sizeof(T), cudaMemcpyDeviceToHost, exec.cuda_stream()), "copy value");
  return host;
}

/// This CUB's peers of every operator problem (problems.hpp), where the space is CUDA.
void add_op_peers(kps::bench::Peers& all) {
  using kps::bench::Exec;
  using kps::bench::OpPeer;
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    const auto rounds = kps::bench::Placement::rounds;
#define KPS_CUB_OP_SCAN(OP, T)                                                                                  \
  all.add_op(kps::bench::scan_key<OP, T>(),                                                                     \
             OpPeer{KPS_CUB_PEER_NAME,                                                                          \
                    [](const Exec& e, const void* in, void* out, std::size_t n, const void* init) {             \
                      cub_op_scan<OP, T>(e, static_cast<const T*>(in), static_cast<T*>(out), n,                 \
                                         *static_cast<const T*>(init));                                         \
                    },                                                                                          \
                    rounds, false, {}});
#define KPS_CUB_OP_REDUCE(OP, T)                                                                                \
  all.add_op(kps::bench::reduce_key<OP, T>(),                                                                   \
             OpPeer{KPS_CUB_PEER_NAME,                                                                          \
                    [](const Exec& e, const void* in, void* out, std::size_t n, const void* init) {             \
                      *static_cast<T*>(out) = cub_op_reduce<OP, T>(e, static_cast<const T*>(in), n,             \
                                                                   *static_cast<const T*>(init));               \
                    },                                                                                          \
                    rounds, true, {}});
#define KPS_CUB_OP_ARG(T)                                                                                       \
  all.add_op(kps::bench::arg_key<T>(false),                                                                     \
             OpPeer{KPS_CUB_PEER_NAME,                                                                          \
                    [](const Exec& e, const void* in, void* out, std::size_t n, const void*) {                  \
                      *static_cast<kps::ValueIndex<T>*>(out) = cub_arg<false, T>(e, static_cast<const T*>(in), n); \
                    },                                                                                          \
                    rounds, true, {}});                                                                         \
  all.add_op(kps::bench::arg_key<T>(true),                                                                      \
             OpPeer{KPS_CUB_PEER_NAME,                                                                          \
                    [](const Exec& e, const void* in, void* out, std::size_t n, const void*) {                  \
                      *static_cast<kps::ValueIndex<T>*>(out) = cub_arg<true, T>(e, static_cast<const T*>(in), n); \
                    },                                                                                          \
                    rounds, true, {}});
    KPS_BENCH_SCANS(KPS_CUB_OP_SCAN)
    KPS_BENCH_REDUCTIONS(KPS_CUB_OP_REDUCE)
    KPS_BENCH_ARG_EXTREMA(KPS_CUB_OP_ARG)
#undef KPS_CUB_OP_SCAN
#undef KPS_CUB_OP_REDUCE
#undef KPS_CUB_OP_ARG
  } else {
    (void)all;
  }
}

#if defined(CCCL_MAJOR_VERSION) && (CCCL_MAJOR_VERSION * 100 + CCCL_MINOR_VERSION >= 305)
#define KPS_CUB_DETERMINISTIC_SCAN 1
/// The temporary storage of these peers as a CCCL memory resource (cuda::mr::resource): CUB's
/// calls that take an execution environment instead of a buffer allocate through it, which here
/// hands out the buffer the other calls reuse (CUB's default resource would cudaMallocAsync and
/// cudaFree in every timed call).
struct TempResource {
  const Kokkos::Cuda* exec;
  void* allocate_sync(std::size_t bytes, std::size_t) { return temp_storage(*exec, bytes); }
  void deallocate_sync(void*, std::size_t, std::size_t) noexcept {}
  void* allocate(::cuda::stream_ref, std::size_t bytes, std::size_t) { return temp_storage(*exec, bytes); }
  void deallocate(::cuda::stream_ref, void*, std::size_t, std::size_t) noexcept {}
  bool operator==(const TempResource&) const noexcept { return true; }
  bool operator!=(const TempResource&) const noexcept { return false; }
};

/// DeviceScan::ExclusiveSum required to be run-to-run deterministic (CCCL 3.5: for floating-point
/// sums a fixed reduction order; on sm_90 the warp-specialized lookahead kernel), the peer of
/// kps' ScanOptions::deterministic.
template <class T>
void cub_deterministic_exclusive_sum(const Kokkos::Cuda& exec, const T* in, T* out, std::size_t n) {
  if (n == 0) return;
  with_count(n, [&](auto count) {
    const auto env = ::cuda::std::execution::env{
        ::cuda::stream_ref{exec.cuda_stream()},
        ::cuda::execution::require(::cuda::execution::determinism::run_to_run),
        ::cuda::std::execution::prop{::cuda::mr::get_memory_resource, TempResource{&exec}}};
    check(CUB_NS_QUALIFIER::DeviceScan::ExclusiveSum(in, out, count, env), "DeviceScan::ExclusiveSum (run_to_run)");
  });
}
#endif

/// This CUB's scan and sum as peers of the benchmarks' space, where it is CUDA; a CUB with a
/// run-to-run deterministic scan adds it (<name>_deterministic) for the floating-point types.
template <class T>
void add_peers(kps::bench::Peers& all) {
  using kps::bench::Exec;
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    all.add(kps::bench::ScanPeer<T>{KPS_CUB_PEER_NAME, [](const Exec& e, const T* in, T* out, std::size_t n) {
                                      cub_exclusive_sum(e, in, out, n);
                                    }, kps::bench::Placement::rounds, false, {}});
#ifdef KPS_CUB_DETERMINISTIC_SCAN
    if constexpr (std::is_floating_point_v<T>)
      all.add(kps::bench::ScanPeer<T>{KPS_CUB_PEER_NAME "_deterministic",
                                      [](const Exec& e, const T* in, T* out, std::size_t n) {
                                        cub_deterministic_exclusive_sum(e, in, out, n);
                                      }, kps::bench::Placement::rounds, false, {}});
#endif
    all.add(kps::bench::SumPeer<T>{KPS_CUB_PEER_NAME,
                                   [](const Exec& e, const T* x, std::size_t n) { return cub_sum(e, x, n); },
                                   [](const Exec& e, const T* x, std::size_t n, T* r) { cub_sum(e, x, r, n); },
                                   kps::bench::Placement::rounds, true, {}});
  }
}

[[maybe_unused]] const int registered = kps::bench::add_peer_provider(KPS_CUB_PEER_RANK, [](kps::bench::Peers& all) {
  if constexpr (std::is_same_v<kps::bench::Exec, Kokkos::Cuda>) all.note(KPS_CUB_PEER_NAME " is " + cub_version());
  add_peers<std::int32_t>(all);
  add_peers<std::int64_t>(all);
  add_peers<float>(all);
  add_peers<double>(all);
  add_op_peers(all);
});

}  // namespace

}  // namespace KPS_CUB_PEER_NAMESPACE
