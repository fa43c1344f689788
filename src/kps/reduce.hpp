// kps/reduce.hpp — public reduction API: sums of rank-1 Views of int32, int64, float or
// double, and dot products, on any execution space.
//
//   T s = kps::reduce_sum(exec, x);                                  // default policy
//   T s = kps::reduce_sum(exec, x, kps::ReducePolicy{256, 16, 1056}); // explicit knobs
//   T d = kps::dot(exec, x, y);
//
// Results are returned on the host (the call waits for them). Bad policies (team size 0 or
// past the backend's limit, ...) and mismatched lengths throw std::invalid_argument.
#pragma once

#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/device_reduce.hpp"
#include "kps/types.hpp"

namespace kps {

/// The policy used when none is given, from the backend's concurrency alone: on a GPU
/// (concurrency = SMs x resident threads per SM) 256-thread teams, 16 items per thread and
/// one full wave of teams, looping over larger data; on host backends one team per thread
/// with 4096 items per pass. Never more teams than the data needs.
template <class Exec>
ReducePolicy default_reduce_policy(const Exec& exec, std::size_t n) {
  ReducePolicy p;
  const bool host = impl::is_host_space_v<Exec>;
  p.team_size = host ? 1 : 256;
  p.items_per_thread = host ? 4096 : 16;
  const std::size_t wave = static_cast<std::size_t>(exec.concurrency()) / p.team_size;
  const std::size_t per_team = std::size_t(p.team_size) * p.items_per_thread;
  const std::size_t needed = (n + per_team - 1) / per_team;
  const std::size_t league = needed < wave ? needed : wave;
  p.league_size = static_cast<int>(league < 1 ? 1 : league);
  return p;
}

namespace impl {
template <class Exec, class View>
void check_reduce_view(const View& x) {
  static_assert(Kokkos::is_execution_space<Exec>::value, "kps reduce: exec must be a Kokkos execution space");
  static_assert(Kokkos::is_view<View>::value && View::rank == 1, "kps reduce: x must be a rank-1 Kokkos View");
  static_assert(is_element_type_v<typename View::non_const_value_type>,
                "kps reduce: element type must be int32, int64, float or double");
  static_assert(Kokkos::SpaceAccessibility<Exec, typename View::memory_space>::accessible,
                "kps reduce: the View must be accessible from exec");
  if (!x.span_is_contiguous()) throw std::invalid_argument("kps reduce: the View must be contiguous");
}
}  // namespace impl

/// Sum of x with an explicit policy.
template <class Exec, class View>
typename View::non_const_value_type reduce_sum(const Exec& exec, const View& x, const ReducePolicy& policy) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  return impl::reduce<Exec, T>(exec, x.extent(0), impl::SumLoad<T>{x.data()}, policy, "kps::reduce_sum");
}

/// Sum of x with the default policy for this backend and size.
template <class Exec, class View>
typename View::non_const_value_type reduce_sum(const Exec& exec, const View& x) {
  return reduce_sum(exec, x, default_reduce_policy(exec, x.extent(0)));
}

/// Dot product of x and y (same length and type).
template <class Exec, class XView, class YView>
typename XView::non_const_value_type dot(const Exec& exec, const XView& x, const YView& y,
                                         const ReducePolicy& policy) {
  using T = typename XView::non_const_value_type;
  static_assert(std::is_same_v<T, typename YView::non_const_value_type>, "kps dot: x and y must have the same type");
  impl::check_reduce_view<Exec>(x);
  impl::check_reduce_view<Exec>(y);
  if (x.extent(0) != y.extent(0))
    throw std::invalid_argument("kps dot: x has " + std::to_string(x.extent(0)) + " elements but y has " +
                                std::to_string(y.extent(0)));
  return impl::reduce<Exec, T>(exec, x.extent(0), impl::DotLoad<T>{x.data(), y.data()}, policy, "kps::dot");
}

template <class Exec, class XView, class YView>
typename XView::non_const_value_type dot(const Exec& exec, const XView& x, const YView& y) {
  return dot(exec, x, y, default_reduce_policy(exec, x.extent(0)));
}

}  // namespace kps
