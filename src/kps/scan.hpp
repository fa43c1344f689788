// kps/scan.hpp — public scan API: exclusive and inclusive scans of rank-1 Kokkos Views under any
// associative operator, with an initial value, and after a transform, on any execution space, with
// a choice of algorithm (in the style of Kokkos' std algorithms and CUB's DeviceScan).
//
//   kps::exclusive_scan(exec, in, out);                              // sums: out[0] = 0
//   kps::inclusive_scan(exec, in, out, kps::ScanAlgorithm::blelloch);
//   kps::exclusive_scan(exec, in, out, init, op);                    // out[0] = init
//   kps::inclusive_scan(exec, in, out, op);                          // out[0] = in[0]
//   kps::inclusive_scan(exec, in, out, op, init);                    // out[0] = op(init, in[0])
//   kps::transform_exclusive_scan(exec, in, out, init, op, f);       // of f(in[i])
//   kps::transform_inclusive_scan(exec, in, out, op, f[, init]);
//
// Each takes an algorithm and kps::ScanOptions last (both optional). The operator (kps/operators.hpp:
// kps::plus, minimum, maximum, multiplies, bit_and, bit_or, bit_xor, or any functor callable on two
// values on the device) must be associative and nothing more: every algorithm scans in order, so a
// non-commutative operator (a segmented scan's (flag, value) pair, 2x2 matrix products) gives the
// left-to-right result. The value type (kps/types.hpp) is out's: in's must be the same (for a
// transform, the transform's result), and so must init's (write T(0), not 0: no silent narrowing).
// Views may be contiguous or LayoutStride; `in` and `out` may be the same View (in place); an
// `out` that overlaps `in` otherwise is refused. Calls are asynchronous on `exec` like any Kokkos
// dispatch; mismatched lengths, overlaps and policies out of range throw std::invalid_argument.
// Floating point: ScanOptions::deterministic. The algorithms, their knobs and what each costs:
// kps/scan/policy.hpp; the layers below: kps/scan/ (operation, tile status, tile loads, look-back,
// per-tile kernel, dispatch, tuning) and kps/team/team_scan.hpp.
#pragma once

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/impl/access.hpp"
#include "kps/impl/workspace.hpp"
#include "kps/operators.hpp"
#include "kps/scan/dispatch.hpp"
#include "kps/scan/kokkos_scan.hpp"
#include "kps/scan/operation.hpp"
#include "kps/scan/policy.hpp"
#include "kps/scan/tile_scan.hpp"
#include "kps/scan/tuning.hpp"
#include "kps/types.hpp"

