// kps/impl/kokkos_compat.hpp — the few places where Kokkos 3.4 and Kokkos 4.x/5.x differ
// in what kps needs. Nothing here uses an API that Kokkos 4 deprecates.
#pragma once

#include <string>
#include <thread>

#include <Kokkos_Core.hpp>

namespace kps::impl {

/// True for execution spaces that run on the host (Serial, OpenMP, Threads): defaults such
/// as team sizes differ there, without naming any backend.
template <class Exec>
inline constexpr bool is_host_space_v =
    Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;

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

/// Called in every iteration of a spin-wait. On host backends it yields the core: a team
/// waiting for a predecessor whose thread the OS has descheduled (more threads than cores)
/// would otherwise spin out its whole time slice. On GPUs it does nothing.
KOKKOS_INLINE_FUNCTION void spin_pause() {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__SYCL_DEVICE_ONLY__)
  std::this_thread::yield();
#endif
}

/// Kokkos version as "major.minor.patch".
inline std::string kokkos_version_string() {
  constexpr int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         (v % 100 < 10 ? "0" : "") + std::to_string(v % 100);
}

}  // namespace kps::impl
