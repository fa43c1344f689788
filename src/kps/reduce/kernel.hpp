// kps/reduce/kernel.hpp — the tunable device-wide reduction's kernel, written once against Kokkos
// TeamPolicy, for any commutative operator (kps/operators.hpp): the loads (SumLoad, DotLoad, and
// the general ones: a transform of one or two inputs, each value with its index, a strided
// input; 16-byte vectors where contiguous and aligned), each thread's share of the data, and the
// team functor. How a thread's share is laid out depends on the backend (ReduceShare: the
// grid-stride share here, GPUs; the contiguous share of kps/host/reduce_share.hpp on host
// backends). kps::plus is written as today's sums were (`+=`, Kokkos' own sum), so that their
// kernels do not change.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "kps/impl/access.hpp"
#include "kps/impl/kokkos_compat.hpp"
#include "kps/impl/reducer.hpp"
#include "kps/operators.hpp"
#include "kps/scan/operation.hpp"

namespace kps::impl {

/// The reduction's team policy. Launch bounds of 1024 threads and 2 teams per multiprocessor
/// hold a CUDA kernel to 32 registers per thread: 2048 resident threads per SM (the H100's
/// most) at every team size, as CUB's reduction kernel. Without them it took 40 registers
/// and fit one 1024-thread team or six 256-thread teams per SM, so a league sized for one
/// full wave ran in two or in 1.33 (results/h100-cuda/experiments/reduce-launch-bounds). Host backends ignore them.
template <class Exec>
using ReduceTeamPolicy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<1024, 2>>;
/// The same with teams scheduled dynamically (ReducePolicy::dynamic_teams; host backends).
template <class Exec>
using ReduceDynamicTeamPolicy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<1024, 2>, Kokkos::Schedule<Kokkos::Dynamic>>;

/// V elements of T read by one load instruction (16 bytes where V x sizeof(T) is 16).
template <class T, int V>
struct alignas(V * sizeof(T)) Vec {
  T e[V];
  KOKKOS_INLINE_FUNCTION T sum() const {
    T s = e[0];
    for (int k = 1; k < V; ++k) s += e[k];
    return s;
  }
};

/// V values a general load makes of one vector of its input (no alignment of their own).
template <class T, int V>
struct Values {
  T e[V];
};

/// The values of one vector reduced under op, first to last.
template <class T, int V, class Op>
KOKKOS_INLINE_FUNCTION T fold(const Vec<T, V>& a, const Op& op) {
  if constexpr (is_plus_v<Op, T>) {
    (void)op;
    return a.sum();
  } else {
    T s = a.e[0];
    for (int k = 1; k < V; ++k) s = op(s, a.e[k]);
    return s;
  }
}
template <class T, int V, class Op>
KOKKOS_INLINE_FUNCTION T fold(const Values<T, V>& a, const Op& op) {
  T s = a.e[0];
  for (int k = 1; k < V; ++k) s = op(s, a.e[k]);
  return s;
}

/// Loads the element(s) at an element or vector index: x (sum) or x*y (dot). Every load says the
/// size of the elements it reads (element_size: what its vectors hold) and the value it makes.
template <class T>
struct SumLoad {
  using value_type = T;
  using element_type = T;
  static constexpr std::size_t element_size = sizeof(T);
  const T* x;
  KOKKOS_INLINE_FUNCTION T operator()(std::size_t i) const { return x[i]; }
  template <int V, class Index>
  KOKKOS_INLINE_FUNCTION Vec<T, V> vector(Index v) const {
    return reinterpret_cast<const Vec<T, V>*>(x)[v];
  }
  bool aligned(std::size_t bytes) const { return reinterpret_cast<std::uintptr_t>(x) % bytes == 0; }
  KOKKOS_INLINE_FUNCTION SumLoad advanced(std::size_t k) const { return {x + k}; }
  const T* first() const { return x; }
};

template <class T>
struct DotLoad {
  using value_type = T;
  using element_type = T;
  static constexpr std::size_t element_size = sizeof(T);
  const T* x;
  const T* y;
  KOKKOS_INLINE_FUNCTION T operator()(std::size_t i) const { return x[i] * y[i]; }
  template <int V, class Index>
  KOKKOS_INLINE_FUNCTION Vec<T, V> vector(Index v) const {
    Vec<T, V> a = reinterpret_cast<const Vec<T, V>*>(x)[v];
    const Vec<T, V> b = reinterpret_cast<const Vec<T, V>*>(y)[v];
    for (int k = 0; k < V; ++k) a.e[k] *= b.e[k];
    return a;
  }
  bool aligned(std::size_t bytes) const {
    return reinterpret_cast<std::uintptr_t>(x) % bytes == 0 && reinterpret_cast<std::uintptr_t>(y) % bytes == 0;
  }
  KOKKOS_INLINE_FUNCTION DotLoad advanced(std::size_t k) const { return {x + k, y + k}; }
  const T* first() const { return x; }
};

/// f(x[i]) of contiguous x (transform_reduce, reduce of a value made from each element).
template <class U, class F>
struct MapLoad {
  using value_type = std::remove_cv_t<decltype(std::declval<const F&>()(std::declval<const U&>()))>;
  using element_type = U;
  static constexpr std::size_t element_size = sizeof(U);
  const U* x;
  F f;
  KOKKOS_INLINE_FUNCTION value_type operator()(std::size_t i) const { return f(x[i]); }
  template <int V, class Index>
  KOKKOS_INLINE_FUNCTION Values<value_type, V> vector(Index v) const {
    const Vec<U, V> a = reinterpret_cast<const Vec<U, V>*>(x)[v];
    Values<value_type, V> r;
    for (int k = 0; k < V; ++k) r.e[k] = f(a.e[k]);
    return r;
  }
  bool aligned(std::size_t bytes) const { return reinterpret_cast<std::uintptr_t>(x) % bytes == 0; }
  KOKKOS_INLINE_FUNCTION MapLoad advanced(std::size_t k) const { return {x + k, f}; }
  const U* first() const { return x; }
};

/// f(x[i], y[i]) of contiguous x and y (the binary transform_reduce; kps::dot is DotLoad's).
template <class U, class W, class F>
struct ZipLoad {
  using value_type = std::remove_cv_t<decltype(std::declval<const F&>()(std::declval<const U&>(), std::declval<const W&>()))>;
  using element_type = U;
  static constexpr std::size_t element_size = sizeof(U) > sizeof(W) ? sizeof(U) : sizeof(W);
  const U* x;
  const W* y;
  F f;
  KOKKOS_INLINE_FUNCTION value_type operator()(std::size_t i) const { return f(x[i], y[i]); }
  template <int V, class Index>
  KOKKOS_INLINE_FUNCTION Values<value_type, V> vector(Index v) const {
    const Vec<U, V> a = reinterpret_cast<const Vec<U, V>*>(x)[v];
    const Vec<W, V> b = reinterpret_cast<const Vec<W, V>*>(y)[v];
    Values<value_type, V> r;
    for (int k = 0; k < V; ++k) r.e[k] = f(a.e[k], b.e[k]);
    return r;
  }
  bool aligned(std::size_t bytes) const {
    return reinterpret_cast<std::uintptr_t>(x) % (bytes / element_size * sizeof(U)) == 0 &&
           reinterpret_cast<std::uintptr_t>(y) % (bytes / element_size * sizeof(W)) == 0;
  }
  KOKKOS_INLINE_FUNCTION ZipLoad advanced(std::size_t k) const { return {x + k, y + k, f}; }
  const U* first() const { return x; }
};

/// Each element with its index, ValueIndex{x[i], base + i} (argmin, argmax).
template <class U, class I>
struct IndexLoad {
  using value_type = ValueIndex<U, I>;
  using element_type = U;
  static constexpr std::size_t element_size = sizeof(U);
  const U* x;
  I base;
  KOKKOS_INLINE_FUNCTION value_type operator()(std::size_t i) const { return {x[i], I(base + I(i))}; }
  template <int V, class Index>
  KOKKOS_INLINE_FUNCTION Values<value_type, V> vector(Index v) const {
    const Vec<U, V> a = reinterpret_cast<const Vec<U, V>*>(x)[v];
    Values<value_type, V> r;
    for (int k = 0; k < V; ++k) r.e[k] = {a.e[k], I(base + I(std::size_t(v) * V + k))};
    return r;
  }
  bool aligned(std::size_t bytes) const { return reinterpret_cast<std::uintptr_t>(x) % bytes == 0; }
  KOKKOS_INLINE_FUNCTION IndexLoad advanced(std::size_t k) const { return {x + k, I(base + I(k))}; }
  const U* first() const { return x; }
};

/// Any accessor (kps/impl/access.hpp: a strided View, a transform of one): element by element,
/// no vectors (aligned() is false for every width above 1).
/// The element type an accessor reads memory of (a transform's input, an index's values).
template <class A>
struct base_element {
  using type = value_of_t<A>;
};
template <class U>
struct base_element<Strided<U>> {
  using type = std::remove_cv_t<U>;
};
template <class In, class F>
struct base_element<Mapped<In, F>> : base_element<In> {};
template <class In, class I>
struct base_element<Indexed<In, I>> : base_element<In> {};
template <class A, class B, class F>
struct base_element<Zipped<A, B, F>> : base_element<A> {};

template <class A>
struct AccessLoad {
  using value_type = value_of_t<A>;
  using element_type = typename base_element<A>::type;
  static constexpr std::size_t element_size = sizeof(value_type);
  A a;
  KOKKOS_INLINE_FUNCTION value_type operator()(std::size_t i) const { return impl::load(a, i); }
  template <int V, class Index>
  KOKKOS_INLINE_FUNCTION Values<value_type, V> vector(Index v) const {
    Values<value_type, V> r;
    for (int k = 0; k < V; ++k) r.e[k] = impl::load(a, std::size_t(v) * V + k);
    return r;
  }
  bool aligned(std::size_t bytes) const { return bytes <= element_size; }
  KOKKOS_INLINE_FUNCTION AccessLoad advanced(std::size_t k) const { return {shifted(a, k)}; }
  const void* first() const { return nullptr; }
};

/// A load's values as those of an operator without an identity (kps/operators.hpp: Maybe).
template <class Load>
struct MaybeLoad {
  using value_type = Maybe<typename Load::value_type>;
  using element_type = typename Load::element_type;
  static constexpr std::size_t element_size = Load::element_size;
  Load load;
  KOKKOS_INLINE_FUNCTION value_type operator()(std::size_t i) const { return {load(i), true}; }
  template <int V, class Index>
  KOKKOS_INLINE_FUNCTION Values<value_type, V> vector(Index v) const {
    const auto a = load.template vector<V>(v);
    Values<value_type, V> r;
    for (int k = 0; k < V; ++k) r.e[k] = {a.e[k], true};
    return r;
  }
  bool aligned(std::size_t bytes) const { return load.aligned(bytes); }
  KOKKOS_INLINE_FUNCTION MaybeLoad advanced(std::size_t k) const { return {load.advanced(k)}; }
  auto first() const { return load.first(); }
};

/// The alignment, in bytes, at which the vector loop starts reading: elements before it (the
/// head) are added one by one. Kokkos places a View's data 128 bytes into its allocation
/// (after the allocation header), so a warp's 512 contiguous bytes straddle three 256-byte
/// blocks instead of two. The H100 streams such reads up to 3.7 % slower, CUB's included
/// (2^30 doubles: the loop 2755 us aligned to 256 bytes, 2858 us at 128 past it; CUB 2780 and
/// 2827; results/h100-cuda/experiments/reduce-aligned-loop).
constexpr std::size_t loop_alignment = 256;

/// Elements of x before its first loop_alignment-byte boundary, at most n; 0 where x is not
/// aligned to its own element size (no boundary is reached by whole elements).
template <class T>
std::size_t head_elements(const T* x, std::size_t n) {
  const std::size_t off = reinterpret_cast<std::uintptr_t>(x) % loop_alignment;
  if (off == 0 || off % sizeof(T) != 0) return 0;
  return std::min(n, (loop_alignment - off) / sizeof(T));
}
/// An accessor's loads have no boundary to reach.
inline std::size_t head_elements(const void*, std::size_t) { return 0; }

/// Adds the vectors i, i + stride, ... below end to acc, four loads in flight per step, on one
/// induction variable of type Index (the fewest registers; 32 bits where the indices fit, as
/// CUB's offsets). One accumulator, the four vectors loaded before any of them is added: with
/// V accumulators the 32 registers of the launch bounds did not hold four
/// loaded vectors beside Kokkos' own state, and the compiler added the first two before it
/// issued the last (the SASS of the double sum: two loads in flight, not four).
template <int V, class Index, class Load, class T, class Op = plus>
KOKKOS_INLINE_FUNCTION void add_strided(const Load& load, Index i, Index end, Index stride, T& acc, const Op& op = {}) {
  for (; i + 3 * stride < end; i += 4 * stride) {
    const auto a = load.template vector<V>(i);
    const auto b = load.template vector<V>(i + stride);
    const auto c = load.template vector<V>(i + 2 * stride);
    const auto d = load.template vector<V>(i + 3 * stride);
    if constexpr (is_plus_v<Op, T>)
      acc += (fold(a, op) + fold(b, op)) + (fold(c, op) + fold(d, op));  // Vec: its sum()
    else
      acc = op(acc, op(op(fold(a, op), fold(b, op)), op(fold(c, op), fold(d, op))));
  }
  for (; i < end; i += stride) {
    if constexpr (is_plus_v<Op, T>)
      acc += fold(load.template vector<V>(i), op);
    else
      acc = op(acc, fold(load.template vector<V>(i), op));
  }
}

/// Team 0's part outside the vector loop (either share): the `head` elements before it and the
/// elements after its nv whole vectors, one by one, the team's threads taking turns.
template <int V, class Load, class T, class Op = plus>
KOKKOS_INLINE_FUNCTION void add_head_and_tail(const Load& load, std::size_t n, std::size_t head, std::size_t nv,
                                              std::size_t team_size, std::size_t rank, std::size_t t, T& acc,
                                              const Op& op = {}) {
  if (rank != 0) return;
  if constexpr (is_plus_v<Op, T>) {
    for (std::size_t e = t; e < head; e += team_size) acc += load(e);
    for (std::size_t e = head + nv * V + t; e < n; e += team_size) acc += load(e);
  } else {
    for (std::size_t e = t; e < head; e += team_size) acc = op(acc, load(e));
    for (std::size_t e = head + nv * V + t; e < n; e += team_size) acc = op(acc, load(e));
  }
}

/// Thread t of team `rank` (of `league` teams of `team_size`) adds its part of n elements to
/// acc. The vector loop starts `head` elements in (head_elements: at a 256-byte boundary) and
/// covers vectors rank * team_size + t, then every league * team_size vectors (a grid-stride
/// loop: at any moment the whole league reads one narrow front of memory, each load
/// instruction coalesced); the head and the (n - head) % V trailing elements go to team 0,
/// before its loop (nothing of theirs stays live through it). Shared by kps' kernel and its
/// native CUDA twin (bench/cuda/native_reduce.cpp). The H100 measured it against an even share
/// of contiguous tiles per team (results/h100-cuda/experiments/reduce-grid-stride): int32 at 2^28
/// 0.979 -> 1.005 of CUB.
template <int V, class Index, class Load, class T, class Op = plus>
KOKKOS_INLINE_FUNCTION void add_share(const Load& load, std::size_t n, std::size_t head, std::size_t team_size,
                                      std::size_t league, std::size_t rank, std::size_t t, T& acc, const Op& op = {}) {
  const std::size_t nv = (n - head) / V;  // whole vectors after the head
  add_head_and_tail<V>(load, n, head, nv, team_size, rank, t, acc, op);
  add_strided<V>(load.advanced(head), static_cast<Index>(rank * team_size + t), static_cast<Index>(nv),
                 static_cast<Index>(league * team_size), acc, op);
}

/// How each thread of a reduction adds its share: the grid-stride share (add_share) by default;
/// host backends specialize it (kps/host/reduce_share.hpp).
template <class Exec, class Enable = void>
struct ReduceShare {
  template <int V, class Index, class Load, class T, class Op = plus>
  KOKKOS_INLINE_FUNCTION static void add(const Load& load, std::size_t n, std::size_t head, std::size_t team_size,
                                         std::size_t league, std::size_t rank, std::size_t t, T& acc,
                                         const Op& op = {}) {
    add_share<V, Index>(load, n, head, team_size, league, rank, t, acc, op);
  }
};

}  // namespace kps::impl

