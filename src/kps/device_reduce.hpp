// kps/device_reduce.hpp — the tunable device-wide sum and dot product, written once against
// Kokkos TeamPolicy. Every knob of the reduction study's seed is explicit in ReducePolicy:
// team size (the seed's local size), items per thread (its load per thread), league size (its
// number of work groups) and the width of each thread's loads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

namespace kps {

/// Launch configuration of the reduction. A configuration larger than the data still gives
/// the right answer (threads past the end add nothing); a smaller one loops over the data
/// (each thread steps by the league's threads: impl::add_share).
struct ReducePolicy {
  int team_size = 0;          ///< threads per team (the seed's LOCALSIZE); > 0
  int items_per_thread = 0;   ///< elements per thread of one pass over the data (a league of
                              ///< N / (team x items) teams when league_size is 0); > 0
  int league_size = 0;        ///< teams (the seed's number of work groups); 0: enough to cover N once;
                              ///< at most impl::max_league_size (2^24) teams run, larger leagues loop
  int vector_width = 0;       ///< elements per load: 1, 2, 4 (or 0: 16-byte loads where aligned);
                              ///< on a host backend the SIMD lanes of each of its 4 accumulators
};

inline std::string to_string(const ReducePolicy& p) {
  return "team_size=" + std::to_string(p.team_size) + " items_per_thread=" + std::to_string(p.items_per_thread) +
         " league_size=" + std::to_string(p.league_size) + " vector_width=" + std::to_string(p.vector_width);
}

namespace impl {

/// The reduction's team policy. Launch bounds of 1024 threads and 2 teams per multiprocessor
/// hold a CUDA kernel to 32 registers per thread: 2048 resident threads per SM (the H100's
/// most) at every team size, as CUB's reduction kernel. Without them it took 40 registers
/// and fit one 1024-thread team or six 256-thread teams per SM, so a league sized for one
/// full wave ran in two or in 1.33 (studies/reduce/README.md). Host backends ignore them.
template <class Exec>
using ReduceTeamPolicy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<1024, 2>>;

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
/// 2827; studies/reduce/README.md, session 12).
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
/// V accumulators (session 9's loop) the 32 registers of the launch bounds did not hold four
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

/// add_lanes' portable form: 4 x V scalar accumulators, element by element.
template <int V, class Load, class T>
KOKKOS_INLINE_FUNCTION void add_lanes_scalar(const Load& load, std::size_t i, std::size_t end, T& acc) {
  constexpr int L = 4 * V;
  T s[L] = {};
  std::size_t e = i * V;
  const std::size_t stop = end * V;
  for (; e + L <= stop; e += L)
    for (int k = 0; k < L; ++k) s[k] += load(e + k);
  for (; e < stop; ++e) s[0] += load(e);
  T r = T(0);
  for (int k = 0; k < L; ++k) r += s[k];
  acc += r;
}

/// Adds the vectors [i, end) of V elements to acc in four vector accumulators (4 x V
/// independent sums, added together once at the end): the host share's loop. Compiled by GCC
/// or Clang, the accumulators are the compiler's own vector type (vector_size), so the adds
/// are SIMD instructions whatever its vectorizers decide; elsewhere (nvcc's host pass, other
/// compilers) add_lanes_scalar's 4 x V scalar accumulators. The vectorizers alone were
/// not dependable: GCC 12 compiled arrays of Vec<T, V> accumulators to scalar adds with some
/// accumulators spilled to the stack, and the element-by-element form to clean SIMD in one
/// program but, for floating-point dot products in kps-bench, to vector multiplies followed
/// by in-order scalar adds through memory. Kokkos::Serial at 2^20 on the 2-core development
/// host: sum int32 206 us with the Vec arrays, 60-96 with either later form (best of 200
/// calls); in kps-bench (medians of interleaved rounds), element by element -> vector type:
/// sum float 311-355 -> 105-126 us, dot float 703-822 -> 229, dot double 1000-1075 -> 593-938
/// (studies/reduce/README.md, session 15). On a GPU the accumulators would cost the registers
/// add_strided saves.
template <int V, class Load, class T>
KOKKOS_INLINE_FUNCTION void add_lanes(const Load& load, std::size_t i, std::size_t end, T& acc) {
#if defined(__GNUC__) && !defined(__CUDACC__)
  typedef T Lanes __attribute__((vector_size(V * sizeof(T))));
  Lanes s[4] = {};
  for (; i < end; i += 4)
    for (std::size_t u = 0; u < 4 && i + u < end; ++u) {
      const Vec<T, V> a = load.template vector<V>(i + u);
      Lanes l;
      std::memcpy(&l, &a, sizeof l);
      s[u] += l;
    }
  const Lanes t = (s[0] + s[1]) + (s[2] + s[3]);
  T r = T(0);
  for (int k = 0; k < V; ++k) r += t[k];
  acc += r;
#else
  add_lanes_scalar<V>(load, i, end, acc);
#endif
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
/// native CUDA twin (kps/cuda/native_reduce.cpp). The H100 measured it against an even share
/// of contiguous tiles per team (studies/reduce/README.md, session 9): int32 at 2^28 0.979 ->
/// 1.005 of CUB.
template <int V, class Index, class Load, class T>
KOKKOS_INLINE_FUNCTION void add_share(const Load& load, std::size_t n, std::size_t head, std::size_t team_size,
                                      std::size_t league, std::size_t rank, std::size_t t, T& acc) {
  const std::size_t nv = (n - head) / V;  // whole vectors after the head
  add_head_and_tail<V>(load, n, head, nv, team_size, rank, t, acc);
  add_strided<V>(load.advanced(head), static_cast<Index>(rank * team_size + t), static_cast<Index>(nv),
                 static_cast<Index>(league * team_size), acc);
}

/// The host backends' share: the same head and tail in team 0, then global thread
/// g = rank * team_size + t of G = league * team_size adds the vectors of its own contiguous
/// range, [g * nv / G, (g + 1) * nv / G) (balanced), lane by lane (add_lanes). A CPU core
/// streams its range front to back, each cache line and page read once by one core; the
/// grid-stride share above gave each of the seed league's teams one 16-byte vector every 32 KB
/// (a page per load), and on a 2-core host its sum of 2^20 doubles took 4.5x the best
/// configuration's time (studies/reduce/README.md, session 13).
template <int V, class Load, class T>
KOKKOS_INLINE_FUNCTION void add_share_contiguous(const Load& load, std::size_t n, std::size_t head,
                                                 std::size_t team_size, std::size_t league, std::size_t rank,
                                                 std::size_t t, T& acc) {
  const std::size_t nv = (n - head) / V;
  add_head_and_tail<V>(load, n, head, nv, team_size, rank, t, acc);
  const std::size_t threads = league * team_size, g = rank * team_size + t;
  const std::size_t per = nv / threads, extra = nv % threads;
  const std::size_t begin = g * per + (g < extra ? g : extra);
  const std::size_t end = begin + per + (g < extra ? 1 : 0);
  add_lanes<V>(load.advanced(head), begin, end, acc);
}

/// The reduction's team functor: each thread adds its share (add_share on GPUs,
/// add_share_contiguous on host backends);
/// Kokkos reduces across the team and the league. The policy's items per thread set only the
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
    if constexpr (is_host_space_v<Exec>)
      add_share_contiguous<V>(load, n, head, team.team_size(), team.league_size(), team.league_rank(), team.team_rank(),
                              acc);
    else
      add_share<V, Index>(load, n, head, team.team_size(), team.league_size(), team.league_rank(), team.team_rank(),
                          acc);
    update += acc;
  }
};

/// The backend's largest team for the reduction kernel of T, vector width v and Load (a GPU
/// backend limits it by the kernel's registers and shared memory).
template <class Exec, class T, class Load>
int kernel_team_size_limit(const Exec& exec, int v) {
  const auto query = [&](auto width) {
    constexpr int V = decltype(width)::value;
    return ReduceTeamPolicy<Exec>(exec, 1, 1).team_size_max(
        ReduceKernel<Exec, T, V, Load, std::uint32_t>{Load{}, 0}, Kokkos::ParallelReduceTag());
  };
  switch (v) {
    case 4: return query(std::integral_constant<int, 4>{});
    case 2: return query(std::integral_constant<int, 2>{});
    default: return query(std::integral_constant<int, 1>{});
  }
}

/// A reduction functor without scratch, to ask a backend for its general team size limit.
template <class Exec>
struct TeamSizeProbe {
  KOKKOS_INLINE_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Exec>::member_type&, double&) const {}
};

