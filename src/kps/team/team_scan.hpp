// kps/team/team_scan.hpp — team-level inclusive scans of one power-of-two tile held in team
// scratch memory: the two algorithms of the scan study's seed.
//
// Both map one "lane" (a position the algorithm would give one thread) to team threads in a
// strided loop, so they are correct for any team size (1 on Serial); on a GPU the study
// launches one thread per lane. Lanes that are active in a step are always the lowest
// consecutive lane indices of that step (Blelloch) or a suffix (Hillis-Steele), so they are
// packed into the fewest warps, as the seed asks.
#pragma once

#include <Kokkos_Core.hpp>

#include "kps/operators.hpp"

namespace kps {

/// The team-level algorithms of the seed.
enum class TeamScanAlgorithm {
  /// Naive scan (Hillis & Steele 1986): log2(n) steps; in step k every lane i >= 2^k adds
  /// x[i - 2^k]. n lanes, O(n log n) additions; fewest steps, most active warps.
  hillis_steele,
  /// Work-efficient scan (Brent-Kung / Blelloch): an up-sweep of log2(n) steps with n/2,
  /// n/4, ..., 1 active lanes, then a down-sweep of log2(n)-1 steps with 1, 3, ..., n/2-1.
  /// n/2 lanes, O(n) additions; twice the steps, about a quarter of the active warps.
  blelloch,
};

inline const char* to_string(TeamScanAlgorithm a) {
  return a == TeamScanAlgorithm::hillis_steele ? "hillis_steele" : "blelloch";
}

/// Lanes (threads, one position each) the algorithm uses for a tile of n elements.
KOKKOS_INLINE_FUNCTION constexpr int team_scan_lanes(TeamScanAlgorithm a, int n) {
  return a == TeamScanAlgorithm::hillis_steele ? n : (n > 1 ? n / 2 : 1);
}

/// Team scratch (in elements) the algorithm needs for a tile of n: Hillis-Steele keeps the
/// values read in the first half of a step apart from the tile, so no lane reads a value
/// that another lane of the same step has already updated.
KOKKOS_INLINE_FUNCTION constexpr int team_scan_scratch_elements(TeamScanAlgorithm a, int n) {
  return a == TeamScanAlgorithm::hillis_steele ? 2 * n : n;
}

KOKKOS_INLINE_FUNCTION constexpr int ilog2(long n) {
  int k = 0;
  while ((1L << (k + 1)) <= n) ++k;
  return k;
}

/// Number of barrier-separated steps for a tile of n (a power of two).
KOKKOS_INLINE_FUNCTION constexpr int team_scan_steps(TeamScanAlgorithm a, int n) {
  return n <= 1 ? 0 : (a == TeamScanAlgorithm::hillis_steele ? ilog2(n) : 2 * ilog2(n) - 1);
}

/// Active lanes of one step: [first, last).
struct LaneRange {
  int first;
  int last;
};

/// The active lanes of `step` for a tile of n, and (through `stride`) the step's distance.
KOKKOS_INLINE_FUNCTION constexpr LaneRange team_scan_active_lanes(TeamScanAlgorithm a, int n,
                                                                  int step, int* stride = nullptr) {
  const int lg = ilog2(n);
  if (a == TeamScanAlgorithm::hillis_steele) {
    if (stride) *stride = 1 << step;
    return {1 << step, n};
  }
  if (step < lg) {  // up-sweep, stride s = 2^step: lanes t < n / (2s)
    if (stride) *stride = 1 << step;
    return {0, n >> (step + 1)};
  }
  const int s = n >> (2 + (step - lg));  // down-sweep, s = n/4, n/8, ..., 1
  if (stride) *stride = s;
  return {0, n / (2 * s) - 1};
}

/// Analytic count: warps of `width` lanes holding at least one active lane in `step`.
KOKKOS_INLINE_FUNCTION constexpr long team_scan_active_warps(TeamScanAlgorithm a, int n,
                                                             int width, int step) {
  const LaneRange r = team_scan_active_lanes(a, n, step);
  return r.last <= r.first ? 0 : (r.last - 1) / width - r.first / width + 1;
}

/// Analytic count of active warp-iterations over all steps (the seed's 289 and 71 for
/// n = 1024 and warps of 32).
KOKKOS_INLINE_FUNCTION constexpr long team_scan_active_warp_iterations(TeamScanAlgorithm a,
                                                                       int n, int width) {
  long total = 0;
  for (int step = 0; step < team_scan_steps(a, n); ++step)
    total += team_scan_active_warps(a, n, width, step);
  return total;
}

/// Instrumentation hook that does nothing (the timed path).
struct NoWarpCount {
  KOKKOS_INLINE_FUNCTION void operator()(int /*step*/, int /*lane*/, LaneRange) const {}
};

/// Counts, per step, the warps of `width` lanes that hold at least one active lane: the
/// first active lane of each warp adds one to counts[step] on the device.
struct WarpCount {
  int* counts;
  int width;
  KOKKOS_INLINE_FUNCTION void operator()(int step, int lane, LaneRange r) const {
    if (lane == r.first || lane % width == 0) Kokkos::atomic_add(&counts[step], 1);
  }
};

/// Inclusive scan of x[0, n) (n a power of two) under op by the whole team, in place (each step
/// combines an earlier position into a later one: in order, for any associative operator). `tmp`
/// is n more scratch elements for Hillis-Steele (unused by Blelloch). Ends with a barrier.
template <class Member, class T, class Count = NoWarpCount, class Op = plus>
KOKKOS_INLINE_FUNCTION void team_inclusive_scan(const Member& team, TeamScanAlgorithm alg, T* x,
                                                T* tmp, int n, Count count = {}, const Op& op = {}) {
  const int rank = team.team_rank();
  const int size = team.team_size();
  const int steps = team_scan_steps(alg, n);
  for (int step = 0; step < steps; ++step) {
    int s = 0;
    const LaneRange r = team_scan_active_lanes(alg, n, step, &s);
    if (alg == TeamScanAlgorithm::hillis_steele) {
      for (int i = rank; i < r.last; i += size)
        if (i >= r.first) {
          count(step, i, r);
          tmp[i] = x[i - s];
        }
      team.team_barrier();
      for (int i = rank; i < r.last; i += size)
        if (i >= r.first) {
          if constexpr (impl::is_plus_v<Op, T>)
            x[i] += tmp[i];
          else
            x[i] = op(tmp[i], x[i]);
        }
    } else if (step < ilog2(n)) {
      for (int t = rank; t < r.last; t += size) {
        count(step, t, r);
        if constexpr (impl::is_plus_v<Op, T>)
          x[(2 * t + 2) * s - 1] += x[(2 * t + 1) * s - 1];
        else
          x[(2 * t + 2) * s - 1] = op(x[(2 * t + 1) * s - 1], x[(2 * t + 2) * s - 1]);
      }
    } else {
      for (int t = rank; t < r.last; t += size) {
        count(step, t, r);
        if constexpr (impl::is_plus_v<Op, T>)
          x[(2 * t + 3) * s - 1] += x[(2 * t + 2) * s - 1];
        else
          x[(2 * t + 3) * s - 1] = op(x[(2 * t + 2) * s - 1], x[(2 * t + 3) * s - 1]);
      }
    }
    team.team_barrier();
  }
}

}  // namespace kps