namespace kps {

/// What `automatic` runs for n elements of T under Op on exec: the algorithm measured fastest there
/// (the tuning table of exec's device, else the rule of kps::impl::scan_rule).
template <class T, class Exec, class Op = plus>
ScanAlgorithm choose_scan_algorithm(const Exec& exec, std::size_t n) {
  return impl::choose_scan_algorithm<Exec, T, Op>(exec, n);
}

namespace impl {

/// The compile-time rules of a scan's arguments, each with its own message.
template <class Exec, class InView, class OutView>
constexpr void check_scan_types() {
  static_assert(Kokkos::is_execution_space<Exec>::value, "kps scan: exec must be a Kokkos execution space");
  static_assert(Kokkos::is_view<InView>::value && Kokkos::is_view<OutView>::value,
                "kps scan: in and out must be Kokkos Views");
  static_assert(InView::rank == 1 && OutView::rank == 1, "kps scan: in and out must be rank-1 Views");
  using T = typename OutView::non_const_value_type;
  static_assert(std::is_same_v<typename OutView::value_type, T>, "kps scan: out must not be const");
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "kps scan: the value type must be trivially copyable and default constructible (kps copies values "
                "between threads and memory as bytes)");
  static_assert(is_element_type_v<T>, "kps scan: the value type must be a number or a struct, not a character, bool "
                                      "or pointer (kps/types.hpp)");
  static_assert(Kokkos::SpaceAccessibility<Exec, typename InView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Exec, typename OutView::memory_space>::accessible,
                "kps scan: in and out must be accessible from exec");
}

template <class T, class Op>
constexpr void check_scan_operator() {
  static_assert(is_binary_operator<Op, T>::value,
                "kps scan: op must be callable on two values of out's value type, op(a, b), and give that type (a "
                "KOKKOS_FUNCTION call operator)");
}

/// Whether a rank-1 View is read through its stride (LayoutStride), not as contiguous memory.
template <class View>
inline constexpr bool is_strided_v = std::is_same_v<typename View::array_layout, Kokkos::LayoutStride>;

/// The elements of a rank-1 View: their first address and the distance between two, in elements.
template <class View>
std::pair<std::uintptr_t, std::size_t> view_span(const View& v) {
  return {reinterpret_cast<std::uintptr_t>(v.data()), is_strided_v<View> ? std::size_t(v.stride(0)) : std::size_t(1)};
}

/// The runtime rules: equal lengths; an `out` that is `in` (the same elements: in place) or
/// overlaps nothing of it. Returns the length.
template <class T, class InView, class OutView>
std::size_t check_scan_views(const InView& in, const OutView& out) {
  if (in.extent(0) != out.extent(0))
    throw std::invalid_argument("kps scan: in has " + std::to_string(in.extent(0)) + " elements but out has " +
                                std::to_string(out.extent(0)));
  const std::size_t n = in.extent(0);
  if (n == 0) return 0;
  const auto [first_in, step_in] = view_span(in);
  const auto [first_out, step_out] = view_span(out);
  const std::size_t in_bytes = ((n - 1) * step_in + 1) * sizeof(typename InView::value_type);
  const std::size_t out_bytes = ((n - 1) * step_out + 1) * sizeof(T);
  const bool same = first_in == first_out && step_in == step_out && sizeof(typename InView::value_type) == sizeof(T);
  if (!same && first_in < first_out + out_bytes && first_out < first_in + in_bytes)
    throw std::invalid_argument("kps scan: out overlaps in without being the same View (" +
                                std::to_string((std::intptr_t(first_out) - std::intptr_t(first_in)) / std::intptr_t(sizeof(T))) +
                                " elements apart); scan in place with one View, or into memory of its own");
  return n;
}

/// Where the algorithms of a problem meet: `automatic` resolved, the workspace held.
template <class Exec, class P>
void run_scan_problem(const Exec& exec, const typename P::in_type& in, const typename P::out_type& out, std::size_t n,
                      bool exclusive, ScanAlgorithm alg, const ScanOptions& options, const typename P::op_type& op,
                      const typename P::init_type& init, bool deterministic) {
  using T = typename P::value_type;
  constexpr bool has_init = !std::is_same_v<typename P::init_type, NoInit>;
  if (alg == ScanAlgorithm::automatic) alg = kps::choose_scan_algorithm<T, Exec, typename P::op_type>(exec, n);
  Workspace<Exec>& ws = workspace(exec);
  std::lock_guard<std::mutex> lock(ws.mutex);
  switch (alg) {
    case ScanAlgorithm::kokkos: kokkos_scan_problem<Exec, P>(exec, in, out, n, exclusive, op, init); break;
    case ScanAlgorithm::hillis_steele:
    case ScanAlgorithm::blelloch: {
      const TeamScanAlgorithm team =
          alg == ScanAlgorithm::blelloch ? TeamScanAlgorithm::blelloch : TeamScanAlgorithm::hillis_steele;
      const int tile = tile_scan_tile(options.tile.tile);
      unsigned char* scratch = ws.scratch_bytes(exec, tile_scan_scratch_bytes<T>(n, tile, has_init));
      tile_scan<Exec, T>(exec, in, out, n, exclusive, team, options.tile, scratch, op, init);
      break;
    }
    case ScanAlgorithm::single_pass:
    case ScanAlgorithm::automatic:
      single_pass_scan_problem<Exec, P>(exec, in, out, n, exclusive, options.single_pass, ws, op, init, deterministic);
      break;
  }
}

/// The problem's deterministic form where asked for and it changes anything (an inexact
/// operator): a problem with run-time flags (kps/scan/operation.hpp), today's sums' too.
template <class Exec, class T, class Op, class In, class Out, class Init>
void scan_with(const Exec& exec, const In& in, const Out& out, std::size_t n, bool exclusive, ScanAlgorithm alg,
               const ScanOptions& options, const Op& op, const Init& init) {
  if constexpr (!operator_traits<Op, T>::exact) {
    if (options.deterministic)
      return run_scan_problem<Exec, ScanProblem<T, Op, In, Out, Init, true>>(exec, in, out, n, exclusive, alg, options,
                                                                              op, init, true);
  }
  run_scan_problem<Exec, ScanProblem<T, Op, In, Out, Init>>(exec, in, out, n, exclusive, alg, options, op, init, false);
}

/// Wraps a value as one of an operator without an identity (kps::impl::Maybe), and back.
template <class T>
struct ToMaybe {
  KOKKOS_INLINE_FUNCTION Maybe<T> operator()(const T& v) const { return {v, true}; }
};
template <class T>
struct FromMaybe {
  KOKKOS_INLINE_FUNCTION T operator()(const Maybe<T>& m) const { return m.value; }
};

/// The scan of the accessors in and out (value type T after `map`, an identity-like Mapped's
/// function or none) under op, after init (NoInit or InitValue<T>).
template <class Exec, class T, class Op, class In, class Out, class Init>
void scan_accessors(const Exec& exec, const In& in, const Out& out, std::size_t n, bool exclusive, ScanAlgorithm alg,
                    const ScanOptions& options, const Op& op, const Init& init) {
  if constexpr (operator_traits<Op, T>::has_identity) {
    scan_with<Exec, T>(exec, in, out, n, exclusive, alg, options, op, init);
  } else {
    // No identity: the values carry a flag (kps/operators.hpp, Maybe), in registers and scratch only.
    using M = Maybe<T>;
    const Mapped<In, ToMaybe<T>> min{in, {}};
    const MappedOut<Out, FromMaybe<T>, ToMaybe<T>> mout{out, {}, {}};
    if constexpr (std::is_same_v<Init, NoInit>)
      scan_with<Exec, M>(exec, min, mout, n, exclusive, alg, options, MaybeOp<Op>{op}, NoInit{});
    else
      scan_with<Exec, M>(exec, min, mout, n, exclusive, alg, options, MaybeOp<Op>{op}, InitValue<M>{{init.value, true}});
  }
}

/// The scan of Views: their accessors (contiguous memory: pointers, with the 16-byte vector paths;
/// else both strided), and the transform `f` of the input where there is one (Unary not void).
template <class Unary, class Exec, class InView, class OutView, class Op, class Init>
void scan_views(const Exec& exec, const InView& in, const OutView& out, bool exclusive, ScanAlgorithm alg,
                const ScanOptions& options, const Op& op, const Init& init, const Unary* f) {
  using T = typename OutView::non_const_value_type;
  using U = typename InView::value_type;
  const std::size_t n = check_scan_views<T>(in, out);
  if (n == 0) return;
  const auto run = [&](const auto& a, const auto& b) {
    if constexpr (std::is_void_v<Unary>) {
      (void)f;
      scan_accessors<Exec, T>(exec, a, b, n, exclusive, alg, options, op, init);
    } else {
      scan_accessors<Exec, T>(exec, Mapped<std::decay_t<decltype(a)>, Unary>{a, *f}, b, n, exclusive, alg, options, op,
                              init);
    }
  };
  // Decided by the Views' layouts (at compile time: one set of kernels per call): a rank-1 View
  // of LayoutLeft or LayoutRight is contiguous; one of LayoutStride is read through its stride.
  if constexpr (!is_strided_v<InView> && !is_strided_v<OutView>)
    run(static_cast<const U*>(in.data()), out.data());
  else
    run(Strided<const U>{in.data(), view_span(in).second}, Strided<T>{out.data(), view_span(out).second});
}

/// Whether a scan's argument types are all right (what scan_checked asserts, one message each):
/// only then is anything below instantiated, so a mistake gives its message and no cascade.
template <class Exec, class InView, class OutView, class Op, class Init, class Unary>
constexpr bool scan_types_ok() {
  if constexpr (!Kokkos::is_view<InView>::value || !Kokkos::is_view<OutView>::value) {
    return false;
  } else {
    using T = typename OutView::non_const_value_type;
    bool ok = Kokkos::is_execution_space<Exec>::value && InView::rank == 1 && OutView::rank == 1 &&
              std::is_same_v<typename OutView::value_type, T> && std::is_trivially_copyable_v<T> &&
              std::is_default_constructible_v<T> && is_element_type_v<T> && is_binary_operator<Op, T>::value;
    if constexpr (std::is_void_v<Unary>)
      ok = ok && std::is_same_v<typename InView::non_const_value_type, T>;
    else
      ok = ok && std::is_invocable_r_v<T, const Unary&, typename InView::value_type>;
    if constexpr (!std::is_same_v<Init, NoInit>) ok = ok && std::is_same_v<std::decay_t<decltype(std::declval<Init>().value)>, T>;
    return ok;
  }
}

template <class Exec, class InView, class OutView, class Op, class Init, class Unary = void>
void scan_checked(const Exec& exec, const InView& in, const OutView& out, bool exclusive, ScanAlgorithm alg,
                  const ScanOptions& options, const Op& op, const Init& init, const Unary* f = nullptr) {
  check_scan_types<Exec, InView, OutView>();
  using T = typename OutView::non_const_value_type;
  check_scan_operator<T, Op>();
  if constexpr (std::is_void_v<Unary>)
    static_assert(std::is_same_v<typename InView::non_const_value_type, T>,
                  "kps scan: in and out must have the same value type (a transform_*_scan maps one to the other)");
  else
    static_assert(std::is_invocable_r_v<T, const Unary&, typename InView::value_type>,
                  "kps transform scan: the transform must map in's value type to out's");
  if constexpr (!std::is_same_v<Init, NoInit>)
    static_assert(std::is_same_v<std::decay_t<decltype(init.value)>, T>,
                  "kps scan: init must have out's value type (write T(0), not 0)");
  if constexpr (scan_types_ok<Exec, InView, OutView, Op, Init, Unary>())
    scan_views<Unary>(exec, in, out, exclusive, alg, options, op, init, f);
  else
    (void)exec, (void)in, (void)out, (void)exclusive, (void)alg, (void)options, (void)op, (void)init, (void)f;
}

/// What `automatic` runs for the problem P, compiled for what a backend's tuning picks: Kokkos'
/// scan, or the single pass on the tiles the platform's sweeps measure (cached tiles on a host
/// backend; direct and staged tiles on a GPU), nothing else. kps-bench's families of the
/// operators-and-types part call it (the same kernels as `automatic`, a third of the compile);
/// a table row of another load is std::invalid_argument.
template <class Exec, class T, class Op, class In, class Out, class Init>
void scan_tuned(const Exec& exec, const In& in, const Out& out, std::size_t n, bool exclusive, const Op& op,
                const Init& init, bool deterministic = false) {
  using P = ScanProblem<T, Op, In, Out, Init, true>;
  if (n == 0) return;
  const ScanAlgorithm alg = kps::choose_scan_algorithm<T, Exec, Op>(exec, n);
  if (alg == ScanAlgorithm::kokkos) return kokkos_scan_problem<Exec, P>(exec, in, out, n, exclusive, op, init);
  if (alg != ScanAlgorithm::single_pass)
    throw std::invalid_argument(std::string("kps: scan_tuned runs kokkos or single_pass, not ") + to_string(alg));
  Workspace<Exec>& ws = workspace(exec);
  std::lock_guard<std::mutex> lock(ws.mutex);
  const SinglePassPolicy p = resolve<Exec, T, Op, P>(exec, {}, n);
  if (deterministic && operator_traits<Op, T>::exact) deterministic = false;
  if constexpr (is_host_space_v<Exec>) {
    if (p.load != TileLoad::cached)
      throw std::invalid_argument("kps: scan_tuned: a host backend's tuned tiles are cached tiles, not " +
                                  std::string(to_string(p.load)));
    const auto launch = [&](auto streaming) {
      launch_cached_single_pass<Exec, T, true, decltype(streaming)::value, P>(exec, in, out, n, p, ws, NoProbe{}, op,
                                                                              init, exclusive, deterministic);
    };
    if (p.store == TileStore::streaming)
      launch(std::true_type{});
    else
      launch(std::false_type{});
  } else {
    if (p.load == TileLoad::cached)
      throw std::invalid_argument("kps: scan_tuned: a GPU's tuned tiles are direct or staged tiles, not cached ones");
    with_single_pass_kernel<P>(p, [&](auto items, auto stage) {
      launch_single_pass<Exec, T, decltype(items)::value, true, decltype(stage)::value, P>(
          exec, in, out, n, p, ws, NoProbe{}, op, init, exclusive, deterministic);
    });
  }
}

/// An initial value's type: its own (checked against out's by scan_checked).
template <class V>
using InitOf = InitValue<std::decay_t<V>>;

template <class X>
inline constexpr bool is_algorithm_v = std::is_same_v<std::decay_t<X>, ScanAlgorithm>;

}  // namespace impl

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0).
template <class Exec, class InView, class OutView>
void exclusive_scan(const Exec& exec, const InView& in, const OutView& out,
                    ScanAlgorithm alg = ScanAlgorithm::automatic, const ScanOptions& options = {}) {
  impl::scan_checked(exec, in, out, true, alg, options, plus{}, impl::NoInit{});
}