template <class Exec>
int team_size_limit(const Exec& exec) {
  return Kokkos::TeamPolicy<Exec>(exec, 1, 1).team_size_max(TeamSizeProbe<Exec>{}, Kokkos::ParallelReduceTag());
}

/// The largest team every reduction kernel of T (sum and dot, every vector width) accepts.
template <class Exec, class T>
int reduce_team_size_limit(const Exec& exec) {
  int limit = std::numeric_limits<int>::max();
  for (int v : {1, 2, 4}) {
    limit = std::min(limit, kernel_team_size_limit<Exec, T, SumLoad<T>>(exec, v));
    limit = std::min(limit, kernel_team_size_limit<Exec, T, DotLoad<T>>(exec, v));
  }
  return limit;
}

/// Checks a policy, fills in league_size and vector width; throws std::invalid_argument.
template <class Exec, class T, class Load>
ReducePolicy validate(const Exec& exec, ReducePolicy p, std::size_t n, const Load& load) {
  if (p.team_size <= 0 || p.items_per_thread <= 0 || p.league_size < 0 || p.vector_width < 0)
    throw std::invalid_argument("kps reduce: invalid policy (" + to_string(p) +
                                "): team size and items per thread must be positive, league size >= 0");
  if (p.vector_width != 0 && p.vector_width != 1 && p.vector_width != 2 && p.vector_width != 4)
    throw std::invalid_argument("kps reduce: vector width must be 0 (automatic), 1, 2 or 4");
  int v = p.vector_width ? p.vector_width : static_cast<int>(16 / sizeof(T));
  if (v > 4) v = 4;
  const Load loop_load = load.advanced(head_elements(load.first(), n));  // where the vector loop starts
  while (v > 1 && (p.items_per_thread % v != 0 || !loop_load.aligned(v * sizeof(T)))) v /= 2;
  p.vector_width = v;
  const int limit = kernel_team_size_limit<Exec, T, Load>(exec, v);
  if (p.team_size > limit)
    throw std::invalid_argument("kps reduce: team size " + std::to_string(p.team_size) +
                                " exceeds this backend's limit of " + std::to_string(limit) + " for this kernel");
  if (p.league_size == 0) {
    const std::size_t per_team = std::size_t(p.team_size) * p.items_per_thread;
    const std::size_t teams = (n + per_team - 1) / per_team;
    p.league_size = static_cast<int>(teams < 1 ? 1 : (teams > std::size_t(max_league_size) ? max_league_size : teams));
  }
  // Larger leagues only loop (each thread steps by the league's threads); see max_league_size.
  if (p.league_size > max_league_size) p.league_size = max_league_size;
  return p;
}

