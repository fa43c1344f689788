// kps/cuda/backend.hpp — CUDA specializations of kps::impl::BackendMath and BackendClock:
//   fast_cos is __cosf: a multiply by 1/(2 pi) and one MUFU.COS on the special-function unit
//     (about 2^-21.4 absolute error on [-pi, pi]); cos is cosf (range reduction plus a
//     polynomial on the FMA pipe);
//   now() is clock64(), the SM's cycle counter.
// Included by kps/impl/backend.hpp only when Kokkos has CUDA; the host pass of these
// host-device functions falls back to the generic forms.
#pragma once

#include <Kokkos_Core.hpp>

namespace kps::impl {

template <>
struct BackendMath<Kokkos::Cuda> {
  static constexpr bool has_fast_cos = true;
  KOKKOS_INLINE_FUNCTION static float cos(float x) {
#if defined(__CUDA_ARCH__)
    return ::cosf(x);
#else
    return kokkos_cos(x);
#endif
  }
  KOKKOS_INLINE_FUNCTION static float fast_cos(float x) {
#if defined(__CUDA_ARCH__)
    return ::__cosf(x);
#else
    return kokkos_cos(x);
#endif
  }
};

template <>
struct BackendClock<Kokkos::Cuda> {
  static constexpr bool ticks_are_cycles = true;
  KOKKOS_INLINE_FUNCTION static long long now() {
#if defined(__CUDA_ARCH__)
    return clock64();
#else
    return 0;
#endif
  }
};

}  // namespace kps::impl
