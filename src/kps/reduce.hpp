// kps/reduce.hpp — public reduction API: reductions of rank-1 Views under any associative and
// commutative operator, with an initial value, after a transform of one or two Views, minima,
// maxima and their indices, on any execution space (in the style of Kokkos' std algorithms and
// CUB's DeviceReduce).
//
//   T s = kps::reduce_sum(exec, x);                                  // tuned policy
//   T s = kps::reduce_sum(exec, x, kps::ReducePolicy{256, 16, 1056}); // explicit knobs
//   T d = kps::dot(exec, x, y);                                      // tuned policy
//   kps::reduce_sum(exec, x, sum);       // sum: a rank-0 View, e.g. in device memory; no wait
//   T r = kps::reduce(exec, x, init, op);                            // op(init, x[0], ..., x[n-1])
//   T m = kps::reduce_min(exec, x);  T M = kps::reduce_max(exec, x);
//   kps::MinMax<T> mm = kps::minmax(exec, x);
//   kps::ValueIndex<T> a = kps::argmin(exec, x);                     // lowest index of the minimum
//   T t = kps::transform_reduce(exec, x, init, op, f);               // of f(x[i])
//   T t = kps::transform_reduce(exec, x, y, init, op, f);            // of f(x[i], y[i])
//
// Every form also takes a rank-0 View result (after the other arguments) and writes it without
// waiting, and an explicit kps::ReducePolicy last. The operator (kps/operators.hpp) must be
// associative and commutative, as std::reduce's: a reduction combines elements in the order its
// threads meet them; an operator that says it is not commutative is refused at compile time. The
// initial value, like a scan's, must have the value type (init's type is the result's). Empty
// Views reduce to init (reduce, transform_reduce), the operator's identity (reduce_min: the
// largest value, +inf for floating point), or index -1 (argmin, argmax).
//
// The tuned calls take their policy from the tuning table of exec's device (kps/tuning/table.hpp:
// written by the reduction study's sweep, `kps tune`: a row for the operator's class, the value
// type and N) and, where it has no row, from the fallback rule (kps/reduce/policy.hpp). Any N >= 0
// and any valid policy give the right result. Floating point: the result is the same bits run to
// run for the same input, policy and thread count on every backend (each thread's share of the
// data is fixed; Kokkos combines the threads' and teams' results in a fixed order; teams a host
// backend's threads take dynamically keep their partial results apart and are combined in order),
// as CUB's DeviceReduce. Bad policies (team size 0 or past the backend's limit, ...) and mismatched
// lengths throw std::invalid_argument; a malformed table, or a missing one named by
// KPS_TUNING_TABLE, throws std::runtime_error.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/impl/access.hpp"
#include "kps/operators.hpp"
#include "kps/reduce/dispatch.hpp"
#include "kps/knobs.hpp"
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

