// kps/reduce/policy.hpp — every knob of the reduction in one struct (the seed's: team size, load
// per thread, work groups, plus the load width), and the rule that picks one where the device's
// tuning table has no row (kps/tuning/table.hpp).
#pragma once

#include <cstddef>
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
  /// Teams taken by the backend's threads as they free up (Kokkos::Schedule<Dynamic>: work
  /// stealing on OpenMP) instead of in one fixed block per thread: where a host backend's threads
  /// run at uneven speeds, a league of many teams then keeps every thread busy to the end. GPUs
  /// schedule their blocks in hardware: ignored there; so is a league of one wave or fewer teams
  /// (at most one team per thread: nothing to balance, and the sweep times no such point).
  bool dynamic_teams = false;
};

// Its knobs, their names and to_string(ReducePolicy): kps/knobs.hpp.

/// The fallback rule: the policy for n elements where the tuning table has no row, from the
/// backend's concurrency C alone (Kokkos' concurrency: SMs x resident threads per SM on a GPU, 2048 x
/// 132 on an H100; hardware threads on a host backend).
/// - GPU: teams of 256 threads, 16 items per thread (a 4096-element tile, four 16-byte loads
///   per thread for 4-byte types), at most one wave of teams, C / 256 (8 per SM on an H100:
///   1056), its threads looping over the data, as CUB sizes its grid.
/// - Host: one thread per team, 8 items per thread (two 16-byte loads of 4-byte types), at most
///   one wave of teams (one per hardware thread), each thread adding one contiguous range
///   (kps/host/reduce_share.hpp): an OpenMP static schedule, added in SIMD lanes. Of the host
///   sweep's configurations (results/host-openmp/reduce/tune) the best single rule over every type
///   and size: 1.31 x each size's optimum on average (geometric mean; the optima are the minima
///   of noisy shared cores), where the seed's league with 512 items came to 1.47
///   (studies/reduce/README.md).
/// Never more teams than the data needs (at least one).
template <class Exec>
ReducePolicy fallback_reduce_policy(const Exec& exec, std::size_t n) {
  ReducePolicy p;
  const bool host = impl::is_host_space_v<Exec>;
  p.team_size = host ? 1 : 256;
  p.items_per_thread = host ? 8 : 16;
  const std::size_t per_team = std::size_t(p.team_size) * p.items_per_thread;
  const std::size_t needed = (n + per_team - 1) / per_team;
  const std::size_t concurrency = static_cast<std::size_t>(exec.concurrency());
  const std::size_t wave = concurrency / p.team_size < 1 ? 1 : concurrency / p.team_size;
  const std::size_t league = needed < wave ? needed : wave;
  p.league_size = static_cast<int>(league < 1 ? 1 : league);
  return p;
}

}  // namespace kps
