// kps/reduce/kernel.hpp — the tunable device-wide sum and dot product's kernel, written once
// against Kokkos TeamPolicy: the loads (SumLoad, DotLoad, 16-byte vectors where aligned), each
// thread's share of the data, and the team functor. How a thread's share is laid out depends on
// the backend (ReduceShare: the grid-stride share here, GPUs; the contiguous share of
// kps/host/reduce_share.hpp on host backends).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

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

/// Loads the element(s) at an element or vector index: x (sum) or x*y (dot).
template <class T>
struct SumLoad {
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

/// Adds the vectors i, i + stride, ... below end to acc, four loads in flight per step, on one
/// induction variable of type Index (the fewest registers; 32 bits where the indices fit, as
/// CUB's offsets). One accumulator, the four vectors loaded before any of them is added: with
/// V accumulators the 32 registers of the launch bounds did not hold four
/// loaded vectors beside Kokkos' own state, and the compiler added the first two before it
/// issued the last (the SASS of the double sum: two loads in flight, not four).
template <int V, class Index, class Load, class T>
KOKKOS_INLINE_FUNCTION void add_strided(const Load& load, Index i, Index end, Index stride, T& acc) {
  for (; i + 3 * stride < end; i += 4 * stride) {
    const auto a = load.template vector<V>(i);
    const auto b = load.template vector<V>(i + stride);
    const auto c = load.template vector<V>(i + 2 * stride);
    const auto d = load.template vector<V>(i + 3 * stride);
    acc += (a.sum() + b.sum()) + (c.sum() + d.sum());
  }
  for (; i < end; i += stride) acc += load.template vector<V>(i).sum();
}

/// Team 0's part outside the vector loop (either share): the `head` elements before it and the
/// elements after its nv whole vectors, one by one, the team's threads taking turns.
template <int V, class Load, class T>
KOKKOS_INLINE_FUNCTION void add_head_and_tail(const Load& load, std::size_t n, std::size_t head, std::size_t nv,
                                              std::size_t team_size, std::size_t rank, std::size_t t, T& acc) {
  if (rank != 0) return;
  for (std::size_t e = t; e < head; e += team_size) acc += load(e);
  for (std::size_t e = head + nv * V + t; e < n; e += team_size) acc += load(e);
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
template <int V, class Index, class Load, class T>
KOKKOS_INLINE_FUNCTION void add_share(const Load& load, std::size_t n, std::size_t head, std::size_t team_size,
                                      std::size_t league, std::size_t rank, std::size_t t, T& acc) {
  const std::size_t nv = (n - head) / V;  // whole vectors after the head
  add_head_and_tail<V>(load, n, head, nv, team_size, rank, t, acc);
  add_strided<V>(load.advanced(head), static_cast<Index>(rank * team_size + t), static_cast<Index>(nv),
                 static_cast<Index>(league * team_size), acc);
}

/// How each thread of a reduction adds its share: the grid-stride share (add_share) by default;
/// host backends specialize it (kps/host/reduce_share.hpp).
template <class Exec, class Enable = void>
struct ReduceShare {
  template <int V, class Index, class Load, class T>
  KOKKOS_INLINE_FUNCTION static void add(const Load& load, std::size_t n, std::size_t head, std::size_t team_size,
                                         std::size_t league, std::size_t rank, std::size_t t, T& acc) {
    add_share<V, Index>(load, n, head, team_size, league, rank, t, acc);
  }
};

}  // namespace kps::impl

#include "kps/host/reduce_share.hpp"

namespace kps::impl {

/// The reduction's team functor: each thread adds its share (ReduceShare<Exec>: the grid-stride
/// add_share on GPUs, kps/host/reduce_share.hpp's contiguous share on host backends); Kokkos
/// reduces across the team and the league. The policy's items per thread set only the
/// league where it is not given (the seed's relation, league = N / (team x items)).
template <class Exec, class T, int V, class Load, class Index = std::size_t>
struct ReduceKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  Load load;
  std::size_t n;
  std::size_t head;  ///< head_elements(load.first(), n)

  ReduceKernel(const Load& l, std::size_t count) : load(l), n(count), head(head_elements(l.first(), count)) {}

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, T& update) const {
    T acc = T(0);
    ReduceShare<Exec>::template add<V, Index>(load, n, head, team.team_size(), team.league_size(), team.league_rank(),
                                              team.team_rank(), acc);
    update += acc;
  }
};

/// The reduction of a league of one team, ended inside the team: each thread adds its share as
/// in ReduceKernel, the team adds the threads' sums (team_reduce) and its first thread writes
/// the value into `result`, a rank-0 View exec writes directly. Launched by parallel_for, it
/// leaves out what parallel_reduce adds to end a reduction across teams (Kokkos' global scratch,
/// its fence and counter, the last team's pass, the copy into the result), as CUB's single-tile
/// kernel does for the sizes one block covers.
template <class Exec, class T, int V, class Load, class Index, class ResultView>
struct SingleTeamReduceKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  ReduceKernel<Exec, T, V, Load, Index> kernel;
  ResultView result;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    T acc = T(0);
    kernel(team, acc);
    team.team_reduce(Kokkos::Sum<T, typename Exec::memory_space>(acc));
    if (team.team_rank() == 0) result() = acc;
  }
};

}  // namespace kps::impl
