// kps/impl/host_result.hpp — where a reduction that returns its value to the host has the
// device write it: a rank-0 View in memory that both the execution space and the host reach
// (Kokkos::SharedHostPinnedSpace: pinned host memory on CUDA and HIP, host USM on SYCL), so
// the call costs one launch and one fence.
//
// Kokkos::parallel_reduce into a host scalar fences the instance twice on CUDA (in the
// reduction, to read its pinned scratch, and again in parallel_reduce, because the result is
// not a View); the second fence finds the stream idle and still costs a round trip to the
// driver, 1.5-2 us of an H200's 12-15 us call at 2^10
// (results/h200-cuda/experiments/reduce-host-result). Into a pinned View, parallel_reduce
// returns at once and kps fences once.
//
// The Views come from a pool, one per element type, so a call allocates nothing and calls
// from several host threads never share one; all are released when Kokkos finalizes (Views
// must not outlive it).
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

namespace kps::impl {

#if KOKKOS_VERSION >= 40000
/// Whether exec writes a host result into shared pinned memory (device backends): host
/// backends write the caller's variable itself, and Kokkos 3 has no SharedHostPinnedSpace.
template <class Exec>
inline constexpr bool uses_pinned_result_v =
    !is_host_space_v<Exec> && Kokkos::SpaceAccessibility<Exec, Kokkos::SharedHostPinnedSpace>::accessible;

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
  struct Pool {
    std::mutex mutex;
    std::vector<view_type> free;
  };

  /// The pool of T, created on first use; freed with its Views when Kokkos finalizes.
  static Pool*& pool() {
    static Pool* p = nullptr;
    return p;
  }
  static std::mutex& pool_mutex() {
    static std::mutex m;
    return m;
  }

  static view_type acquire() {
    {
      std::lock_guard<std::mutex> lock(pool_mutex());
      if (!pool()) {
        pool() = new Pool;
        Kokkos::push_finalize_hook([] {
          std::lock_guard<std::mutex> hook_lock(pool_mutex());
          delete pool();
          pool() = nullptr;
        });
      }
      if (!pool()->free.empty()) {
        view_type v = std::move(pool()->free.back());
        pool()->free.pop_back();
        return v;
      }
    }
    // The reduction writes the value (an empty league writes 0): no initialisation.
    return view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kps::reduce::host_result")));
  }

  static void release(view_type v) {
    std::lock_guard<std::mutex> lock(pool_mutex());
    if (pool()) pool()->free.push_back(std::move(v));
  }

  view_type view_;
};
#else
template <class Exec>
inline constexpr bool uses_pinned_result_v = false;
#endif

}  // namespace kps::impl