/// out[i] = in[0] + ... + in[i].
template <class Exec, class InView, class OutView>
void inclusive_scan(const Exec& exec, const InView& in, const OutView& out,
                    ScanAlgorithm alg = ScanAlgorithm::automatic, const ScanOptions& options = {}) {
  impl::scan_checked(exec, in, out, false, alg, options, plus{}, impl::NoInit{});
}

/// out[0] = init, out[i] = op(...op(op(init, in[0]), in[1])..., in[i-1]) (std::exclusive_scan;
/// CUB's ExclusiveScan).
template <class Exec, class InView, class OutView, class Init, class Op,
          std::enable_if_t<!impl::is_algorithm_v<Init>, int> = 0>
void exclusive_scan(const Exec& exec, const InView& in, const OutView& out, const Init& init, const Op& op,
                    ScanAlgorithm alg = ScanAlgorithm::automatic, const ScanOptions& options = {}) {
  impl::scan_checked(exec, in, out, true, alg, options, op, impl::InitOf<Init>{init});
}

/// out[i] = op(...op(in[0], in[1])..., in[i]) (std::inclusive_scan; CUB's InclusiveScan).
template <class Exec, class InView, class OutView, class Op, std::enable_if_t<!impl::is_algorithm_v<Op>, int> = 0>
void inclusive_scan(const Exec& exec, const InView& in, const OutView& out, const Op& op,
                    ScanAlgorithm alg = ScanAlgorithm::automatic, const ScanOptions& options = {}) {
  impl::scan_checked(exec, in, out, false, alg, options, op, impl::NoInit{});
}

