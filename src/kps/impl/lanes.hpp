// kps/impl/lanes.hpp — state of each vector lane of a Kokkos thread, for kernels written lane by
// lane: every per-lane step is a Kokkos::ThreadVectorRange(team, lanes) loop whose body works on
// `state[lane]`, and lanes talk only through Kokkos' vector reductions and scans. The same code
// then runs
//  - on GPUs (BackendLanes<Exec>::simt), where the lanes are hardware threads and each runs the
//    body for its own index once (the vector length is `lanes`): LaneArray holds one value, the
//    lane's own, in registers;
//  - on host backends, where one thread runs the body for every index in turn: LaneArray holds
//    one value per lane (at most max_lanes), so a host test runs the GPU's multi-lane logic.
#pragma once

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"

namespace kps::impl {

/// The most lanes per Kokkos thread kps' lane-by-lane kernels use (a CUDA warp).
inline constexpr int max_lanes = 32;

template <class Exec, class T>
class LaneArray {
 public:
  static constexpr bool simt = BackendLanes<Exec>::simt;

  /// The value of lane `lane`: the lane's own on SIMT backends, where each lane asks only for itself.
  KOKKOS_INLINE_FUNCTION T& operator[](int lane) {
    if constexpr (simt) {
      (void)lane;
      return values_[0];
    } else {
      return values_[lane];
    }
  }
  KOKKOS_INLINE_FUNCTION const T& operator[](int lane) const {
    if constexpr (simt) {
      (void)lane;
      return values_[0];
    } else {
      return values_[lane];
    }
  }

 private:
  T values_[simt ? 1 : max_lanes];
};

}  // namespace kps::impl
