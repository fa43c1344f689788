// bench/cuda/native.hpp — Native<Kokkos::Cuda> (support/native.hpp): the native CUDA twins of the
// study kernels (cuda/native_kernels.hpp), cudaFuncGetAttributes and the runtime's occupancy of
// the kernels Kokkos launches (cuda/kokkos_launch.hpp), the placement probe, the hardware's
// active-warp count (cuda/warp_count.hpp) and CUDA events as the device's clock (cuda/event_timer.hpp). Included by support/native.hpp where Kokkos has CUDA.
#pragma once

#include <stdexcept>

#include "cuda/event_timer.hpp"
#include "cuda/kokkos_launch.hpp"
#include "cuda/native_kernels.hpp"
#include "cuda/warp_count.hpp"

namespace kps::bench {

template <>
struct Native<Kokkos::Cuda> {
  static constexpr bool has_kernels = true;
  static constexpr bool has_attributes = true;
  static constexpr bool has_placement = true;
  static constexpr bool has_warp_count = true;
  static constexpr bool has_event_timer = true;
  using WarpCount = cuda::HardwareWarpCount;
  using EventTimer = cuda::EventTimer;

  static void cos_loop(const Kokkos::Cuda& exec, const CosLoopConfig& cfg, int* out) {
    cuda::cos_loop_native(exec, cfg, out);
  }
  static KernelAttributes cos_loop_attributes(int chains, CosMath math) {
    return cuda::cos_loop_native_attributes(chains, math);
  }

  static std::vector<int> spin_register_variants() { return cuda::spin_register_variants(); }
  static void spin(const Kokkos::Cuda& exec, int registers, int blocks, int threads, long long cycles,
                   std::size_t dynamic_smem, long long* out) {
    cuda::spin_native(exec, registers, blocks, threads, cycles, dynamic_smem, out);
  }
  static KernelAttributes spin_attributes(int registers) { return cuda::spin_native_attributes(registers); }
  static int spin_max_active_blocks(int registers, int threads, std::size_t dynamic_smem) {
    return cuda::spin_native_max_active_blocks(registers, threads, dynamic_smem);
  }

  template <class T>
  static void reduce(const Kokkos::Cuda& exec, const T* x, std::size_t n, const ReducePolicy& policy, T* out) {
    cuda::reduce_native(exec, x, n, policy, out);
  }

  template <class Functor, class Policy>
  static KernelAttributes team_for_attributes() {
    return cuda::kokkos_team_for_attributes<Functor, Policy>(Kokkos::Cuda());
  }
  /// The kernel behind parallel_for(Policy, Functor) and the runtime's resident blocks per SM with
  /// `team_size` threads and `dynamic_smem` bytes of dynamic shared memory per block.
  template <class Functor, class Policy>
  static LaunchResources team_for_resources(int team_size, std::size_t dynamic_smem) {
    return resources<cuda::TeamForLaunch<Functor, Policy>>(team_size, dynamic_smem);
  }
  /// The same for parallel_reduce(Policy, Kernel, Value&) (Kokkos 4.1 and later: the reduce
  /// driver's type is not reachable before).
  template <class Kernel, class Policy, class Value>
  static LaunchResources team_reduce_resources(int team_size, std::size_t dynamic_smem) {
#if KOKKOS_VERSION >= 40100
    return resources<cuda::TeamReduceLaunch<Kernel, Policy, Value>>(team_size, dynamic_smem);
#else
    (void)team_size, (void)dynamic_smem;
    throw std::runtime_error("reading the registers of a Kokkos reduction kernel needs Kokkos 4.1 or later "
                             "(cuobjdump --dump-resource-usage kps-bench shows them)");
#endif
  }

  static BlockPlacement block_placement(const Kokkos::Cuda& exec, int blocks, int threads, long long cycles) {
    return cuda::block_placement(exec, blocks, threads, cycles);
  }

 private:
  template <class Launch>
  static LaunchResources resources(int team_size, std::size_t dynamic_smem) {
    return {cuda::launch_attributes<Launch>(Kokkos::Cuda()), cuda::launch_max_active_blocks<Launch>(team_size, dynamic_smem)};
  }
};

}  // namespace kps::bench
