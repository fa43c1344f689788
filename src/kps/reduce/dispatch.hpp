// kps/reduce/dispatch.hpp — the reduction's dispatch: a policy checked against the backend's
// limits for the kernel (team size per load width and load), its league and load width filled in,
// the 32- or 64-bit index chosen, and the launch into a host value or a rank-0 View: through
// Kokkos' parallel_reduce (kps::plus with Kokkos' own sum, any other operator as a reducer,
// kps/impl/reducer.hpp), inside one team (a league of one), or, for teams a host backend's threads
// take dynamically, through each team's partial result, reduced in order (deterministic).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "kps/impl/host_result.hpp"
#include "kps/impl/kokkos_compat.hpp"
#include "kps/impl/reducer.hpp"
#include "kps/operators.hpp"
#include "kps/reduce/kernel.hpp"
#include "kps/knobs.hpp"

namespace kps::impl {

/// The widest load a reduction of Load's elements takes, in elements: 16 bytes of 1- and 2-byte
/// elements, 4 of 4- and 8-byte ones (4 x 8 bytes where a policy asks for it), 1 of larger ones.
template <class Load>
inline constexpr int max_vector_width = Load::element_size >= 16 ? 1
                                        : Load::element_size > 4 ? (Load::element_size == 8 ? 4 : 1)
                                        : int(16 / Load::element_size);

/// Whether a load is one of today's sums' (SumLoad, DotLoad of a 4- or 8-byte arithmetic type):
/// those keep a kernel per vector width 1, 2 and 4; every other load (another type, a transform,
/// an index) compiles its natural width, 16 bytes of elements, and 1 (unaligned data, tails).
template <class Load>
inline constexpr bool classic_load_v =
    (std::is_same_v<Load, SumLoad<typename Load::element_type>> || std::is_same_v<Load, DotLoad<typename Load::element_type>>) &&
    std::is_arithmetic_v<typename Load::element_type> && (Load::element_size == 4 || Load::element_size == 8);

/// The vector widths Load's kernels are compiled for.
template <class Load>
constexpr bool load_width(int v) {
  if constexpr (classic_load_v<Load>)
    return v == 1 || v == 2 || v == 4;
  else
    return v == 1 || v == (Load::element_size >= 16 ? 1 : int(16 / Load::element_size));
}

/// Calls f(std::integral_constant<int, V>) for a vector width v among those Load instantiates (the
/// nearest lower one for another: validate only asks for these).
template <class Load, class F>
decltype(auto) with_width(int v, F&& f) {
  if constexpr (load_width<Load>(16))
    if (v == 16) return f(std::integral_constant<int, 16>{});
  if constexpr (load_width<Load>(8))
    if (v == 8) return f(std::integral_constant<int, 8>{});
  if constexpr (load_width<Load>(4))
    if (v == 4) return f(std::integral_constant<int, 4>{});
  if constexpr (load_width<Load>(2))
    if (v == 2) return f(std::integral_constant<int, 2>{});
  return f(std::integral_constant<int, 1>{});
}

/// The backend's largest team for the reduction kernel of T, vector width v and Load (a GPU
/// backend limits it by the kernel's registers and shared memory).
template <class Exec, class T, class Load, class Op = plus>
int kernel_team_size_limit(const Exec& exec, int v, const Load& load = Load{}, const Op& op = Op{}) {
  return with_width<Load>(v, [&](auto width) {
    constexpr int V = decltype(width)::value;
    return ReduceTeamPolicy<Exec>(exec, 1, 1).team_size_max(ReduceKernel<Exec, T, V, Load, std::uint32_t, Op>{load, 0, op},
                                                            Kokkos::ParallelReduceTag());
  });
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

/// The largest team every sum and dot product kernel of T (every vector width) accepts.
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
template <class Exec, class T, class Load, class Op = plus>
ReducePolicy validate(const Exec& exec, ReducePolicy p, std::size_t n, const Load& load, const Op& op = Op{}) {
  if (p.team_size <= 0 || p.items_per_thread <= 0 || p.league_size < 0 || p.vector_width < 0)
    throw std::invalid_argument("kps reduce: invalid policy (" + to_string(p) +
                                "): team size and items per thread must be positive, league size >= 0");
  if (p.vector_width != 0 && p.vector_width != 1 && p.vector_width != 2 && p.vector_width != 4 &&
      p.vector_width != 8 && p.vector_width != 16)
    throw std::invalid_argument("kps reduce: vector width must be 0 (automatic), 1, 2, 4, 8 or 16");
  constexpr int most = max_vector_width<Load>;
  int v = p.vector_width ? p.vector_width : Load::element_size > 16 ? 1 : static_cast<int>(16 / Load::element_size);
  if (v > most) v = most;
  const Load loop_load = load.advanced(head_elements(load.first(), n));  // where the vector loop starts
  // The items per thread bind the width on GPUs and for today's sums. A host thread reads one
  // contiguous range whatever they are (kps/host/reduce_share.hpp), so a load of the other
  // kernels, whose widths are 1 and a whole 16-byte vector, keeps the vector there: the host
  // rules' 8 items had left 1- and 2-byte values (sums and min/max alike) one element per step,
  // at 0.27 of the read on the 2-core development machine (int8, 2^18..2^22).
  const bool items_bind = !(is_host_space_v<Exec> && !classic_load_v<Load>);
  while (v > 1 && (!load_width<Load>(v) || (items_bind && p.items_per_thread % v != 0) ||
                   !loop_load.aligned(v * Load::element_size)))
    v /= 2;
  p.vector_width = v;
  const int limit = kernel_team_size_limit<Exec, T, Load, Op>(exec, v, load, op);
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

/// Calls f(width, index) with the vector width v as an integral constant and the loop's index
/// type (32 bits where `narrow`).
template <class Load, class F>
void dispatch_width(int v, bool narrow, F&& f) {
  with_width<Load>(v, [&](auto width) {
    if (narrow)
      f(width, std::uint32_t{});
    else
      f(width, std::size_t{});
  });
}

/// Whether a reduction into Result may end inside a league of one team
/// (SingleTeamReduceKernel): Result is a rank-0 View that exec writes directly.
template <class Exec, class Result, class Enable = void>
inline constexpr bool single_team_result_v = false;
template <class Exec, class Result>
inline constexpr bool single_team_result_v<Exec, Result, std::enable_if_t<Kokkos::is_view<Result>::value>> =
    Kokkos::SpaceAccessibility<Exec, typename Result::memory_space>::accessible;

/// Host memory for a dynamic league's partial results, reused by the calling thread.
template <class T>
T* team_partials(std::size_t league) {
  thread_local std::vector<T> partials;
  if (partials.size() < league) partials.resize(league);
  return partials.data();
}

/// Writes v to `result`: a T& or a rank-0 View (host backends: in memory the host reaches).
template <class T, class Result>
void put_result(Result& result, const T& v) {
  if constexpr (Kokkos::is_view<std::decay_t<Result>>::value)
    result() = v;
  else
    result = v;
}

/// Runs the reduction of n elements into `result` under op: a T& (the call waits for the value) or
/// a rank-0 View of T (the call is asynchronous on exec, as Kokkos::parallel_reduce into a View).
/// A league of one team writing a View exec reaches ends the reduction in the team
/// (SingleTeamReduceKernel, launched by parallel_for); teams that a host backend's threads take
/// dynamically write their partial results, which are then reduced in order on the calling
/// thread (TeamPartialsKernel: deterministic whatever the threads did); otherwise Kokkos'
/// parallel_reduce combines the threads' and the teams' results (deterministic too: each thread's
/// share is fixed, and Kokkos combines them in a fixed order).
template <class Exec, class T, class Load, class Result, class Op = plus>
void reduce_into(const Exec& exec, std::size_t n, const Load& load, ReducePolicy p, const char* label, Result&& result,
                 const Op& op = Op{}) {
  p = validate<Exec, T>(exec, p, n, load, op);
  using R = std::decay_t<Result>;
  const auto kokkos_reduce = [&](const auto& policy, const auto& k) {
    if constexpr (is_kokkos_sum_v<Op, T>) {
      Kokkos::parallel_reduce(label, policy, k, result);
    } else if constexpr (Kokkos::is_view<R>::value) {
      Kokkos::parallel_reduce(label, policy, k,
                              OpReducer<T, Op, typename R::memory_space>(
                                  typename OpReducer<T, Op, typename R::memory_space>::result_view_type(result.data()), op));
    } else {
      Kokkos::parallel_reduce(label, policy, k, OpReducer<T, Op, Kokkos::HostSpace>(result, op));
    }
  };
  const auto run = [&](const auto& policy) {
    dispatch_width<Load>(p.vector_width, narrow_index(n, p), [&](auto width, auto index) {
      constexpr int V = decltype(width)::value;
      ReduceKernel<Exec, T, V, Load, decltype(index), Op> k{load, n, op};
      if constexpr (single_team_result_v<Exec, R>) {
        if (n > 0 && p.league_size == 1) {
          const SingleTeamReduceKernel<Exec, T, V, Load, decltype(index), R, Op> single{k, result};
          // validate checked the team against parallel_reduce's limit; parallel_for's for this
          // functor is not smaller on the backends kps knows, but a backend that says so falls back.
          if (p.team_size <= policy.team_size_max(single, Kokkos::ParallelForTag())) {
            Kokkos::parallel_for(label, policy, single);
            return;
          }
        }
      }
      kokkos_reduce(policy, k);
    });
  };
  // n == 0: an empty league still sets the result (to the identity) in the result's memory, in
  // order on exec.
  const int league = n == 0 ? 0 : p.league_size;
  // Dynamic teams only where the backend's threads take teams (host backends): a GPU's kernel
  // would be the same, compiled twice. And only for a league of more than one wave: with one team
  // or none per thread there is nothing to balance, and Kokkos 3.4's OpenMP work stealing still
  // meets the whole pool before the teams start (sum of 2^11 int32 on the 16-core node, 16 teams
  // of one thread: 236 us dynamic, 5 us static). The tuning sweep times the dynamic points only
  // past one wave and lets the seed's league stand in below it (reduce_sweep/dynamic), so a table
  // row chosen there runs what was measured.
  if constexpr (is_host_space_v<Exec>) {
    if (p.dynamic_teams && league > std::max(1, exec.concurrency() / p.team_size)) {
      T* partials = team_partials<T>(std::size_t(league));
      dispatch_width<Load>(p.vector_width, narrow_index(n, p), [&](auto width, auto index) {
        constexpr int V = decltype(width)::value;
        const TeamPartialsKernel<Exec, T, V, Load, decltype(index), Op> k{{load, n, op}, partials};
        Kokkos::parallel_for(label, ReduceDynamicTeamPolicy<Exec>(exec, league, p.team_size), k);
      });
      exec.fence();
      T total = operator_traits<Op, T>::identity(op);
      for (int t = 0; t < league; ++t) {
        if constexpr (is_plus_v<Op, T>)
          total += partials[t];
        else
          total = op(total, partials[t]);
      }
      put_result<T>(result, total);
      return;
    }
  }
  run(ReduceTeamPolicy<Exec>(exec, league, p.team_size));
}

/// The reduction of n elements returned to the host (the call waits for it). A device backend
/// writes it into shared pinned memory and kps fences once (kps/impl/host_result.hpp); a host
/// backend writes the returned variable.
template <class Exec, class T, class Load, class Op = plus>
T reduce(const Exec& exec, std::size_t n, const Load& load, const ReducePolicy& p, const char* label, const Op& op = Op{}) {
  if (n == 0) {
    validate<Exec, T>(exec, p, n, load, op);
    return operator_traits<Op, T>::identity(op);
  }
#if defined(KOKKOS_HAS_SHARED_HOST_PINNED_SPACE)
  if constexpr (uses_pinned_result_v<Exec>) {
    const PinnedResult<T> result;
    reduce_into<Exec, T>(exec, n, load, p, label, result.view(), op);
    exec.fence("kps::reduce: the value for the host");
    return result.view()();
  } else
#endif
  {
    T result = operator_traits<Op, T>::identity(op);
    reduce_into<Exec, T>(exec, n, load, p, label, result, op);
    return result;
  }
}

}  // namespace kps::impl
