// kps/impl/kokkos_compat.hpp — the few places where Kokkos 3.4 and Kokkos 4.x/5.x differ
// in what kps needs. Nothing here uses an API that Kokkos 4 deprecates.
#pragma once

#include <string>

#include <Kokkos_Core.hpp>

namespace kps::impl {

/// True for execution spaces that run on the host (Serial, OpenMP, Threads): defaults such
/// as team sizes differ there, without naming any backend.
template <class Exec>
inline constexpr bool is_host_space_v =
    Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;

/// Relaxed atomic load and store of a naturally aligned word (status flags of the
/// single-pass scan). Kokkos 4 has them publicly; 3.4 keeps them in Impl, so there a
/// volatile access (single-copy atomic for aligned words on every Kokkos backend) is used.
template <class T>
KOKKOS_INLINE_FUNCTION T load_relaxed(T* ptr) {
#if KOKKOS_VERSION >= 40000
  return Kokkos::atomic_load(ptr);
#else
  return *static_cast<volatile T*>(ptr);
#endif
}

template <class T>
KOKKOS_INLINE_FUNCTION void store_relaxed(T* ptr, T value) {
#if KOKKOS_VERSION >= 40000
  Kokkos::atomic_store(ptr, value);
#else
  *static_cast<volatile T*>(ptr) = value;
#endif
}

/// Kokkos version as "major.minor.patch".
inline std::string kokkos_version_string() {
  constexpr int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         (v % 100 < 10 ? "0" : "") + std::to_string(v % 100);
}

}  // namespace kps::impl