/// The policy of exec's tuning table (kps/tuning/tuning.hpp) for n elements of T read under an
/// operator of class `op`, else the rule.
template <class T, class Exec>
TunedPolicy tuned_policy(const Exec& exec, std::size_t n, OperatorClass op = OperatorClass::plus) {
  const TuningSelection& s = tuning_table(exec);
  if (const ReduceRow* row = s.find_reduce(op, type_name<T>(), sizeof(T), n))
    return {policy_from_row(*row, n), row, s.table.get()};
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

/// The policy kps::reduce_sum(exec, x) and kps::dot(exec, x, y) use for n elements of T (the
/// other reductions: of their operator's class, Op): the row for (class, T, n) of the tuning
/// table of exec's device, else the fallback rule.
template <class T, class Exec, class Op = plus>
ReducePolicy tuned_reduce_policy(const Exec& exec, std::size_t n) {
  static_assert(is_element_type_v<T>, "kps reduce: the value type must be a number or a struct (kps/types.hpp)");
  return impl::tuned_policy<T>(exec, n, operator_traits<Op, T>::op_class).policy;
}

namespace impl {

template <class View>
inline constexpr bool is_strided_view_v = std::is_same_v<typename View::array_layout, Kokkos::LayoutStride>;

template <class Exec, class View>
void check_reduce_view(const View& x) {
  static_assert(Kokkos::is_execution_space<Exec>::value, "kps reduce: exec must be a Kokkos execution space");
  static_assert(Kokkos::is_view<View>::value && View::rank == 1, "kps reduce: x must be a rank-1 Kokkos View");
  using T = typename View::non_const_value_type;
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "kps reduce: the value type must be trivially copyable and default constructible");
  static_assert(is_element_type_v<T>,
                "kps reduce: the value type must be a number or a struct, not a character, bool or pointer (kps/types.hpp)");
  static_assert(Kokkos::SpaceAccessibility<Exec, typename View::memory_space>::accessible,
                "kps reduce: the View must be accessible from exec");
  if (!is_strided_view_v<View> && !x.span_is_contiguous()) throw std::invalid_argument("kps reduce: the View must be contiguous or LayoutStride");
}

template <class T, class Result>
void check_result_view(const Result& result) {
  static_assert(Result::rank == 0, "kps reduce: the result must be a rank-0 View");
  static_assert(std::is_same_v<typename Result::value_type, T>,
                "kps reduce: the result View must hold the reduction's value type (non-const)");
  if (!result.data()) throw std::invalid_argument("kps reduce: the result View is not allocated");
}

template <class Exec, class XView, class YView>
void check_dot_views(const XView& x, const YView& y) {
  check_reduce_view<Exec>(x);
  check_reduce_view<Exec>(y);
  if (x.extent(0) != y.extent(0))
    throw std::invalid_argument("kps dot: x has " + std::to_string(x.extent(0)) + " elements but y has " +
                                std::to_string(y.extent(0)));
}

template <class T, class Op>
constexpr void check_reduce_operator() {
  static_assert(is_binary_operator<Op, T>::value,
                "kps reduce: op must be callable on two values of the value type, op(a, b), and give that type (a "
                "KOKKOS_FUNCTION call operator)");
  static_assert(!operator_traits<Op, T>::declared_noncommutative,
                "kps reduce: the operator says it is not commutative (commutative = false); a reduction combines "
                "elements in the order its threads meet them: use a scan, or an operator that is");
}

/// A View's elements as a load (kps/reduce/kernel.hpp): contiguous memory (16-byte vectors), or
/// its stride (LayoutStride: element by element).
template <class View>
auto view_load(const View& x) {
  using U = typename View::non_const_value_type;
  if constexpr (is_strided_view_v<View>)
    return AccessLoad<Strided<const U>>{{x.data(), std::size_t(x.stride(0))}};
  else
    return SumLoad<U>{x.data()};
}

/// f(x[i]) as a load.
template <class View, class F>
auto mapped_load(const View& x, const F& f) {
  using U = typename View::non_const_value_type;
  if constexpr (is_strided_view_v<View>)
    return AccessLoad<Mapped<Strided<const U>, F>>{{{x.data(), std::size_t(x.stride(0))}, f}};
  else
    return MapLoad<U, F>{x.data(), f};
}

/// f(x[i], y[i]) as a load.
template <class XView, class YView, class F>
auto zipped_load(const XView& x, const YView& y, const F& f) {
  using U = typename XView::non_const_value_type;
  using W = typename YView::non_const_value_type;
  if constexpr (is_strided_view_v<XView> || is_strided_view_v<YView>)
    return AccessLoad<Zipped<Strided<const U>, Strided<const W>, F>>{
        {{x.data(), is_strided_view_v<XView> ? std::size_t(x.stride(0)) : 1},
         {y.data(), is_strided_view_v<YView> ? std::size_t(y.stride(0)) : 1},
         f}};
  else
    return ZipLoad<U, W, F>{x.data(), y.data(), f};
}

/// {x[i], i} as a load, the index of type I.
template <class I, class View>
auto indexed_load(const View& x) {
  using U = typename View::non_const_value_type;
  if constexpr (is_strided_view_v<View>)
    return AccessLoad<Indexed<Strided<const U>, I>>{{{x.data(), std::size_t(x.stride(0))}, I(0)}};
  else
    return IndexLoad<U, I>{x.data(), I(0)};
}

/// The tuned policy for a load's elements (the table's row for their type and the operator's class).
template <class Load, class Op, class T, class Exec>
TunedPolicy tuned_for(const Exec& exec, std::size_t n) {
  return tuned_policy<typename Load::element_type>(exec, n, operator_traits<Op, T>::op_class);
}

/// The reduction of a load under op, returned (init applied on the host); policy: explicit, or
/// null for the tuned one.
template <class T, class Exec, class Load, class Op>
T reduce_load(const Exec& exec, std::size_t n, const Load& load, const Op& op, const ReducePolicy* policy,
              const char* label) {
  if (policy) return impl::reduce<Exec, T>(exec, n, load, *policy, label, op);
  return with_tuned(tuned_for<Load, Op, T>(exec, n),
                    [&](const ReducePolicy& p) { return impl::reduce<Exec, T>(exec, n, load, p, label, op); });
}

/// op(init, x) on the device, in order on exec: the initial value of a reduction into a View.
template <class T, class Op, class Result>
struct ApplyInit {
  Result result;
  T init;
  Op op;
  KOKKOS_INLINE_FUNCTION void operator()(int) const { result() = op(init, result()); }
};

/// The reduction of a load under op into the rank-0 View `result` (no wait), after init (one more
/// launch where init is not the identity's bits).
template <class T, class Exec, class Load, class Op, class Result>
void reduce_load_into(const Exec& exec, std::size_t n, const Load& load, const Op& op, const T* init,
                      const Result& result, const ReducePolicy* policy, const char* label) {
  check_result_view<T>(result);  // before with_tuned: its errors are not the row's
  if (policy)
    impl::reduce_into<Exec, T>(exec, n, load, *policy, label, result, op);
  else
    with_tuned(tuned_for<Load, Op, T>(exec, n),
               [&](const ReducePolicy& p) { impl::reduce_into<Exec, T>(exec, n, load, p, label, result, op); });
  if (init) {
    const T e = operator_traits<Op, T>::identity(op);
    if (std::memcmp(&e, init, sizeof(T)) != 0) {
      if constexpr (Kokkos::SpaceAccessibility<Exec, typename Result::memory_space>::accessible)
        Kokkos::parallel_for("kps::reduce::init", Kokkos::RangePolicy<Exec>(exec, 0, 1), ApplyInit<T, Op, Result>{result, *init, op});
      else {
        exec.fence("kps::reduce: the value for the initial value");
        result() = op(*init, result());
      }
    }
  }
}

/// op(init, the reduction of the load): an operator without an identity reduces Maybe values
/// (kps/operators.hpp), init where there is none.
template <class T, class Exec, class Load, class Op>
T reduce_value(const Exec& exec, std::size_t n, const Load& load, const Op& op, const T& init, const ReducePolicy* policy,
               const char* label) {
  if constexpr (operator_traits<Op, T>::has_identity) {
    return op(init, reduce_load<T>(exec, n, load, op, policy, label));
  } else {
    const Maybe<T> m = reduce_load<Maybe<T>>(exec, n, MaybeLoad<Load>{load}, MaybeOp<Op>{op}, policy, label);
    return m.valid ? op(init, m.value) : init;
  }
}

/// valid ? op(init, value) : init, into the result (an operator without an identity, into a View).
template <class T, class Op, class Result, class M>
struct ApplyInitMaybe {
  Result result;
  M maybe;
  T init;
  Op op;
  KOKKOS_INLINE_FUNCTION void operator()(int) const { result() = maybe().valid ? op(init, maybe().value) : init; }
};

/// The same into a rank-0 View (asynchronous where exec writes it).
template <class T, class Exec, class Load, class Op, class Result>
void reduce_value_into(const Exec& exec, std::size_t n, const Load& load, const Op& op, const T& init,
                       const Result& result, const ReducePolicy* policy, const char* label) {
  if constexpr (operator_traits<Op, T>::has_identity) {
    reduce_load_into<T>(exec, n, load, op, &init, result, policy, label);
  } else {
    check_result_view<T>(result);
    Kokkos::View<Maybe<T>, typename Result::memory_space> m(Kokkos::view_alloc(exec, std::string("kps::reduce::maybe")));
    reduce_load_into<Maybe<T>>(exec, n, MaybeLoad<Load>{load}, MaybeOp<Op>{op}, static_cast<const Maybe<T>*>(nullptr), m,
                               policy, label);
    if constexpr (Kokkos::SpaceAccessibility<Exec, typename Result::memory_space>::accessible) {
      Kokkos::parallel_for("kps::reduce::init", Kokkos::RangePolicy<Exec>(exec, 0, 1),
                           ApplyInitMaybe<T, Op, Result, decltype(m)>{result, m, init, op});
    } else {
      exec.fence("kps::reduce: the value for the initial value");
      result() = m().valid ? op(init, m().value) : init;
    }
  }
}

/// The index type of argmin / argmax for n elements: 32 bits where they fit (a 8-byte pair for
/// 4-byte values, as CUB's offsets), else 64.
template <class F>
auto with_index_type(std::size_t n, F&& f) {
  if (n < std::size_t(std::numeric_limits<std::uint32_t>::max()))
    return f(std::uint32_t{});
  else
    return f(std::int64_t{});
}

template <class U>
struct ToMinMax {
  KOKKOS_INLINE_FUNCTION MinMax<U> operator()(const U& v) const { return {v, v}; }
};

/// A 32-bit index's (value, index) into a result of 64-bit indices (-1: none).
template <class U, class Result, class Narrow>
struct WidenIndex {
  Result out;
  Narrow narrow;
  bool empty;
  KOKKOS_INLINE_FUNCTION void operator()(int) const {
    out() = ValueIndex<U>{narrow().value, empty ? std::int64_t(-1) : std::int64_t(narrow().index)};
  }
};

/// argmin / argmax of x under arg_op, returned or into a View (result non-null).
template <class ArgOp, class Exec, class View, class Result>
ValueIndex<typename View::non_const_value_type> arg_extremum(const Exec& exec, const View& x, const Result* result,
                                                             const ReducePolicy* policy, const char* label) {
  using U = typename View::non_const_value_type;
  check_reduce_view<Exec>(x);
  const std::size_t n = x.extent(0);
  return with_index_type(n, [&](auto index) {
    using I = decltype(index);
    using A = ValueIndex<U, I>;
    const auto load = indexed_load<I>(x);
    if constexpr (!std::is_void_v<Result>) {
      if constexpr (std::is_same_v<I, std::int64_t>) {
        reduce_load_into<A>(exec, n, load, ArgOp{}, static_cast<const A*>(nullptr), *result, policy, label);
      } else {
        // The result is of 64-bit indices: a 32-bit one is widened on the device after.
        Kokkos::View<A, typename Result::memory_space> narrow(Kokkos::view_alloc(exec, std::string("kps::argmin::narrow")));
        reduce_load_into<A>(exec, n, load, ArgOp{}, static_cast<const A*>(nullptr), narrow, policy, label);
        const WidenIndex<U, Result, decltype(narrow)> widen{*result, narrow, n == 0};
        if constexpr (Kokkos::SpaceAccessibility<Exec, typename Result::memory_space>::accessible) {
          Kokkos::parallel_for("kps::argmin::widen", Kokkos::RangePolicy<Exec>(exec, 0, 1), widen);
        } else {
          exec.fence("kps::argmin: the value for the host");
          widen(0);
        }
      }
      return ValueIndex<U>{};
    } else {
      if (n == 0) {
        policy ? (void)validate<Exec, A>(exec, *policy, n, load, ArgOp{}) : (void)0;
        return ValueIndex<U>{operator_traits<ArgOp, A>::identity(ArgOp{}).value, -1};
      }
      const A a = reduce_load<A>(exec, n, load, ArgOp{}, policy, label);
      return ValueIndex<U>{a.value, std::int64_t(a.index)};
    }
  });
}

}  // namespace impl

