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

#include "kps/impl/reducer.hpp"
#include "kps/operators.hpp"

namespace kps::impl {

/// The exclusive scan of the lanes' values v[l] in lane order under op (lane 0 first): prefix[l]
/// gets op(v[0], ..., v[l-1]) (the identity in lane 0), and every lane gets the total. `buf`: team
/// scratch of `lanes` values of this Kokkos thread's own. Host backends run the lanes one after
/// another; on a GPU the lanes scan through `buf` (Hillis-Steele, each step a vector range that
/// ends with a lane barrier): ordered, so the operator need not be commutative.
template <class Exec, class T, class Op, class Member>
KOKKOS_INLINE_FUNCTION T lane_exclusive_scan(const Member& team, int lanes, const Op& op, const LaneArray<Exec, T>& v,
                                             LaneArray<Exec, T>& prefix, T* buf) {
  const T e = operator_traits<Op, T>::identity(op);
  if constexpr (!LaneArray<Exec, T>::simt) {
    (void)team;
    (void)buf;
    T acc = e;
    for (int l = 0; l < lanes; ++l) {
      prefix[l] = acc;
      acc = op(acc, v[l]);
    }
    return acc;
  } else {
    LaneArray<Exec, T> inc, tmp;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
      inc[l] = v[l];
      buf[l] = v[l];
    });
    for (int d = 1; d < lanes; d <<= 1) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) { tmp[l] = l >= d ? buf[l - d] : e; });
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        if (l >= d) inc[l] = op(tmp[l], inc[l]);
        buf[l] = inc[l];
      });
    }
    T total = e;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) { prefix[l] = l > 0 ? buf[l - 1] : e; });
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int) { total = buf[lanes - 1]; });
    return total;
  }
}

/// op over the lanes l < count of f(l) taken from the highest lane to lane 0 (the look-back's
/// window: lane l holds the tile l before the window's first, so the highest lane comes first in
/// the sequence), in every lane. An operator known to be commutative reduces through Kokkos' vector
/// reduction (shuffles on GPUs); any other through `buf` (team scratch of `lanes` values), in order.
template <class Exec, class T, class Op, class Member, class F>
KOKKOS_INLINE_FUNCTION T lane_reduce_reversed(const Member& team, int lanes, const Op& op, int count, T* buf, F&& f) {
  const T e = operator_traits<Op, T>::identity(op);
  if constexpr (!LaneArray<Exec, T>::simt) {
    (void)team;
    (void)buf;
    T acc = e;
    for (int l = count - 1; l >= 0; --l) acc = op(acc, f(l));
    return acc;
  } else if constexpr (operator_traits<Op, T>::commutative) {
    (void)buf;
    T acc = e;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes),
        [&](int l, T& a) {
          if (l < count) a = op(a, f(l));
        },
        OpReducer<T, Op, Kokkos::AnonymousSpace>(acc, op));
    return acc;
  } else {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) { buf[l] = l < count ? f(l) : e; });
    for (int d = 1; d < lanes; d <<= 1)
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        if (l % (2 * d) == 0 && l + d < lanes) buf[l] = op(buf[l + d], buf[l]);
      });
    T acc = e;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int) { acc = buf[0]; });
    return acc;
  }
}

}  // namespace kps::impl
