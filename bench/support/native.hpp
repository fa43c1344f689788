// bench/support/native.hpp — what a backend offers the studies beyond the portable kernels, as
// one trait the fixtures ask without naming a backend: Native<Exec>. The generic form below has
// nothing (each `has_` is false; each call throws NoNative, each query answers "unknown"); a
// backend folder specializes it (bench/cuda/native.hpp: the native CUDA twins of the study
// kernels, cudaFuncGetAttributes of the kernels Kokkos launches, the runtime's occupancy, where
// the hardware puts a grid, a hardware count of active warps).
//   has_kernels     cos_loop / cos_loop_attributes (latency study), spin / spin_attributes /
//                   spin_register_variants / spin_max_active_blocks (occupancy study), reduce
//                   (kps::reduce_sum's kernel without Kokkos: reduce_async/native)
//   has_attributes  team_for_attributes<Functor, Policy>(): registers and static shared memory of
//                   the kernel behind parallel_for(TeamPolicy); team_for_resources and
//                   team_reduce_resources: the same with the runtime's resident blocks per SM
//   has_placement   block_placement: the SM of every block and the warp slot of every warp
//   has_warp_count  WarpCount: a TileScanKernel counter of the warps active at each step
//   has_event_timer EventTimer: the device's own clock around a call (start, stop, seconds)
// (the same pattern as the library's backend traits, src/kps/impl/backend.hpp).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "kps/knobs.hpp"
#include "kernels/cos_loop.hpp"
#include "support/kernel_info.hpp"

namespace kps::bench {

/// What a call of Native's generic form throws: the backend has no such twin or probe.
struct NoNative : std::invalid_argument {
  explicit NoNative(const std::string& what) : std::invalid_argument("no " + what + " on this backend") {}
};

template <class Exec, class Enable = void>
struct Native {
  static constexpr bool has_kernels = false;
  static constexpr bool has_attributes = false;
  static constexpr bool has_placement = false;
  static constexpr bool has_warp_count = false;
  static constexpr bool has_event_timer = false;

  static void cos_loop(const Exec&, const CosLoopConfig&, int*) { throw NoNative("native cos loop"); }
  static KernelAttributes cos_loop_attributes(int, CosMath) { return {}; }

  static std::vector<int> spin_register_variants() { return {}; }
  static void spin(const Exec&, int, int, int, long long, std::size_t, long long*) { throw NoNative("native spin"); }
  static KernelAttributes spin_attributes(int) { return {}; }
  static int spin_max_active_blocks(int, int, std::size_t) { return -1; }

  template <class T>
  static void reduce(const Exec&, const T*, std::size_t, const ReducePolicy&, T*) {
    throw NoNative("native reduction");
  }

  template <class Functor, class Policy>
  static KernelAttributes team_for_attributes() {
    return {};
  }
  template <class Functor, class Policy>
  static LaunchResources team_for_resources(int, std::size_t) {
    throw NoNative("kernel resources");
  }
  template <class Kernel, class Policy, class Value>
  static LaunchResources team_reduce_resources(int, std::size_t) {
    throw NoNative("kernel resources");
  }

  static BlockPlacement block_placement(const Exec&, int, int, long long) { throw NoNative("placement probe"); }
};

}  // namespace kps::bench

// The backend folders specialize Native.
#if defined(KOKKOS_ENABLE_CUDA)
#include "cuda/native.hpp"
#endif