/// Sum of x with an explicit policy.
template <class Exec, class View>
typename View::non_const_value_type reduce_sum(const Exec& exec, const View& x, const ReducePolicy& policy) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  return impl::reduce<Exec, T>(exec, x.extent(0), impl::view_load(x), policy, "kps::reduce_sum");
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
  impl::reduce_into<Exec, T>(exec, x.extent(0), impl::view_load(x), policy, "kps::reduce_sum", result);
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

namespace impl {
/// x[i] * y[i] (the binary transform of kps::dot on strided Views).
struct times {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(const T& a, const T& b) const {
    return T(a * b);
  }
};

template <class XView, class YView>
auto dot_load(const XView& x, const YView& y) {
  using T = typename XView::non_const_value_type;
  if constexpr (is_strided_view_v<XView> || is_strided_view_v<YView>)
    return zipped_load(x, y, times{});
  else
    return DotLoad<T>{x.data(), y.data()};
}
}  // namespace impl

/// Dot product of x and y (same length and type): transform_reduce(exec, x, y, T(0), plus, *).
template <class Exec, class XView, class YView>
typename XView::non_const_value_type dot(const Exec& exec, const XView& x, const YView& y,
                                         const ReducePolicy& policy) {
  using T = typename XView::non_const_value_type;
  static_assert(std::is_same_v<T, typename YView::non_const_value_type>, "kps dot: x and y must have the same type");
  impl::check_dot_views<Exec>(x, y);
  return impl::reduce<Exec, T>(exec, x.extent(0), impl::dot_load(x, y), policy, "kps::dot");
}

