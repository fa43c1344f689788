// kps/impl/host_result.hpp — where a reduction that returns its value to the host has the
// device write it: a rank-0 View in memory that both the execution space and the host reach
// (Kokkos::SharedHostPinnedSpace: pinned host memory on CUDA and HIP, host USM on SYCL), so
// the call costs one launch and one fence.
//
// Kokkos::parallel_reduce into a host scalar fences the instance twice on CUDA (in the
// reduction, to read its pinned scratch, and again in parallel_reduce, because the result is
// not a View); the second fence finds the stream idle and still costs a round trip to the
// driver: 1.5 us of an H200's 13.5 us call at 2^10, 2.0 us of an H100's 15.8 us
// (results/h200-cuda/experiments/reduce-host-result). Into a pinned View, parallel_reduce
// returns at once and kps fences once.
//
// The Views come from a pool per element type: only a call that finds every View of its type
// in use allocates one (the first, and each one that more host threads at once need), calls
// from several host threads never share one, and all are released when Kokkos finalizes
// (Views must not outlive it). Kokkos' OpenACC and OpenMPTarget backends have no shared pinned
// space: there, as on host backends, the reduction writes the caller's variable.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

namespace kps::impl {

#if defined(KOKKOS_HAS_SHARED_HOST_PINNED_SPACE)
/// Whether exec writes a host result into shared pinned memory (device backends): host
/// backends write the caller's variable itself (Kokkos 3, OpenACC and OpenMPTarget builds have
/// no SharedHostPinnedSpace).
template <class Exec>
inline constexpr bool uses_pinned_result_v =
    !is_host_space_v<Exec> && Kokkos::SpaceAccessibility<Exec, Kokkos::SharedHostPinnedSpace>::accessible;

/// The lock of every element type's pool (one for all: each pool's first use pushes a Kokkos
/// finalize hook, and Kokkos' list of hooks has no lock of its own). Never destroyed, so that a
/// Kokkos::finalize run after static destructors (from an atexit handler) still finds it.
inline std::mutex& pinned_result_mutex() {
  static std::mutex* m = new std::mutex;
  return *m;
}

/// A rank-0 View of T in shared pinned memory, borrowed from the pool for one call.
template <class T>
class PinnedResult {
 public:
  using view_type = Kokkos::View<T, Kokkos::SharedHostPinnedSpace>;

  PinnedResult() : view_(acquire()) {}
  ~PinnedResult() { release(std::move(view_)); }
  PinnedResult(const PinnedResult&) = delete;
  PinnedResult& operator=(const PinnedResult&) = delete;

  const view_type& view() const { return view_; }

 private:
  using Pool = std::vector<view_type>;

  /// The pool of T, created on first use; freed with its Views when Kokkos finalizes.
  static Pool*& pool() {
    static Pool* p = nullptr;
    return p;
  }

  static view_type acquire() {
    {
      std::lock_guard<std::mutex> lock(pinned_result_mutex());
      if (!pool()) {
        pool() = new Pool;
        Kokkos::push_finalize_hook([] {
          std::lock_guard<std::mutex> hook_lock(pinned_result_mutex());
          delete pool();
          pool() = nullptr;
        });
      }
      if (!pool()->empty()) {
        view_type v = std::move(pool()->back());
        pool()->pop_back();
        return v;
      }
    }
    // Every call writes its value before reading it: no initialisation.
    return view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kps::reduce::host_result")));
  }

  static void release(view_type v) {
    std::lock_guard<std::mutex> lock(pinned_result_mutex());
    if (pool()) pool()->push_back(std::move(v));
  }

  view_type view_;
};
#else
template <class Exec>
inline constexpr bool uses_pinned_result_v = false;
#endif

}  // namespace kps::impl