/// out[i] = op(...op(op(init, in[0]), in[1])..., in[i]) (CUB's InclusiveScanInit).
template <class Exec, class InView, class OutView, class Op, class Init,
          std::enable_if_t<!impl::is_algorithm_v<Op> && !impl::is_algorithm_v<Init>, int> = 0>
void inclusive_scan(const Exec& exec, const InView& in, const OutView& out, const Op& op, const Init& init,
                    ScanAlgorithm alg = ScanAlgorithm::automatic, const ScanOptions& options = {}) {
  impl::scan_checked(exec, in, out, false, alg, options, op, impl::InitOf<Init>{init});
}

/// The exclusive scan of f(in[i]) (std::transform_exclusive_scan).
template <class Exec, class InView, class OutView, class Init, class Op, class Unary>
void transform_exclusive_scan(const Exec& exec, const InView& in, const OutView& out, const Init& init, const Op& op,
                              const Unary& f, ScanAlgorithm alg = ScanAlgorithm::automatic,
                              const ScanOptions& options = {}) {
  impl::scan_checked(exec, in, out, true, alg, options, op, impl::InitOf<Init>{init}, &f);
}

/// The inclusive scan of f(in[i]) (std::transform_inclusive_scan).
template <class Exec, class InView, class OutView, class Op, class Unary>
void transform_inclusive_scan(const Exec& exec, const InView& in, const OutView& out, const Op& op, const Unary& f,
                              ScanAlgorithm alg = ScanAlgorithm::automatic, const ScanOptions& options = {}) {
  impl::scan_checked(exec, in, out, false, alg, options, op, impl::NoInit{}, &f);
}

/// The inclusive scan of f(in[i]) after init.
template <class Exec, class InView, class OutView, class Op, class Unary, class Init,
          std::enable_if_t<!impl::is_algorithm_v<Init>, int> = 0>
void transform_inclusive_scan(const Exec& exec, const InView& in, const OutView& out, const Op& op, const Unary& f,
                              const Init& init, ScanAlgorithm alg = ScanAlgorithm::automatic,
                              const ScanOptions& options = {}) {
  impl::scan_checked(exec, in, out, false, alg, options, op, impl::InitOf<Init>{init}, &f);
}

}  // namespace kps