/// Dot product with the tuned policy: the sum's table row for the same type and N (the
/// sweep tunes sums; a dot product reads twice the bytes per element with the same pattern).
template <class Exec, class XView, class YView>
typename XView::non_const_value_type dot(const Exec& exec, const XView& x, const YView& y) {
  using T = typename XView::non_const_value_type;
  static_assert(std::is_same_v<T, typename YView::non_const_value_type>, "kps dot: x and y must have the same type");
  impl::check_dot_views<Exec>(x, y);
  return impl::with_tuned(impl::tuned_policy<T>(exec, x.extent(0)),
                          [&](const ReducePolicy& p) { return dot(exec, x, y, p); });
}

/// Dot product of x and y into the rank-0 View `result` (asynchronous, as reduce_sum into a View).
template <class Exec, class XView, class YView, class Result,
          std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void dot(const Exec& exec, const XView& x, const YView& y, const Result& result, const ReducePolicy& policy) {
  using T = typename XView::non_const_value_type;
  static_assert(std::is_same_v<T, typename YView::non_const_value_type>, "kps dot: x and y must have the same type");
  impl::check_dot_views<Exec>(x, y);
  impl::check_result_view<T>(result);
  impl::reduce_into<Exec, T>(exec, x.extent(0), impl::dot_load(x, y), policy, "kps::dot", result);
}

