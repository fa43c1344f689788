// kps/hip/backend.hpp — the HIP forms of kps' backend traits (kps/impl/backend.hpp), which includes
// this header on every build: it specializes them only where Kokkos has HIP. The host pass of these
// host-device functions falls back to the generic forms.
//   BackendMath: fast_cos is __cosf (the GPU's native cosine, v_cos_f32 after a multiply by
//     1/(2 pi)); cos is cosf (the device library's range reduction and polynomial).
//   BackendClock: clock64(), the compute unit's shader clock (s_memtime), in cycles.
//   BackendWait: s_sleep, which gives the wavefront's issue slots to the compute unit's other
//     wavefronts for about 64 cycles a step (its argument is an immediate, so longer sleeps are
//     repeated steps).
//   Lanes: a wavefront is 64 lanes on CDNA (gfx90a, gfx942); Kokkos::TeamPolicy<HIP>'s
//     vector_length_max() says so, and kps' kernels ask it (kps/scan/dispatch.hpp).
//   Team order: not assumed. rocPRIM's look-back scan takes its tile ids from an atomic counter in
//     start order, and so does kps' single pass wherever BackendTeamOrder is generic.
//   Prefetch, 16-byte status words, streaming stores: the generic forms (none, two 8-byte relaxed
//     accesses, ordinary stores).
//   KPS_IMPL_ROLLED_LOOP: `#pragma unroll 1` in device code, as on CUDA.
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#if defined(__HIP_DEVICE_COMPILE__)
#define KPS_IMPL_ROLLED_LOOP _Pragma("unroll 1")
#endif

namespace kps::impl {

template <>
struct BackendMath<Kokkos::HIP> {
  static constexpr bool has_fast_cos = true;
  KOKKOS_INLINE_FUNCTION static float cos(float x) {
#if defined(__HIP_DEVICE_COMPILE__)
    return ::cosf(x);
#else
    return kokkos_cos(x);
#endif
  }
  KOKKOS_INLINE_FUNCTION static float fast_cos(float x) {
#if defined(__HIP_DEVICE_COMPILE__)
    return ::__cosf(x);
#else
    return kokkos_cos(x);
#endif
  }
};

template <>
struct BackendClock<Kokkos::HIP> {
  static constexpr bool ticks_are_cycles = true;
  KOKKOS_INLINE_FUNCTION static long long now() {
#if defined(__HIP_DEVICE_COMPILE__)
    return static_cast<long long>(clock64());
#else
    return 0;
#endif
  }
};

template <>
struct BackendWait<Kokkos::HIP> {
  /// About ns nanoseconds: steps of s_sleep 1 (64 cycles, 30-40 ns at the clocks of CDNA parts).
  KOKKOS_INLINE_FUNCTION static void sleep(unsigned ns) {
#if defined(__HIP_DEVICE_COMPILE__)
    for (unsigned t = 0; t < ns; t += 32) __builtin_amdgcn_s_sleep(1);
#else
    (void)ns;
#endif
  }
  KOKKOS_INLINE_FUNCTION static void pause(unsigned /*round*/) {}
};

}  // namespace kps::impl

#endif  // KOKKOS_ENABLE_HIP