#include "kps/host/reduce_share.hpp"

namespace kps::impl {

/// The reduction's team functor: each thread adds its share (ReduceShare<Exec>: the grid-stride
/// add_share on GPUs, kps/host/reduce_share.hpp's contiguous share on host backends); Kokkos
/// reduces across the team and the league. The policy's items per thread set only the
/// league where it is not given (the seed's relation, league = N / (team x items)).
/// The reduction functor's join and init under an operator other than Kokkos' own sum: Kokkos
/// passes a reducer to every parallel_reduce of such a kernel (OpReducer), but some backends'
/// team_size_max instantiates the functor's own reduction (HIP's inter-block shuffle), which
/// without these would add the values. The sums' kernels have neither, as before.
template <class T, class Op, bool Join = !is_kokkos_sum_v<Op, T>>
struct ReduceJoin : OpHolder<Op> {
  ReduceJoin() = default;
  explicit ReduceJoin(const Op& op) : OpHolder<Op>(op) {}
  KOKKOS_INLINE_FUNCTION void join(T& dst, const T& src) const { dst = this->scan_op()(dst, src); }
  KOKKOS_INLINE_FUNCTION void init(T& v) const { v = operator_traits<Op, T>::identity(this->scan_op()); }
};
template <class T, class Op>
struct ReduceJoin<T, Op, false> : OpHolder<Op> {
  ReduceJoin() = default;
  explicit ReduceJoin(const Op& op) : OpHolder<Op>(op) {}
};

template <class Exec, class T, int V, class Load, class Index = std::size_t, class Op = plus>
struct ReduceKernel : ReduceJoin<T, Op> {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  Load load;
  std::size_t n;
  std::size_t head;  ///< head_elements(load.first(), n)