/// Dot product into the rank-0 View `result` with the tuned policy (asynchronous).
template <class Exec, class XView, class YView, class Result,
          std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void dot(const Exec& exec, const XView& x, const YView& y, const Result& result) {
  using T = typename XView::non_const_value_type;
  static_assert(std::is_same_v<T, typename YView::non_const_value_type>, "kps dot: x and y must have the same type");
  impl::check_dot_views<Exec>(x, y);
  impl::check_result_view<T>(result);  // before with_tuned: its errors are not the row's
  impl::with_tuned(impl::tuned_policy<T>(exec, x.extent(0)),
                   [&](const ReducePolicy& p) { dot(exec, x, y, result, p); });
}

// ---- any operator ------------------------------------------------------------------------

namespace impl {
template <class X>
inline constexpr bool is_policy_v = std::is_same_v<std::decay_t<X>, ReducePolicy>;

template <class Exec, class View, class Init, class Op>
constexpr bool check_reduce_args() {
  using T = typename View::non_const_value_type;
  check_reduce_operator<T, Op>();
  static_assert(std::is_same_v<std::decay_t<Init>, T>, "kps reduce: init must have x's value type (write T(0), not 0)");
  return is_binary_operator<Op, T>::value && !operator_traits<Op, T>::declared_noncommutative &&
         std::is_same_v<std::decay_t<Init>, T>;
}
}  // namespace impl

