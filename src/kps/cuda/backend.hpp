// kps/cuda/backend.hpp — the CUDA forms of kps' backend traits (kps/impl/backend.hpp), included
// by that header only when Kokkos has CUDA. The host pass of these host-device functions falls
// back to the generic forms.
//   BackendMath: fast_cos is __cosf (a multiply by 1/(2 pi) and one MUFU.COS on the
//     special-function unit, about 2^-21.4 absolute error on [-pi, pi]); cos is cosf (range
//     reduction plus a polynomial on the FMA pipe).
//   BackendClock: clock64(), the SM's cycle counter.
//   BackendWait: __nanosleep (sm_70 and later), which gives the warp's issue slots to the SM's
//     other warps and spaces out the polls of a status word that many teams read.
//   BackendPrefetch: one bulk L2 prefetch of a range's whole 16-byte units (sm_90 and later:
//     cp.async.bulk.prefetch.L2; the SM's copy engine walks it, no registers or scratch held).
//   BackendTeamOrder: in league order. Kokkos launches a TeamPolicy as one block per league rank
//     (grid = league size, rank = blockIdx.x), and the GPU dispatches a grid's blocks in blockIdx
//     order, so every lower rank has started before a team runs: what CUB's single pass relies on
//     (its tile is blockIdx.x).
//   BackendPair: one 16-byte access, ld.relaxed.gpu.v2.u64 / st.relaxed.gpu.v2.u64 (sm_70 and
//     later; CUB reads and writes its 16-byte tile status words the same way): one instruction
//     per status read or write where the generic form takes two.
//   KPS_IMPL_ROLLED_LOOP: `#pragma unroll 1` in device code (nvcc otherwise unrolls a loop and
//     hoists every iteration's loads into registers at once, which costs the kernel registers,
//     hence resident teams).
#pragma once

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#if defined(__CUDA_ARCH__)
#define KPS_IMPL_ROLLED_LOOP _Pragma("unroll 1")
#endif

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

template <>
struct BackendWait<Kokkos::Cuda> {
  KOKKOS_INLINE_FUNCTION static void sleep(unsigned ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    if (ns > 0) __nanosleep(ns);
#else
    (void)ns;
#endif
  }
  KOKKOS_INLINE_FUNCTION static void pause(unsigned /*round*/) {}
};

template <>
struct BackendPrefetch<Kokkos::Cuda> {
  /// [p, p + bytes) into L2 where p is 16-byte aligned; a hint, with nothing to wait for
  /// (Hopper and later; the instruction is PTX ISA 8.0, nvcc 12.0: older toolkits skip it).
  KOKKOS_INLINE_FUNCTION static void l2(const void* p, std::size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
    if (bytes >= 16 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(unsigned(bytes & ~std::size_t(15)))
                   : "memory");
#else
    (void)p;
    (void)bytes;
#endif
  }
};

template <>
struct BackendTeamOrder<Kokkos::Cuda> {
  static constexpr bool in_league_order = true;
};

template <>
struct BackendPair<Kokkos::Cuda> {
  KOKKOS_INLINE_FUNCTION static void load(std::uint64_t* p, std::uint64_t& a, std::uint64_t& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
#else
    load_pair_relaxed(p, a, b);
#endif
  }
  KOKKOS_INLINE_FUNCTION static void store(std::uint64_t* p, std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("st.relaxed.gpu.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
#else
    store_pair_relaxed(p, a, b);
#endif
  }
};

}  // namespace kps::impl
