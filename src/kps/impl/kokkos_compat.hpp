// kps/impl/kokkos_compat.hpp — the few places where Kokkos 3.4 and Kokkos 4.x/5.x differ
// in what kps needs. Nothing here uses an API that Kokkos 4 deprecates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <Kokkos_Core.hpp>

namespace kps::impl {

/// True for execution spaces that run on the host (Serial, OpenMP, Threads): defaults such
/// as team sizes differ there, without naming any backend.
template <class Exec>
inline constexpr bool is_host_space_v =
    Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;

/// The most teams kps launches in one TeamPolicy; more work loops inside the teams. Kokkos 3.4's
/// OpenMP backend overflows its chunk size above about 1.68e9 teams and never returns, and no
/// backend runs more than a few thousand teams at once: 2^24 costs nothing anywhere.
inline constexpr int max_league_size = 1 << 24;

/// Load and store of a naturally aligned word that other threads poll (the single-pass
/// scan's tile status), through volatile: single-copy atomic for aligned words on every
/// Kokkos backend (ld.volatile / st.volatile on CUDA, plain moves on x86-64 and Arm), and
/// never cached in a register across polls. Ordering comes from Kokkos::memory_fence where
/// needed. Kokkos' own atomic_load/atomic_store are not used: for 8-byte words desul
/// implements them as compare-and-swap loops, and many readers polling a status word with
/// read-modify-write atomics serialise on it (measured: 30x slower scan on an H100).
template <class T>
KOKKOS_INLINE_FUNCTION T load_relaxed(T* ptr) {
  return *static_cast<volatile T*>(ptr);
}

template <class T>
KOKKOS_INLINE_FUNCTION void store_relaxed(T* ptr, T value) {
  *static_cast<volatile T*>(ptr) = value;
}

/// Placed before a loop that must stay rolled in device code (the CUDA and HIP compilers
/// otherwise unroll it and hoist every iteration's loads into registers at once, which costs
/// the kernel registers, hence resident teams); nothing on host compilers.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KPS_IMPL_ROLLED_LOOP _Pragma("unroll 1")
#else
#define KPS_IMPL_ROLLED_LOOP
#endif

/// Sleeps about `ns` nanoseconds inside a spin-wait, where the backend has a sleep (CUDA from
/// sm_70: __nanosleep, which gives the warp's issue slots to the SM's other warps and spaces
/// out the polls of a status word that many teams read); elsewhere it does nothing (host
/// backends yield through spin_pause instead).
KOKKOS_INLINE_FUNCTION void backoff(unsigned ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  if (ns > 0) __nanosleep(ns);
#else
  (void)ns;
#endif
}

/// Asks the memory system to bring [p, p + bytes) into the GPU's L2 cache ahead of its loads,
/// without holding registers or scratch for it; a hint, with nothing to wait for. CUDA sm_90
/// and later: one bulk L2 prefetch of the range's whole 16-byte units (the copy engine of the SM
/// walks it), where p is 16-byte aligned; elsewhere it does nothing.
KOKKOS_INLINE_FUNCTION void prefetch_l2(const void* p, std::size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (bytes >= 16 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0)
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(unsigned(bytes & ~std::size_t(15)))
                 : "memory");
#else
  (void)p;
  (void)bytes;
#endif
}

/// Called in every iteration of a spin-wait. On host backends it yields the core: a team
/// waiting for a predecessor whose thread the OS has descheduled (more threads than cores)
/// would otherwise spin out its whole time slice. On GPUs it does nothing.
KOKKOS_INLINE_FUNCTION void spin_pause() {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__SYCL_DEVICE_ONLY__)
  std::this_thread::yield();
#endif
}

/// `count` instances of exec's space for independent work (many small scans at once):
///  - Kokkos >= 4.0 on a device backend: Kokkos::Experimental::partition_space, which on CUDA,
///    HIP and SYCL makes a new stream per instance; each has its own impl_instance_id, hence
///    its own kps workspace (kps/impl/workspace.hpp).
///  - host backends, and Kokkos 3.x (3.4 has no partition_space; that of 3.5-3.7 is left
///    unused, as no build here tests it): `count` copies of exec. A host backend runs a
///    dispatch to completion on the calling thread, so work dispatched from one thread runs in
///    turn whatever the instance; Kokkos 4's OpenMP partition would only give each instance
///    1/count of the threads (and aborts when count exceeds them).
/// Copies share exec's workspace; calls on them run in order like calls on exec.
template <class Exec>
std::vector<Exec> partition(const Exec& exec, int count) {
  if (count < 1)
    throw std::invalid_argument("kps: partition: need at least one instance, got " + std::to_string(count));
#if KOKKOS_VERSION >= 40000
  if constexpr (!is_host_space_v<Exec>) {
    std::vector<int> weights(count, 1);  // an lvalue: Kokkos 4.0 takes the weights by non-const reference
    return Kokkos::Experimental::partition_space(exec, weights);
  } else
#endif
  {
    return std::vector<Exec>(static_cast<std::size_t>(count), exec);
  }
}

/// Kokkos version as "major.minor.patch".
inline std::string kokkos_version_string() {
  constexpr int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         (v % 100 < 10 ? "0" : "") + std::to_string(v % 100);
}

}  // namespace kps::impl