/// Whether the loop of the resolved policy p over n elements may count in 32 bits (fewer
/// registers, as CUB's offsets): every vector index and the loop's look-ahead (up to four
/// strides of league x team past the end) stay below 2^32.
inline bool narrow_index(std::size_t n, const ReducePolicy& p) {
  return n / p.vector_width + 4 * std::size_t(p.team_size) * std::size_t(p.league_size) < (std::size_t(1) << 32);
}

/// Calls f(width, index) with the vector width v (1, 2 or 4) as an integral constant and the
/// loop's index type (32 bits where `narrow`).
template <class F>
void dispatch_width(int v, bool narrow, F&& f) {
  const auto with_index = [&](auto width) {
    if (narrow)
      f(width, std::uint32_t{});
    else
      f(width, std::size_t{});
  };
  switch (v) {
    case 4: with_index(std::integral_constant<int, 4>{}); break;
    case 2: with_index(std::integral_constant<int, 2>{}); break;
    default: with_index(std::integral_constant<int, 1>{}); break;
  }
}

/// Runs the reduction of n elements into `result`: a T& (the call waits for the value) or a
/// rank-0 View of T (the call is asynchronous on exec, as Kokkos::parallel_reduce into a View).
/// Kokkos adds the threads' and the teams' sums (on CUDA it writes a value returned to the
/// host straight into pinned host memory: no copy after the kernel).
template <class Exec, class T, class Load, class Result>
void reduce_into(const Exec& exec, std::size_t n, const Load& load, ReducePolicy p, const char* label,
                 Result&& result) {
  p = validate<Exec, T>(exec, p, n, load);
  // n == 0: an empty league still sets the result (to 0) in the result's memory, in order on exec.
  ReduceTeamPolicy<Exec> policy(exec, n == 0 ? 0 : p.league_size, p.team_size);
  dispatch_width(p.vector_width, narrow_index(n, p), [&](auto width, auto index) {
    constexpr int V = decltype(width)::value;
    ReduceKernel<Exec, T, V, Load, decltype(index)> k{load, n};
    Kokkos::parallel_reduce(label, policy, k, result);
  });
}

template <class Exec, class T, class Load>
T reduce(const Exec& exec, std::size_t n, const Load& load, const ReducePolicy& p, const char* label) {
  T result = T(0);
  if (n == 0) {
    validate<Exec, T>(exec, p, n, load);
    return result;
  }
  reduce_into<Exec, T>(exec, n, load, p, label, result);
  return result;
}

}  // namespace impl
}  // namespace kps
