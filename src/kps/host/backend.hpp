// kps/host/backend.hpp — the host backends' forms of kps' backend traits (kps/impl/backend.hpp),
// for every execution space that runs on the host (Serial, OpenMP, Threads), included by that
// header. Their bodies are host code; the device pass of a GPU build sees the generic forms' bodies.
//   BackendWait: pause(round) spins for spin_rounds polls (x86: the PAUSE hint, which lets a
//     hyperthread sibling run and saves the pipeline flush of a spin loop's exit), then yields the
//     core to the scheduler, so that a predecessor descheduled from a shared or oversubscribed core
//     gets it back instead of waiting out a time slice.
//   BackendStore: on x86-64 (SSE2, every x86-64 CPU), an element as a streaming store (MOVNTI),
//     which the write-combining buffers gather into whole lines, written without reading them
//     first; drain() is SFENCE, which orders them before the thread's later stores.
#pragma once

#include <cstddef>
#include <cstring>
#include <thread>
#include <type_traits>

#if defined(__SSE2__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#include <emmintrin.h>
#define KPS_IMPL_HOST_SSE2 1
#endif

#include "kps/impl/kokkos_compat.hpp"

namespace kps::impl {

/// Polls a host thread spins before it yields: about a microsecond, longer than a running
/// predecessor takes to publish once its tile is read, far shorter than a scheduler's time slice.
inline constexpr unsigned spin_rounds = 64;

template <class Exec>
struct BackendWait<Exec, std::enable_if_t<is_host_space_v<Exec>>> {
  KOKKOS_INLINE_FUNCTION static void sleep(unsigned /*ns*/) {}
  KOKKOS_INLINE_FUNCTION static void pause(unsigned round) {
    if (round < spin_rounds) {
#if defined(KPS_IMPL_HOST_SSE2)
      _mm_pause();
#endif
    } else {
      KPS_IMPL_IF_ON_HOST(std::this_thread::yield();)
    }
  }
};

template <class Exec>
struct BackendStore<Exec, std::enable_if_t<is_host_space_v<Exec>>> {
#if defined(KPS_IMPL_HOST_SSE2) && defined(__x86_64__)
  static constexpr bool streaming = true;
  template <class T>
  KOKKOS_INLINE_FUNCTION static void element(T* dst, T v) {
    if constexpr (sizeof(T) == 4) {
      int bits;
      std::memcpy(&bits, &v, 4);
      _mm_stream_si32(reinterpret_cast<int*>(dst), bits);
    } else {
      long long bits;
      std::memcpy(&bits, &v, 8);
      _mm_stream_si64(reinterpret_cast<long long*>(dst), bits);
    }
  }
  KOKKOS_INLINE_FUNCTION static void drain() { _mm_sfence(); }
#else
  static constexpr bool streaming = false;
  template <class T>
  KOKKOS_INLINE_FUNCTION static void element(T* dst, T v) {
    *dst = v;
  }
  KOKKOS_INLINE_FUNCTION static void drain() {}
#endif
};

}  // namespace kps::impl
