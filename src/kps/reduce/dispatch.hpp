// kps/reduce/dispatch.hpp — the reduction's dispatch: a policy checked against the backend's
// limits for the kernel (team size per load width and load), its league and load width filled in,
// the 32- or 64-bit index chosen, and the launch into a host value or a rank-0 View.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/impl/host_result.hpp"
#include "kps/impl/kokkos_compat.hpp"
#include "kps/reduce/kernel.hpp"
#include "kps/reduce/policy.hpp"

namespace kps::impl {

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

/// Whether a reduction into Result may end inside a league of one team
/// (SingleTeamReduceKernel): Result is a rank-0 View that exec writes directly.
template <class Exec, class Result, class Enable = void>
inline constexpr bool single_team_result_v = false;
template <class Exec, class Result>
inline constexpr bool single_team_result_v<Exec, Result, std::enable_if_t<Kokkos::is_view<Result>::value>> =
    Kokkos::SpaceAccessibility<Exec, typename Result::memory_space>::accessible;

/// Runs the reduction of n elements into `result`: a T& (the call waits for the value) or a
/// rank-0 View of T (the call is asynchronous on exec, as Kokkos::parallel_reduce into a View).
/// A league of one team writing a View exec reaches ends the reduction in the team
/// (SingleTeamReduceKernel, launched by parallel_for); otherwise Kokkos' parallel_reduce adds
/// the threads' and the teams' sums.
template <class Exec, class T, class Load, class Result>
void reduce_into(const Exec& exec, std::size_t n, const Load& load, ReducePolicy p, const char* label,
                 Result&& result) {
  p = validate<Exec, T>(exec, p, n, load);
  const auto run = [&](const auto& policy) {
    dispatch_width(p.vector_width, narrow_index(n, p), [&](auto width, auto index) {
      constexpr int V = decltype(width)::value;
      ReduceKernel<Exec, T, V, Load, decltype(index)> k{load, n};
      using R = std::decay_t<Result>;
      if constexpr (single_team_result_v<Exec, R>) {
        if (n > 0 && p.league_size == 1) {
          const SingleTeamReduceKernel<Exec, T, V, Load, decltype(index), R> single{k, result};
          // validate checked the team against parallel_reduce's limit; parallel_for's for this
          // functor is not smaller on the backends kps knows, but a backend that says so falls back.
          if (p.team_size <= policy.team_size_max(single, Kokkos::ParallelForTag())) {
            Kokkos::parallel_for(label, policy, single);
            return;
          }
        }
      }
      Kokkos::parallel_reduce(label, policy, k, result);
    });
  };
  // n == 0: an empty league still sets the result (to 0) in the result's memory, in order on exec.
  const int league = n == 0 ? 0 : p.league_size;
  // Dynamic teams only where the backend's threads take teams (host backends): a GPU's kernel
  // would be the same, compiled twice. And only for a league of more than one wave: with one team
  // or none per thread there is nothing to balance, and Kokkos 3.4's OpenMP work stealing still
  // meets the whole pool before the teams start (sum of 2^11 int32 on the 16-core node, 16 teams
  // of one thread: 236 us dynamic, 5 us static). The tuning sweep times the dynamic points only
  // past one wave and lets the seed's league stand in below it (reduce_sweep/dynamic), so a table
  // row chosen there runs what was measured.
  if constexpr (is_host_space_v<Exec>)
    if (p.dynamic_teams && league > std::max(1, exec.concurrency() / p.team_size))
      return run(ReduceDynamicTeamPolicy<Exec>(exec, league, p.team_size));
  run(ReduceTeamPolicy<Exec>(exec, league, p.team_size));
}

/// The reduction of n elements returned to the host (the call waits for it). A device backend
/// writes it into shared pinned memory and kps fences once (kps/impl/host_result.hpp); a host
/// backend writes the returned variable.
template <class Exec, class T, class Load>
T reduce(const Exec& exec, std::size_t n, const Load& load, const ReducePolicy& p, const char* label) {
  if (n == 0) {
    validate<Exec, T>(exec, p, n, load);
    return T(0);
  }
#if defined(KOKKOS_HAS_SHARED_HOST_PINNED_SPACE)
  if constexpr (uses_pinned_result_v<Exec>) {
    const PinnedResult<T> result;
    reduce_into<Exec, T>(exec, n, load, p, label, result.view());
    exec.fence("kps::reduce: the value for the host");
    return result.view()();
  } else
#endif
  {
    T result = T(0);
    reduce_into<Exec, T>(exec, n, load, p, label, result);
    return result;
  }
}

}  // namespace kps::impl
