// bench/kernels/spin.hpp — the fixed-duration kernel of the occupancy study (seed 004), portable: every
// thread of a TeamPolicy(league, team_size) spins until `ticks` of the backend's clock have
// passed (core cycles on CUDA, nanoseconds on host backends), after writing its slot of
// `scratch_bytes` of team scratch (the portable form of the seed's shared memory per block).
// A team's time is then fixed whatever else shares its SM, so the launch takes (waves x ticks):
// the number of waves is what the occupancy model predicts.
// Kokkos' levers on occupancy: LaunchBounds<MaxThreads, MinBlocks> (template parameters), with
// `Live` values kept live across the spin so that the kernel needs registers the bounds can
// cap, and Kokkos::Experimental::DesiredOccupancy (SpinConfig::desired_occupancy).
#pragma once

#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"

namespace kps::bench {

struct SpinConfig {
  int league = 1;
  int team_size = 1;
  long long ticks = 0;          ///< spin length in BackendClock ticks
  std::size_t scratch_bytes = 0;  ///< team scratch (level 0) per team
  int desired_occupancy = 0;      ///< percent, through Kokkos::Experimental::prefer; 0: none
};

namespace kernels {

template <class Exec, class Bounds, int Live = 0>
struct SpinTeams {
  using Policy = Kokkos::TeamPolicy<Exec, Bounds>;
  using Scratch = Kokkos::View<int*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<long long*, typename Exec::memory_space> out;  // ticks spun, one per team
  long long ticks = 0;
  std::size_t scratch_words = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const typename Policy::member_type& team) const {
    constexpr int L = Live > 0 ? Live : 1;
    float v[L];
    for (int i = 0; i < L; ++i) v[i] = static_cast<float>(team.team_rank()) * static_cast<float>(i + 1);
    const long long start = kps::impl::BackendClock<Exec>::now();
    long long now = start;
    if (scratch_words > 0) {
      Scratch scratch(team.team_scratch(0), scratch_words);
      scratch(static_cast<std::size_t>(team.team_rank()) % scratch_words) = team.team_rank();
    }
    while (now - start < ticks) {
      if (Live > 0)
        for (int i = 0; i < L; ++i) v[i] = v[i] * 1.0001f + v[(i + 1) % L];
      now = kps::impl::BackendClock<Exec>::now();
    }
    float sum = 0;
    for (int i = 0; i < L; ++i) sum += v[i];
    if (team.team_rank() == 0) out(team.league_rank()) = now - start;
    if (sum != sum) out(team.league_rank()) = -1;  // never NaN here: keeps the live values live
  }
};

}  // namespace kernels

/// Launches the spin on exec (asynchronous); out(t) receives the ticks team t spun (>= ticks).
/// MaxThreads / MinBlocks become Kokkos::LaunchBounds (0, 0: none); Live values stay live
/// across the spin (register pressure). Throws
/// std::invalid_argument for league or team size < 1, a team size or scratch size past the
/// backend's limit, or out shorter than the league.
template <unsigned MaxThreads = 0, unsigned MinBlocks = 0, int Live = 0, class Exec>
void spin_teams(const Exec& exec, const SpinConfig& cfg, const Kokkos::View<long long*, typename Exec::memory_space>& out) {
  using Functor = kernels::SpinTeams<Exec, Kokkos::LaunchBounds<MaxThreads, MinBlocks>, Live>;
  if (cfg.league < 1 || cfg.team_size < 1 || cfg.ticks < 0)
    throw std::invalid_argument("kps::spin_teams: league and team size must be >= 1, ticks >= 0");
  if (out.extent(0) < static_cast<std::size_t>(cfg.league))
    throw std::invalid_argument("kps::spin_teams: out is shorter than the league");
  const std::size_t scratch_max = Functor::Policy::scratch_size_max(0);
  if (cfg.scratch_bytes > scratch_max)
    throw std::invalid_argument("kps::spin_teams: " + std::to_string(cfg.scratch_bytes) + " bytes of team scratch is over the " +
                                Exec::name() + " backend's limit of " + std::to_string(scratch_max));
  const Functor f{out, cfg.ticks, cfg.scratch_bytes / sizeof(int)};
  // The limits are asked of a one-thread policy: from Kokkos 5.1 a policy past them cannot be made.
  typename Functor::Policy probe(exec, 1, 1);
  if (cfg.scratch_bytes > 0) probe.set_scratch_size(0, Kokkos::PerTeam(cfg.scratch_bytes));
  const int team_max = probe.team_size_max(f, Kokkos::ParallelForTag{});
  if (cfg.team_size > team_max)
    throw std::invalid_argument("kps::spin_teams: team size " + std::to_string(cfg.team_size) + " is over the " +
                                Exec::name() + " backend's limit of " + std::to_string(team_max) + " for this kernel");
  if (cfg.desired_occupancy < 0 || cfg.desired_occupancy > 100)
    throw std::invalid_argument("kps::spin_teams: desired occupancy is a percentage (1..100, 0: none)");
  typename Functor::Policy policy(exec, cfg.league, cfg.team_size);
  if (cfg.scratch_bytes > 0) policy.set_scratch_size(0, Kokkos::PerTeam(cfg.scratch_bytes));
  if (cfg.desired_occupancy > 0)
    Kokkos::parallel_for("kps::spin_teams",
                         Kokkos::Experimental::prefer(policy, Kokkos::Experimental::DesiredOccupancy{cfg.desired_occupancy}), f);
  else
    Kokkos::parallel_for("kps::spin_teams", policy, f);
}

}  // namespace kps::bench
