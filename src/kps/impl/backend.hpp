// kps/impl/backend.hpp — the few device facilities whose best form depends on the backend,
// behind traits that portable kernels call without naming a backend:
//   BackendMath<Exec>::cos / fast_cos — accurate single-precision cos everywhere; fast_cos is
//     a hardware approximation where the backend has one (has_fast_cos), else the accurate one;
//   BackendClock<Exec>::now() — a per-thread clock for fixed-duration spins (ticks_are_cycles
//     says whether its ticks are core cycles or nanoseconds).
// Backends specialize the traits in their own folder (kps/cuda/backend.hpp).
#pragma once

#include <chrono>
#include <cmath>

#include <Kokkos_Core.hpp>

namespace kps::impl {

/// Accurate single-precision cos through Kokkos' math functions (Kokkos 3.4 keeps them in
/// Kokkos::Experimental; 3.6 and later in Kokkos, where the Experimental names are deprecated).
KOKKOS_INLINE_FUNCTION float kokkos_cos(float x) {
#if KOKKOS_VERSION >= 30600
  return Kokkos::cos(x);
#else
  return Kokkos::Experimental::cos(x);
#endif
}

template <class Exec>
struct BackendMath {
  static constexpr bool has_fast_cos = false;
  KOKKOS_INLINE_FUNCTION static float cos(float x) { return kokkos_cos(x); }
  KOKKOS_INLINE_FUNCTION static float fast_cos(float x) { return kokkos_cos(x); }
};

/// Host backends: the steady clock, in nanoseconds. (Marked host-device only so that a CUDA
/// compiler accepts it inside portable functors; the device pass never runs it.)
template <class Exec>
struct BackendClock {
  static constexpr bool ticks_are_cycles = false;
  KOKKOS_INLINE_FUNCTION static long long now() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
    return 0;
#else
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
#endif
  }
};

}  // namespace kps::impl

#if defined(KOKKOS_ENABLE_CUDA)
#include "kps/cuda/backend.hpp"
#endif
