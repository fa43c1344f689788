// kps/impl/backend.hpp — the device facilities whose best form depends on the backend, as traits
// that portable kernels call without naming a backend. The generic forms below are right on
// every backend; a backend folder specializes what it does better (kps/cuda/backend.hpp,
// kps/hip/backend.hpp):
//   BackendMath<Exec>   cos, and fast_cos (a hardware approximation where has_fast_cos)
//   BackendClock<Exec>  a per-thread clock for fixed-duration spins and probes (cycles or ns)
//   BackendWait<Exec>   sleep(ns) inside a spin-wait (nothing generic), pause(round) between polls:
//                       a host thread spins a bounded number of rounds, then yields its core (its
//                       predecessor's thread may be descheduled: more threads than cores, or
//                       cores shared with another process)
//   BackendPrefetch<Exec>  l2(p, bytes): a hint to bring memory into the device's L2 (nothing generic)
//   BackendLanes<Exec>  simt: whether a Kokkos thread's vector lanes are hardware threads that each
//                       run a ThreadVectorRange body for their own index (GPUs), or one thread
//                       looping over the indices (host backends); see kps/impl/lanes.hpp
//   BackendTeamOrder<Exec>  in_league_order: whether a TeamPolicy's teams start in league-rank
//                       order, one rank per team (nothing generic: a kernel that needs that order
//                       takes ranks from an atomic counter in start order instead)
//   BackendPair<Exec>   load / store of a 16-byte aligned pair of 64-bit words that other threads
//                       poll: one 16-byte access where the backend has one, else two relaxed
//                       8-byte ones (each word single-copy atomic, the pair not: the single-pass
//                       scan's status tags each half, kps/scan/tile_status.hpp)
//   BackendStore<Exec>  element(dst, v): a store of an output that is not read again soon, as a
//                       streaming (non-temporal) store where the backend has one (kps/host/backend.hpp:
//                       x86 hosts), which skips the read of a CPU's write-allocate; block<B>(dst, v, f)
//                       the same for B values of 1 or 2 bytes at once (where blocks<T, B>); drain()
//                       orders them before what the thread writes next (generic: ordinary stores,
//                       nothing to drain)
//   BackendRangeScan<Exec>  vector<T>: whether scan<Exclusive, Streaming>(in, out, count, offset),
//                       one thread's scan of a cached range (kps/scan/single_pass_cached.hpp,
//                       cached_scan), has a vector form for T on the backend (kps/host/backend.hpp:
//                       float on x86 hosts; nothing generic); minmax<T, Op>, minmax_usable() and
//                       scan_minmax<Exclusive, Streaming>(in, out, count, offset, op) the same for
//                       the integers' minimum and maximum (x86 hosts with SSE4.2)
// and KPS_IMPL_ROLLED_LOOP, placed before a loop that must not be unrolled in device code.
#pragma once

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <thread>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

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

template <class Exec, class Enable = void>
struct BackendMath;
template <class Exec, class Enable = void>
struct BackendClock;
template <class Exec, class Enable = void>
struct BackendWait;
template <class Exec, class Enable = void>
struct BackendPrefetch;
template <class Exec, class Enable = void>
struct BackendLanes;
template <class Exec, class Enable = void>
struct BackendTeamOrder;
template <class Exec, class Enable = void>
struct BackendPair;
template <class Exec, class Enable = void>
struct BackendStore;
template <class Exec, class Enable = void>
struct BackendRangeScan;

}  // namespace kps::impl

// The backend folders: they specialize the traits and may define KPS_IMPL_ROLLED_LOOP.
#if defined(KOKKOS_ENABLE_CUDA)
#include "kps/cuda/backend.hpp"
#endif
#include "kps/hip/backend.hpp"  // empty without HIP
#include "kps/host/backend.hpp"

#ifndef KPS_IMPL_ROLLED_LOOP
#define KPS_IMPL_ROLLED_LOOP
#endif

namespace kps::impl {

template <class Exec, class Enable>
struct BackendMath {
  static constexpr bool has_fast_cos = false;
  KOKKOS_INLINE_FUNCTION static float cos(float x) { return kokkos_cos(x); }
  KOKKOS_INLINE_FUNCTION static float fast_cos(float x) { return kokkos_cos(x); }
};

/// The steady clock, in nanoseconds (host-device so that a device compiler accepts it inside
/// portable functors; a device backend specializes it).
template <class Exec, class Enable>
struct BackendClock {
  static constexpr bool ticks_are_cycles = false;
  KOKKOS_INLINE_FUNCTION static long long now() {
    long long t = 0;
    KPS_IMPL_IF_ON_HOST(t = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now().time_since_epoch())
                                .count();)
    return t;
  }
};

template <class Exec, class Enable>
struct BackendWait {
  KOKKOS_INLINE_FUNCTION static void sleep(unsigned /*ns*/) {}
  /// Between polls: the round-th poll that found a predecessor unpublished.
  KOKKOS_INLINE_FUNCTION static void pause(unsigned /*round*/) {}
};

template <class Exec, class Enable>
struct BackendPrefetch {
  KOKKOS_INLINE_FUNCTION static void l2(const void* /*p*/, std::size_t /*bytes*/) {}
};

template <class Exec, class Enable>
struct BackendLanes {
  static constexpr bool simt = !is_host_space_v<Exec>;
};

template <class Exec, class Enable>
struct BackendTeamOrder {
  static constexpr bool in_league_order = false;
};

template <class Exec, class Enable>
struct BackendPair {
  KOKKOS_INLINE_FUNCTION static void load(std::uint64_t* p, std::uint64_t& a, std::uint64_t& b) {
    load_pair_relaxed(p, a, b);
  }
  KOKKOS_INLINE_FUNCTION static void store(std::uint64_t* p, std::uint64_t a, std::uint64_t b) {
    store_pair_relaxed(p, a, b);
  }
};

template <class Exec, class Enable>
struct BackendStore {
  static constexpr bool streaming = false;
  template <class T>
  KOKKOS_INLINE_FUNCTION static void element(T* dst, T v) {
    *dst = v;
  }
  /// Whether block<B> stores B values of T at once (values too small for a streaming store each).
  template <class T, std::size_t B>
  static constexpr bool blocks = false;
  template <std::size_t B, class T, class F>
  KOKKOS_INLINE_FUNCTION static void block(T* dst, const T (&v)[B], const F& f) {
    for (std::size_t k = 0; k < B; ++k) dst[k] = f(v[k]);
  }
  KOKKOS_INLINE_FUNCTION static void drain() {}
};

template <class Exec, class Enable>
struct BackendRangeScan {
  template <class T>
  static constexpr bool vector = false;
  template <class T, class Op>
  static constexpr bool minmax = false;
  static bool minmax_usable() { return false; }
  template <bool Exclusive, bool Streaming, class T, class Op>
  KOKKOS_INLINE_FUNCTION static T scan_minmax(const T* /*in*/, T* /*out*/, std::size_t /*count*/, T offset, const Op&) {
    return offset;  // never called: minmax<T, Op> is false
  }
  template <bool Exclusive, bool Streaming, class T>
  KOKKOS_INLINE_FUNCTION static T scan(const T* /*in*/, T* /*out*/, std::size_t /*count*/, T offset) {
    return offset;  // never called: vector<T> is false
  }
};

}  // namespace kps::impl
