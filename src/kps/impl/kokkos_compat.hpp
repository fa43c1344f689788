// kps/impl/kokkos_compat.hpp — the few places where Kokkos 3.4 and Kokkos 4.x/5.x differ in what
// the library needs, and its uses of Kokkos beyond the public API, in one place. Nothing here uses
// an API that Kokkos 4 deprecates. (The studies' reach into Kokkos' CUDA launch layer is
// bench/cuda/kokkos_launch.hpp.) test/test_kokkos_compat.cpp checks each against the Kokkos built with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

/// KPS_IMPL_IF_ON_HOST(code): `code` (statements without top-level commas) in the host pass of a
/// host-device function only (Kokkos' KOKKOS_IF_ON_HOST from Kokkos 3.6, which takes its code in
/// parentheses; before, the device compilers' own macros).
#if defined(KOKKOS_IF_ON_HOST)
#define KPS_IMPL_IF_ON_HOST(code) KOKKOS_IF_ON_HOST((code))
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
#define KPS_IMPL_IF_ON_HOST(code)
#else
#define KPS_IMPL_IF_ON_HOST(code) code
#endif

namespace kps::impl {

/// memcpy in code that runs on a device too: HIP's clang refuses std::memcpy in device code (a
/// host function), and takes the builtin, which nvcc's and the host compilers' std::memcpy are.
KOKKOS_FORCEINLINE_FUNCTION void copy_bytes(void* dst, const void* src, std::size_t n) {
#if defined(__HIP_DEVICE_COMPILE__)
  __builtin_memcpy(dst, src, n);
#else
  std::memcpy(dst, src, n);
#endif
}

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

/// The same for two adjacent words, one after the other: each word single-copy atomic, the pair
/// not (kps/impl/backend.hpp: BackendPair).
template <class T>
KOKKOS_INLINE_FUNCTION void load_pair_relaxed(T* ptr, T& first, T& second) {
  first = load_relaxed(ptr);
  second = load_relaxed(ptr + 1);
}

template <class T>
KOKKOS_INLINE_FUNCTION void store_pair_relaxed(T* ptr, T first, T second) {
  store_relaxed(ptr, first);
  store_relaxed(ptr + 1, second);
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
