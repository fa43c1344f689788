// bench/cuda/warp_count.hpp — the active-warp counter of the scan study, measured by the hardware:
// plugged into kps::team_inclusive_scan as its Count, it adds one per step for every warp that
// executes the step's active branch with at least one thread (the lowest thread of
// __activemask() counts it). The portable kps::WarpCount counts logical groups of lanes; this
// one counts the GPU's warps as they run, so a layout that scattered the active lanes over more
// warps than the analytic count assumes would show here. CUDA builds only.
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include "kps/team/team_scan.hpp"

namespace kps::bench::cuda {

struct HardwareWarpCount {
  int* counts;  // one per step, on the device
  KOKKOS_INLINE_FUNCTION void operator()(int step, int /*lane*/, LaneRange) const {
#if defined(__CUDA_ARCH__)
    const unsigned active = __activemask();
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    if (lane == static_cast<unsigned>(__ffs(active) - 1)) atomicAdd(&counts[step], 1);
#else
    (void)step;
#endif
  }
};

}  // namespace kps::bench::cuda
#endif