/// op(init, x[0], ..., x[n-1]) (std::reduce; CUB's DeviceReduce::Reduce), with the tuned policy or
/// an explicit one.
template <class Exec, class View, class Init, class Op, std::enable_if_t<!Kokkos::is_view<Op>::value, int> = 0>
typename View::non_const_value_type reduce(const Exec& exec, const View& x, const Init& init, const Op& op) {
  using T = typename View::non_const_value_type;
  if constexpr (impl::check_reduce_args<Exec, View, Init, Op>()) {
    impl::check_reduce_view<Exec>(x);
    return impl::reduce_value<T>(exec, x.extent(0), impl::view_load(x), op, T(init), nullptr, "kps::reduce");
  } else {
    (void)exec, (void)x, (void)init, (void)op;
    return T{};
  }
}
template <class Exec, class View, class Init, class Op>
typename View::non_const_value_type reduce(const Exec& exec, const View& x, const Init& init, const Op& op,
                                           const ReducePolicy& policy) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_args<Exec, View, Init, Op>();
  impl::check_reduce_view<Exec>(x);
  return impl::reduce_value<T>(exec, x.extent(0), impl::view_load(x), op, T(init), &policy, "kps::reduce");
}
/// The same into the rank-0 View `result` (asynchronous, as reduce_sum into a View).
template <class Exec, class View, class Init, class Op, class Result,
          std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void reduce(const Exec& exec, const View& x, const Init& init, const Op& op, const Result& result) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_args<Exec, View, Init, Op>();
  impl::check_reduce_view<Exec>(x);
  impl::reduce_value_into<T>(exec, x.extent(0), impl::view_load(x), op, T(init), result, nullptr, "kps::reduce");
}
template <class Exec, class View, class Init, class Op, class Result,
          std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void reduce(const Exec& exec, const View& x, const Init& init, const Op& op, const Result& result,
            const ReducePolicy& policy) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_args<Exec, View, Init, Op>();
  impl::check_reduce_view<Exec>(x);
  impl::reduce_value_into<T>(exec, x.extent(0), impl::view_load(x), op, T(init), result, &policy, "kps::reduce");
}

/// The smallest element (the largest value of the type, +inf for floating point, where x is empty).
template <class Exec, class View>
typename View::non_const_value_type reduce_min(const Exec& exec, const View& x) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  return impl::reduce_load<T>(exec, x.extent(0), impl::view_load(x), minimum{}, nullptr, "kps::reduce_min");
}
template <class Exec, class View, class Result, std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void reduce_min(const Exec& exec, const View& x, const Result& result) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  impl::reduce_load_into<T>(exec, x.extent(0), impl::view_load(x), minimum{}, static_cast<const T*>(nullptr), result,
                            nullptr, "kps::reduce_min");
}
/// The largest element (the lowest value of the type, -inf for floating point, where x is empty).
template <class Exec, class View>
typename View::non_const_value_type reduce_max(const Exec& exec, const View& x) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  return impl::reduce_load<T>(exec, x.extent(0), impl::view_load(x), maximum{}, nullptr, "kps::reduce_max");
}
template <class Exec, class View, class Result, std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void reduce_max(const Exec& exec, const View& x, const Result& result) {
  using T = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  impl::reduce_load_into<T>(exec, x.extent(0), impl::view_load(x), maximum{}, static_cast<const T*>(nullptr), result,
                            nullptr, "kps::reduce_max");
}

/// The smallest and the largest element in one pass (Kokkos' MinMax).
template <class Exec, class View>
MinMax<typename View::non_const_value_type> minmax(const Exec& exec, const View& x) {
  using U = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  return impl::reduce_load<MinMax<U>>(exec, x.extent(0), impl::mapped_load(x, impl::ToMinMax<U>{}), min_max{}, nullptr,
                                      "kps::minmax");
}
template <class Exec, class View, class Result, std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void minmax(const Exec& exec, const View& x, const Result& result) {
  using U = typename View::non_const_value_type;
  impl::check_reduce_view<Exec>(x);
  impl::reduce_load_into<MinMax<U>>(exec, x.extent(0), impl::mapped_load(x, impl::ToMinMax<U>{}), min_max{},
                                    static_cast<const MinMax<U>*>(nullptr), result, nullptr, "kps::minmax");
}

