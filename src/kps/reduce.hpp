// kps/reduce.hpp — public reduction API: sums of rank-1 Views of int32, int64, float or
// double, and dot products, on any execution space.
//
//   T s = kps::reduce_sum(exec, x);                                  // tuned policy
//   T s = kps::reduce_sum(exec, x, kps::ReducePolicy{256, 16, 1056}); // explicit knobs
//   T d = kps::dot(exec, x, y);                                      // tuned policy
//   kps::reduce_sum(exec, x, sum);       // sum: a rank-0 View, e.g. in device memory; no wait
//
// The tuned calls take their policy from the tuning table of exec's device (kps/tuning/table.hpp:
// written by the reduction study's sweep, `kps tune`) and, where it has no row, from the
// fallback rule (kps/reduce/policy.hpp). Any N >= 0 and any valid policy give the right sum.
// Results are returned on the host (the call waits for them), or written to a rank-0 View
// without waiting (`kps::reduce_sum(exec, x, result)`, `kps::dot(exec, x, y, result)`, each
// with an optional policy last): the form for GPU work that uses the sum on the device.
// Bad policies (team size 0 or past the backend's limit, ...) and mismatched lengths throw
// std::invalid_argument; a malformed table, or a missing one named by KPS_TUNING_TABLE, throws
// std::runtime_error.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/reduce/dispatch.hpp"
#include "kps/reduce/policy.hpp"
#include "kps/tuning/tuning.hpp"
#include "kps/types.hpp"

namespace kps {

namespace impl {

/// A table row as the policy for n elements: league 0 stays 0 (the seed's league, filled in
/// by validate), L > 0 becomes min(ceil(n / (team x items)), L).
inline ReducePolicy policy_from_row(const ReduceRow& r, std::size_t n) {
  ReducePolicy p{r.team_size, r.items_per_thread, 0, r.vector_width, r.dynamic_teams};
  if (r.league > 0) {
    const std::size_t per_team = std::size_t(r.team_size) * r.items_per_thread;
    const std::size_t needed = (n + per_team - 1) / per_team;
    p.league_size = static_cast<int>(needed < 1 ? 1 : (needed < std::size_t(r.league) ? needed : r.league));
  }
  return p;
}

/// The tuned policy and the table row it came from (null: the fallback rule).
struct TunedPolicy {
  ReducePolicy policy;
  const ReduceRow* row = nullptr;
  const TuningTable* table = nullptr;
};

/// The policy of exec's tuning table (kps/tuning/tuning.hpp) for n elements of T, else the rule.
template <class T, class Exec>
TunedPolicy tuned_policy(const Exec& exec, std::size_t n) {
  const TuningSelection& s = tuning_table(exec);
  if (const ReduceRow* row = s.find_reduce(type_name<T>(), n)) return {policy_from_row(*row, n), row, s.table.get()};
  return {fallback_reduce_policy(exec, n)};
}

/// Runs `f(policy)`; a table row the backend rejects becomes an error naming the table line.
template <class F>
auto with_tuned(const TunedPolicy& t, F&& f) {
  try {
    return f(t.policy);
  } catch (const std::invalid_argument& e) {
    if (!t.row) throw;
    throw std::runtime_error(t.table->source + ":" + std::to_string(t.row->line) + ": this row's policy is not "
                             "valid here (" + e.what() + ")");
  }
}

}  // namespace impl

/// The policy kps::reduce_sum(exec, x) and kps::dot(exec, x, y) use for n elements of T: the
/// row for (T, n) of the tuning table of exec's device, else the fallback rule.
template <class T, class Exec>
ReducePolicy tuned_reduce_policy(const Exec& exec, std::size_t n) {
  static_assert(is_element_type_v<T>, "kps reduce: element types are signed 32/64-bit integers, float and double");
  return impl::tuned_policy<T>(exec, n).policy;
}

namespace impl {
template <class Exec, class View>
void check_reduce_view(const View& x) {
  static_assert(Kokkos::is_execution_space<Exec>::value, "kps reduce: exec must be a Kokkos execution space");
  static_assert(Kokkos::is_view<View>::value && View::rank == 1, "kps reduce: x must be a rank-1 Kokkos View");
  static_assert(is_element_type_v<typename View::non_const_value_type>,
                "kps reduce: element types are signed 32/64-bit integers, float and double");
  static_assert(Kokkos::SpaceAccessibility<Exec, typename View::memory_space>::accessible,
                "kps reduce: the View must be accessible from exec");
  if (!x.span_is_contiguous()) throw std::invalid_argument("kps reduce: the View must be contiguous");
}

template <class T, class Result>
void check_result_view(const Result& result) {
  static_assert(Result::rank == 0, "kps reduce: the result must be a rank-0 View");
  static_assert(std::is_same_v<typename Result::value_type, T>,
                "kps reduce: the result View must hold the element type of x (non-const)");
  if (!result.data()) throw std::invalid_argument("kps reduce: the result View is not allocated");
}

template <class Exec, class XView, class YView>
void check_dot_views(const XView& x, const YView& y) {
  static_assert(std::is_same_v<typename XView::non_const_value_type, typename YView::non_const_value_type>,
                "kps dot: x and y must have the same type");
  check_reduce_view<Exec>(x);
  check_reduce_view<Exec>(y);
  if (x.extent(0) != y.extent(0))
    throw std::invalid_argument("kps dot: x has " + std::to_string(x.extent(0)) + " elements but y has " +
                                std::to_string(y.extent(0)));
}
}  // namespace impl

/// Sum of x with an explicit policy.
template <class Exec, class View>
typename View::non_const_value_type reduce_sum(const Exec& exec, const View& x, const ReducePolicy& policy) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  return impl::reduce<Exec, T>(exec, x.extent(0), impl::SumLoad<T>{x.data()}, policy, "kps::reduce_sum");
}