  ReduceKernel(const Load& l, std::size_t count, const Op& op = Op{})
      : ReduceJoin<T, Op>(op), load(l), n(count), head(head_elements(l.first(), count)) {}

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, T& update) const {
    const Op& op = this->scan_op();
    T acc = operator_traits<Op, T>::identity(op);
    ReduceShare<Exec>::template add<V, Index>(load, n, head, team.team_size(), team.league_size(), team.league_rank(),
                                              team.team_rank(), acc, op);
    if constexpr (is_kokkos_sum_v<Op, T>)
      update += acc;
    else
      update = op(update, acc);
  }
};

/// The reduction of a league of one team, ended inside the team: each thread adds its share as
/// in ReduceKernel, the team adds the threads' sums (team_reduce) and its first thread writes
/// the value into `result`, a rank-0 View exec writes directly. Launched by parallel_for, it
/// leaves out what parallel_reduce adds to end a reduction across teams (Kokkos' global scratch,
/// its fence and counter, the last team's pass, the copy into the result), as CUB's single-tile
/// kernel does for the sizes one block covers.
template <class Exec, class T, int V, class Load, class Index, class ResultView, class Op = plus>
struct SingleTeamReduceKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  ReduceKernel<Exec, T, V, Load, Index, Op> kernel;
  ResultView result;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const Op& op = kernel.scan_op();
    T acc = operator_traits<Op, T>::identity(op);
    kernel(team, acc);
    if constexpr (is_kokkos_sum_v<Op, T>)
      team.team_reduce(Kokkos::Sum<T, typename Exec::memory_space>(acc));
    else
      team.team_reduce(OpReducer<T, Op, typename Exec::memory_space>(acc, op));
    if (team.team_rank() == 0) result() = acc;
  }
};

/// The reduction of a league of teams taken dynamically by a host backend's threads, deterministic:
/// each team reduces its share (ReduceKernel) across its threads and writes its partial result to
/// partials[league rank]; the caller reduces them in rank order. Kokkos' own reduction would add
/// each thread's teams in the order it took them, which timing decides.
template <class Exec, class T, int V, class Load, class Index, class Op = plus>
struct TeamPartialsKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  ReduceKernel<Exec, T, V, Load, Index, Op> kernel;
  T* partials;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const Op& op = kernel.scan_op();
    T acc = operator_traits<Op, T>::identity(op);
    kernel(team, acc);
    if constexpr (is_kokkos_sum_v<Op, T>)
      team.team_reduce(Kokkos::Sum<T, typename Exec::memory_space>(acc));
    else
      team.team_reduce(OpReducer<T, Op, typename Exec::memory_space>(acc, op));
    if (team.team_rank() == 0) partials[team.league_rank()] = acc;
  }
};

}  // namespace kps::impl