/// The smallest element and its index, the lowest index among equal ones (CUB's ArgMin, Kokkos'
/// MinLoc); index -1 where x is empty.
template <class Exec, class View>
ValueIndex<typename View::non_const_value_type> argmin(const Exec& exec, const View& x) {
  return impl::arg_extremum<arg_minimum, Exec, View, void>(exec, x, nullptr, nullptr, "kps::argmin");
}
template <class Exec, class View>
ValueIndex<typename View::non_const_value_type> argmin(const Exec& exec, const View& x, const ReducePolicy& policy) {
  return impl::arg_extremum<arg_minimum, Exec, View, void>(exec, x, nullptr, &policy, "kps::argmin");
}
template <class Exec, class View, class Result, std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void argmin(const Exec& exec, const View& x, const Result& result) {
  impl::check_result_view<ValueIndex<typename View::non_const_value_type>>(result);
  impl::arg_extremum<arg_minimum, Exec, View, Result>(exec, x, &result, nullptr, "kps::argmin");
}
/// The largest element and its index, the lowest index among equal ones (CUB's ArgMax, MaxLoc).
template <class Exec, class View>
ValueIndex<typename View::non_const_value_type> argmax(const Exec& exec, const View& x) {
  return impl::arg_extremum<arg_maximum, Exec, View, void>(exec, x, nullptr, nullptr, "kps::argmax");
}
template <class Exec, class View>
ValueIndex<typename View::non_const_value_type> argmax(const Exec& exec, const View& x, const ReducePolicy& policy) {
  return impl::arg_extremum<arg_maximum, Exec, View, void>(exec, x, nullptr, &policy, "kps::argmax");
}
template <class Exec, class View, class Result, std::enable_if_t<Kokkos::is_view<Result>::value, int> = 0>
void argmax(const Exec& exec, const View& x, const Result& result) {
  impl::check_result_view<ValueIndex<typename View::non_const_value_type>>(result);
  impl::arg_extremum<arg_maximum, Exec, View, Result>(exec, x, &result, nullptr, "kps::argmax");
}

/// op(init, f(x[0]), ..., f(x[n-1])) (std::transform_reduce, unary; CUB's TransformReduce).
template <class Exec, class View, class Init, class Op, class F,
          std::enable_if_t<!Kokkos::is_view<Init>::value && !Kokkos::is_view<F>::value, int> = 0>
std::decay_t<Init> transform_reduce(const Exec& exec, const View& x, const Init& init, const Op& op, const F& f) {
  using T = std::decay_t<Init>;
  impl::check_reduce_view<Exec>(x);
  impl::check_reduce_operator<T, Op>();
  static_assert(std::is_convertible_v<decltype(f(std::declval<typename View::value_type>())), T>,
                "kps transform_reduce: the transform must give init's type");
  return impl::reduce_value<T>(exec, x.extent(0), impl::mapped_load(x, f), op, T(init), nullptr, "kps::transform_reduce");
}
/// op(init, f(x[0], y[0]), ..., f(x[n-1], y[n-1])) (std::transform_reduce, binary; kps::dot is
/// the one of kps::plus and a product).
template <class Exec, class XView, class YView, class Init, class Op, class F,
          std::enable_if_t<Kokkos::is_view<YView>::value && !Kokkos::is_view<Init>::value, int> = 0>
std::decay_t<Init> transform_reduce(const Exec& exec, const XView& x, const YView& y, const Init& init, const Op& op,
                                    const F& f) {
  using T = std::decay_t<Init>;
  impl::check_dot_views<Exec>(x, y);
  impl::check_reduce_operator<T, Op>();
  static_assert(std::is_convertible_v<decltype(f(std::declval<typename XView::value_type>(),
                                                 std::declval<typename YView::value_type>())),
                                      T>,
                "kps transform_reduce: the transform must give init's type");
  if constexpr (impl::is_plus_v<Op, T> && std::is_same_v<F, multiplies> &&
                std::is_same_v<typename XView::non_const_value_type, T> &&
                std::is_same_v<typename YView::non_const_value_type, T>)
    return T(init + dot(exec, x, y));
  else
    return impl::reduce_value<T>(exec, x.extent(0), impl::zipped_load(x, y, f), op, T(init), nullptr,
                                 "kps::transform_reduce");
}

}  // namespace kps