/// Sum of x with the tuned policy for this device, type and size (see tuned_reduce_policy).
template <class Exec, class View>
typename View::non_const_value_type reduce_sum(const Exec& exec, const View& x) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  return impl::with_tuned(impl::tuned_policy<T>(exec, x.extent(0)),
                          [&](const ReducePolicy& p) { return reduce_sum(exec, x, p); });
}

/// Sum of x into the rank-0 View `result`, with an explicit policy. Asynchronous on exec when
/// result lives in memory exec writes directly (a device View on a GPU; any View on a host
/// backend), as Kokkos::parallel_reduce into a View: the value is there once exec is fenced
/// (or for the next kernel on exec). A result in host memory that exec cannot write directly
/// (ordinary host memory of a GPU backend) waits for it.
template <class Exec, class View, class Result, std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void reduce_sum(const Exec& exec, const View& x, const Result& result, const ReducePolicy& policy) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  impl::check_result_view<T>(result);
  impl::reduce_into<Exec, T>(exec, x.extent(0), impl::SumLoad<T>{x.data()}, policy, "kps::reduce_sum", result);
}

/// Sum of x into the rank-0 View `result` with the tuned policy (asynchronous, as above):
/// the form for chains of GPU work that use the sum on the device, as CUB's DeviceReduce.
template <class Exec, class View, class Result, std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void reduce_sum(const Exec& exec, const View& x, const Result& result) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  impl::check_result_view<T>(result);  // before with_tuned: its errors are not the row's
  impl::with_tuned(impl::tuned_policy<T>(exec, x.extent(0)),
                   [&](const ReducePolicy& p) { reduce_sum(exec, x, result, p); });
}

/// Dot product of x and y (same length and type).
template <class Exec, class XView, class YView>
typename XView::non_const_value_type dot(const Exec& exec, const XView& x, const YView& y,
                                         const ReducePolicy& policy) {
  using T = typename XView::non_const_value_type;
  impl::check_dot_views<Exec>(x, y);
  return impl::reduce<Exec, T>(exec, x.extent(0), impl::DotLoad<T>{x.data(), y.data()}, policy, "kps::dot");
}

/// Dot product with the tuned policy: the sum's table row for the same type and N (the
/// sweep tunes sums; a dot product reads twice the bytes per element with the same pattern).
template <class Exec, class XView, class YView>
typename XView::non_const_value_type dot(const Exec& exec, const XView& x, const YView& y) {
  using T = typename XView::non_const_value_type;
  impl::check_dot_views<Exec>(x, y);
  return impl::with_tuned(impl::tuned_policy<T>(exec, x.extent(0)),
                          [&](const ReducePolicy& p) { return dot(exec, x, y, p); });
}

/// Dot product of x and y into the rank-0 View `result` (asynchronous, as reduce_sum into a View).
template <class Exec, class XView, class YView, class Result,
          std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void dot(const Exec& exec, const XView& x, const YView& y, const Result& result, const ReducePolicy& policy) {
  using T = typename XView::non_const_value_type;
  impl::check_dot_views<Exec>(x, y);
  impl::check_result_view<T>(result);
  impl::reduce_into<Exec, T>(exec, x.extent(0), impl::DotLoad<T>{x.data(), y.data()}, policy, "kps::dot", result);
}

/// Dot product into the rank-0 View `result` with the tuned policy (asynchronous).
template <class Exec, class XView, class YView, class Result,
          std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void dot(const Exec& exec, const XView& x, const YView& y, const Result& result) {
  using T = typename XView::non_const_value_type;
  impl::check_dot_views<Exec>(x, y);
  impl::check_result_view<T>(result);  // before with_tuned: its errors are not the row's
  impl::with_tuned(impl::tuned_policy<T>(exec, x.extent(0)),
                   [&](const ReducePolicy& p) { dot(exec, x, y, result, p); });
}

}  // namespace kps
