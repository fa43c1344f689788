// kps/scan/dispatch.hpp — the single-pass scan's dispatch (CUB's DispatchScan): the policy's
// knobs resolved against the tuning (kps/scan/tuning.hpp: the device's row for the operator's
// class, the value type and n), checked, the kernel's template instance chosen (items per thread,
// load layout, exclusive or inclusive, probe, the problem: operator, accessors, initial value,
// deterministic look-back), the team size fitted to the backend's limits, the workspace's tile
// status prepared for the value's size, and the launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"
#include "kps/impl/lanes.hpp"
#include "kps/impl/workspace.hpp"
#include "kps/scan/policy.hpp"
#include "kps/scan/single_pass.hpp"
#include "kps/scan/single_pass_cached.hpp"
#include "kps/scan/tuning.hpp"

namespace kps::impl {

/// The backend's vector lanes per Kokkos thread for the single pass when the policy names none:
/// a GPU's warp (its TeamPolicy's largest vector length, 32 on CUDA), one on host backends.
template <class Exec>
int default_lanes() {
  if constexpr (BackendLanes<Exec>::simt)
    return Kokkos::TeamPolicy<Exec>::vector_length_max();
  else
    return 1;
}

/// Items per thread of cached tiles: from a cache line's worth up to 2^24 (a tile of 64 MiB and
/// more per thread is past any core's cache).
inline constexpr int cached_items_min = 64;
inline constexpr int cached_items_max = 1 << 24;

/// Whether direct and staged tiles are instantiated for this many items per thread for some
/// problem (with_single_pass_kernel); other counts are cached tiles'.
inline bool register_items(int items) {
  for (int i : {8, 16, 24, 32, 48, 64, 128, 256})
    if (items == i) return true;
  return false;
}

/// The largest count register_items takes that is at most `want` (8 at least).
constexpr int register_items_at_most(std::size_t want) {
  int best = 8;
  for (int i : {8, 16, 24, 32, 48, 64, 128, 256})
    if (std::size_t(i) <= want) best = i;
  return best;
}

/// The bytes of values per thread whose items counts every problem but today's sums instantiates
/// for direct and staged tiles: 64, 128 and 256 by default (a program that compiles many problems
/// and sweeps none of them, as the test suite, may define KPS_SCAN_REGISTER_BYTES to fewer, e.g. 128,
/// the same in each of its translation units; a policy then names one of the counts it left).
#ifndef KPS_SCAN_REGISTER_BYTES
#define KPS_SCAN_REGISTER_BYTES 64, 128, 256
#endif

/// Whether the problem P's direct and staged tiles are instantiated for `items` per thread: today's
/// sums for 8, 16, 24, 32, 48, 64 and 256 (the counts their sweeps measure); every other problem
/// for KPS_SCAN_REGISTER_BYTES bytes of values per thread (kps/scan/operation.hpp: ScanProblem).
template <class P>
constexpr bool single_pass_items(int items) {
  if constexpr (!P::run_time_flags) {
    for (int i : {8, 16, 24, 32, 48, 64, 256})
      if (items == i) return true;
    return false;
  } else {
    using T = typename P::value_type;
    for (std::size_t bytes : {KPS_SCAN_REGISTER_BYTES})
      if (items == register_items_at_most(bytes / sizeof(T))) return true;
    return false;
  }
}

/// The counts single_pass_items takes, for messages.
template <class P>
std::string single_pass_items_list() {
  std::string s;
  for (int i : {8, 16, 24, 32, 48, 64, 128, 256})
    if (single_pass_items<P>(i)) s += (s.empty() ? "" : ", ") + std::to_string(i);
  return s;
}

/// The instantiated count nearest `items` (a tuned count a problem does not instantiate).
template <class P>
int nearest_single_pass_items(int items) {
  int best = 0;
  for (int i : {8, 16, 24, 32, 48, 64, 128, 256})
    if (single_pass_items<P>(i) && (best == 0 || std::abs(i - items) < std::abs(best - items))) best = i;
  return best;
}

/// The single-pass policy with every knob filled in for Exec, T and n: the explicit knobs, the
/// tuning's for the others (kps::impl::scan_tuning), then checked; std::invalid_argument for a
/// knob out of range. A policy that names its items per thread, or a team too large for a staged
/// tile of them, loads directly unless it names the load (cached tiles for a count that only
/// they take). Team size 0 stays "automatic" until the launch.
template <class Exec, class T, class Op = plus, class P = ScanProblem<T, Op>>
SinglePassPolicy resolve(const Exec& exec, SinglePassPolicy p, std::size_t n) {
  const SinglePassPolicy tuned = scan_tuning<Exec, T, Op>(exec, n).single_pass;
  const bool default_items = p.items_per_thread == 0;
  if (default_items) p.items_per_thread = tuned.items_per_thread;
  if (p.load == TileLoad::automatic) {
    const bool fits = p.team_size == 0 || std::size_t(p.team_size) * p.items_per_thread * sizeof(T) <= 32768;
    p.load = default_items && fits ? tuned.load
             : register_items(p.items_per_thread) ? TileLoad::direct
                                                  : TileLoad::cached;
  }
  if (p.store == TileStore::automatic) p.store = tuned.store == TileStore::automatic ? TileStore::cached : tuned.store;
  // A tuned count of direct or staged items this problem does not instantiate: the nearest it does.
  if (default_items && p.load != TileLoad::cached && !single_pass_items<P>(p.items_per_thread))
    p.items_per_thread = nearest_single_pass_items<P>(p.items_per_thread);
  if (p.load == TileLoad::cached && (p.items_per_thread < cached_items_min || p.items_per_thread > cached_items_max))
    throw std::invalid_argument("kps: single_pass scan: cached tiles take " + std::to_string(cached_items_min) + " to " +
                                std::to_string(cached_items_max) + " items per thread, got " +
                                std::to_string(p.items_per_thread));
  const bool default_team = p.team_size == 0;
  if (default_team) p.team_size = tuned.team_size;
  if (p.look_back_delay_ns == -1) p.look_back_delay_ns = tuned.look_back_delay_ns;
  if (p.poll_delay_ns == -1) p.poll_delay_ns = tuned.poll_delay_ns;
  if (p.prefetch_tiles == -1) p.prefetch_tiles = tuned.prefetch_tiles;
  if (p.lanes == 0) p.lanes = default_lanes<Exec>();
  if (default_team && p.team_size > 0 && p.team_size < p.lanes) p.team_size = p.lanes;  // one Kokkos thread
  if (p.team_size < 0) throw std::invalid_argument("kps: single_pass scan: team size must be positive");
  if (p.prefetch_tiles < 0 || p.prefetch_tiles > 65536)
    throw std::invalid_argument("kps: single_pass scan: prefetch_tiles is 0 to 65536 (-1: the tuning's), got " +
                                std::to_string(p.prefetch_tiles));
  for (int d : {p.look_back_delay_ns, p.poll_delay_ns})
    if (d < 0 || d > 1000000)
      throw std::invalid_argument("kps: single_pass scan: look-back delays are 0 to 1000000 ns (-1: the tuning's), got " +
                                  std::to_string(d));
  const int most = BackendLanes<Exec>::simt ? Kokkos::TeamPolicy<Exec>::vector_length_max() : max_lanes;
  if (p.lanes < 1 || p.lanes > most || (p.lanes & (p.lanes - 1)) != 0)
    throw std::invalid_argument("kps: single_pass scan: lanes must be a power of two up to " + std::to_string(most) +
                                " on this backend (0: its " + std::to_string(default_lanes<Exec>()) + "), got " +
                                std::to_string(p.lanes));
  return p;
}

/// Calls f(std::integral_constant<int, Items>, std::bool_constant<Staged>) for the policy's
/// items per thread and tile load (both resolved); throws std::invalid_argument for the
/// combinations kps does not instantiate for T: a staged run of whole 16-byte vectors (1-byte
/// values: 16 items or a multiple), 256 staged items for values of one byte only (a larger staged
/// tile of 256 items exceeds team scratch).
template <class P, class F>
decltype(auto) with_single_pass_kernel(const SinglePassPolicy& p, F&& f) {
  using T = typename P::value_type;
  const bool staged = p.load == TileLoad::staged;
  auto either = [&](auto items) -> decltype(auto) {
    constexpr int I = decltype(items)::value;
    if constexpr (StagedTile<T, I>::stageable && (I != 256 || sizeof(T) == 1)) {
      if (staged) return f(items, std::true_type{});
    } else {
      if (staged)
        throw std::invalid_argument(
            "kps: single_pass scan: " + std::to_string(I) + " items per thread of a " + std::to_string(sizeof(T)) +
            "-byte value are not staged (" +
            (StagedTile<T, I>::stageable ? std::string("a staged tile that large exceeds team scratch")
                                         : "a staged run is whole 16-byte vectors of " +
                                               std::to_string(StagedTile<T, I>::per_vector) + " values") +
            "); they load directly");
    }
    return f(items, std::false_type{});
  };
  const auto bad = [&]() -> std::invalid_argument {
    return std::invalid_argument("kps: single_pass scan: direct and staged tiles of this problem take " +
                                 single_pass_items_list<P>() + " items per thread, got " +
                                 std::to_string(p.items_per_thread));
  };
#define KPS_IMPL_ITEMS_CASE(I)                                                      \
  case I:                                                                           \
    if constexpr (single_pass_items<P>(I)) return either(std::integral_constant<int, I>{}); \
    throw bad();
  switch (p.items_per_thread) {
    KPS_IMPL_ITEMS_CASE(8)
    KPS_IMPL_ITEMS_CASE(16)
    KPS_IMPL_ITEMS_CASE(24)
    KPS_IMPL_ITEMS_CASE(32)
    KPS_IMPL_ITEMS_CASE(48)
    KPS_IMPL_ITEMS_CASE(64)
    KPS_IMPL_ITEMS_CASE(128)
    KPS_IMPL_ITEMS_CASE(256)
    default: throw bad();
  }
#undef KPS_IMPL_ITEMS_CASE
}

/// The largest team (in threads: Kokkos threads x lanes) the backend launches `kernel` with,
/// given the team scratch a team of `team_size` threads needs (the kernel's registers and that
/// scratch decide it).
template <class Exec, class Kernel>
int single_pass_limit(const Exec& exec, int team_size, int lanes, const Kernel& kernel = Kernel{}) {
  Kokkos::TeamPolicy<Exec> probe(exec, 1, 1, lanes);
  probe.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(team_size, lanes)));
  return probe.team_size_max(kernel, Kokkos::ParallelForTag()) * lanes;
}

/// The team size (threads) the single pass launches Kernel with for a requested one (0:
/// automatic, the largest multiple of 128 up to the default that fits, whole Kokkos threads);
/// std::invalid_argument for a team size that is not whole Kokkos threads or over the backend's limit.
template <class Exec, class T, class Kernel>
int single_pass_team(const Exec& exec, int team_size, int lanes, bool staged, const Kernel& kernel = Kernel{}) {
  auto limit = [&](int ts) { return single_pass_limit<Exec, Kernel>(exec, ts, lanes, kernel); };
  if (team_size == 0) {
    int ts = single_pass_default_team<T>(staged);
    if (ts < lanes) ts = lanes;
    while (ts > lanes && limit(ts) < ts) ts = ts > 128 ? ts - 128 : ts / 2;
    return ts;
  }
  if (team_size % lanes != 0)
    throw std::invalid_argument("kps: single_pass scan: team size " + std::to_string(team_size) +
                                " is not a multiple of the " + std::to_string(lanes) + " vector lanes");
  const int max = limit(team_size);
  if (team_size > max)
    throw std::invalid_argument("kps: single_pass scan: team size " + std::to_string(team_size) +
                                " exceeds the backend's limit of " + std::to_string(max) + " for this kernel (team scratch " +
                                std::to_string(Kernel::scratch_bytes(team_size, lanes)) + " bytes)");
  return team_size;
}

/// Whether the backend launches the (exclusive) single pass with this policy for n elements of
/// T under Op (a sum's kernel stands for the problem's: the launch itself checks the problem's own);
/// policies kps refuses are not launchable either.
template <class Exec, class T, class Op = plus>
bool single_pass_launchable(const Exec& exec, SinglePassPolicy p, std::size_t n = 0) {
  using P = ScanProblem<T, Op>;
  try {
    p = resolve<Exec, T, Op>(exec, p, n);
    if (p.team_size == 0) return true;  // automatic: lowered to what fits
    if (p.load == TileLoad::cached) {
      single_pass_team<Exec, T, CachedSinglePassKernel<Exec, T, true, false, NoProbe, P>>(exec, p.team_size, p.lanes,
                                                                                          false);
      return true;
    }
    return with_single_pass_kernel<P>(p, [&](auto items, auto stage) {
      using Kernel = SinglePassKernel<Exec, T, decltype(items)::value, true, decltype(stage)::value, NoProbe, P>;
      single_pass_team<Exec, T, Kernel>(exec, p.team_size, p.lanes, decltype(stage)::value);
      return true;
    });
  } catch (const std::invalid_argument&) {
    return false;
  }
}

/// Elements per tile of the single pass with this policy on exec for n elements (what its launch uses).
template <class Exec, class T, class Op = plus>
std::size_t single_pass_tile_elements(const Exec& exec, SinglePassPolicy p, std::size_t n = 0) {
  using P = ScanProblem<T, Op>;
  p = resolve<Exec, T, Op>(exec, p, n);
  if (p.load == TileLoad::cached)
    return std::size_t(single_pass_team<Exec, T, CachedSinglePassKernel<Exec, T, true, false, NoProbe, P>>(
               exec, p.team_size, p.lanes, false)) *
           std::size_t(p.items_per_thread);
  return with_single_pass_kernel<P>(p, [&](auto items, auto stage) {
    using Kernel = SinglePassKernel<Exec, T, decltype(items)::value, true, decltype(stage)::value, NoProbe, P>;
    return std::size_t(single_pass_team<Exec, T, Kernel>(exec, p.team_size, p.lanes, decltype(stage)::value)) *
           decltype(items)::value;
  });
}

/// Tiles of tile_elems for n elements; std::invalid_argument past what one launch numbers.
inline std::size_t single_pass_tiles(std::size_t n, std::size_t tile_elems) {
  const std::size_t tiles = (n + tile_elems - 1) / tile_elems;
  if (tiles > std::size_t(2147483647))
    throw std::invalid_argument("kps: single_pass scan: too many tiles for one launch");
  return tiles;
}

/// The workspace's tile status words for `tiles` tiles of values of T. They persist between
/// calls; the epoch tells this call's words apart. Made and zeroed on exec: no other instance, no
/// other host thread's, is involved.
template <class T, class Exec>
void prepare_tile_status(const Exec& exec, Workspace<Exec>& ws, std::size_t tiles) {
  constexpr std::size_t words = tile_status_words<T> < 2 ? 2 : std::size_t(tile_status_words<T>);
  const std::size_t had = ws.status.extent(0), per = had ? ws.values.extent(0) / had : 0;
  if (had < tiles || per < words || ws.epoch + 1 >= (1u << 30)) {
    exec.fence();
    ws.status = {};
    ws.values = {};
    const std::size_t cap = tiles > had ? tiles : had;
    ws.status = Kokkos::View<std::uint64_t*, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::status")), cap);
    ws.values = Kokkos::View<std::uint64_t*, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::values")), (words > per ? words : per) * cap);
    ws.epoch = 0;
  }
}

/// Sets a kernel's run-time flags (kps/scan/operation.hpp: ScanFlags), where it has them.
template <class P, class Kernel>
void set_scan_flags(Kernel& k, bool exclusive, bool deterministic) {
  if constexpr (P::run_time_flags) {
    k.exclusive_flag = exclusive;
    k.deterministic_flag = deterministic;
  } else {
    (void)k, (void)exclusive, (void)deterministic;
  }
}

template <class Exec, class T, int Items, bool Exclusive, bool Staged, class P, class Probe>
void launch_single_pass(const Exec& exec, const typename P::in_type& in, const typename P::out_type& out,
                        std::size_t n, const SinglePassPolicy& p, Workspace<Exec>& ws, const Probe& probe,
                        const typename P::op_type& op, const typename P::init_type& init, bool exclusive,
                        bool deterministic) {
  using Kernel = SinglePassKernel<Exec, T, Items, Exclusive, Staged, Probe, P>;
  Kernel k(op, init);
  set_scan_flags<P>(k, exclusive, deterministic);
  const int team_size = single_pass_team<Exec, T, Kernel>(exec, p.team_size, p.lanes, Staged, k);
  const std::size_t tile_elems = std::size_t(team_size) * Items;
  const std::size_t tiles = single_pass_tiles(n, tile_elems);
  prepare_tile_status<T>(exec, ws, tiles);
  if (!single_pass_ids_by_rank<Exec> && !ws.tile_counter.data())
    ws.tile_counter = Kokkos::View<unsigned int, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::tile_counter")));
  k.in = in;
  k.out = out;
  k.n = n;
  k.tiles = TileStatus<Exec, T>{ws.status.data(), ws.values.data(), ws.epoch + 1};
  k.counter = ws.tile_counter.data();
  k.lanes = p.lanes;
  k.delay = LookBackDelay{unsigned(p.look_back_delay_ns), unsigned(p.poll_delay_ns)};
  k.prefetch_ahead = unsigned(p.prefetch_tiles);
  k.probe = probe;
  // Every call starts its tile ids from 0 on exec's stream (a 4-byte fill, where tiles are not
  // numbered by rank): a call that failed to launch can never leave the counter out of step
  // with the next one.
  ++ws.epoch;
  if constexpr (!single_pass_ids_by_rank<Exec>) Kokkos::deep_copy(exec, ws.tile_counter, 0u);
  Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(tiles), team_size / p.lanes, p.lanes);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(team_size, p.lanes)));
  Kokkos::parallel_for(exclusive ? "kps::single_pass_scan::exclusive" : "kps::single_pass_scan::inclusive", policy, k);
}

/// The single pass on cached tiles (kps/scan/single_pass_cached.hpp): persistent teams, as many as
/// the backend runs at once (its concurrency over the team's threads), at most one per tile.
template <class Exec, class T, bool Exclusive, bool Streaming, class P, class Probe>
void launch_cached_single_pass(const Exec& exec, const typename P::in_type& in, const typename P::out_type& out,
                               std::size_t n, const SinglePassPolicy& p, Workspace<Exec>& ws, const Probe& probe,
                               const typename P::op_type& op, const typename P::init_type& init, bool exclusive,
                               bool deterministic) {
  using Kernel = CachedSinglePassKernel<Exec, T, Exclusive, Streaming, Probe, P>;
  Kernel k(op, init);
  set_scan_flags<P>(k, exclusive, deterministic);
  const int team_size = single_pass_team<Exec, T, Kernel>(exec, p.team_size, p.lanes, false, k);
  const std::size_t tiles = single_pass_tiles(n, std::size_t(team_size) * std::size_t(p.items_per_thread));
  prepare_tile_status<T>(exec, ws, tiles);
  if (!ws.tile_claims.data())
    ws.tile_claims = Kokkos::View<unsigned int, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::tile_claims")));
  std::size_t at_once = std::size_t(exec.concurrency()) / std::size_t(team_size);
  if (at_once < 1) at_once = 1;
  const std::size_t league = tiles < at_once ? tiles : at_once < std::size_t(max_league_size) ? at_once : max_league_size;
  k.in = in;
  k.out = out;
  k.n = n;
  k.items = std::size_t(p.items_per_thread);
  k.tiles_total = long(tiles);
  k.tiles = TileStatus<Exec, T>{ws.status.data(), ws.values.data(), ws.epoch + 1};
  k.claims = ws.tile_claims.data();
  k.first_claim = ws.claims;
  k.lanes = p.lanes;
  k.delay = LookBackDelay{unsigned(p.look_back_delay_ns), unsigned(p.poll_delay_ns)};
  k.probe = probe;
  ++ws.epoch;
  Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(league), team_size / p.lanes, p.lanes);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(team_size, p.lanes)));
  Kokkos::parallel_for(exclusive ? "kps::single_pass_scan::cached::exclusive" : "kps::single_pass_scan::cached::inclusive",
                       policy, k);
  // Every team claims each tile it scans and one more that finds none.
  ws.claims += static_cast<unsigned int>(tiles + league);
}

/// The single pass of the problem P (kps/scan/operation.hpp) over in[0, n) into out (in may be
/// out), with the kernel's hooks `probe` (kps/scan/look_back.hpp). `deterministic`: the look-back
/// of ScanOptions::deterministic (a problem with run-time flags only).
template <class Exec, class P, class Probe = NoProbe>
void single_pass_scan_problem(const Exec& exec, const typename P::in_type& in, const typename P::out_type& out,
                              std::size_t n, bool exclusive, SinglePassPolicy policy, Workspace<Exec>& ws,
                              const typename P::op_type& op, const typename P::init_type& init,
                              bool deterministic = false, const Probe& probe = {}) {
  using T = typename P::value_type;
  if (n == 0) return;
  policy = resolve<Exec, T, typename P::op_type, P>(exec, policy, n);
  if (Probe::exclusive_only && !exclusive)
    throw std::invalid_argument("kps: single_pass scan: the look-back probe is built for exclusive scans only");
  if (deterministic && !P::run_time_flags)
    throw std::logic_error("kps: single_pass scan: a deterministic scan of a problem without run-time flags");
  if (policy.load == TileLoad::cached) {
    const auto launch = [&](auto streaming) {
      constexpr bool S = decltype(streaming)::value;
      if (exclusive || P::run_time_flags)
        launch_cached_single_pass<Exec, T, true, S, P>(exec, in, out, n, policy, ws, probe, op, init, exclusive,
                                                       deterministic);
      else if constexpr (!Probe::exclusive_only)
        launch_cached_single_pass<Exec, T, false, S, P>(exec, in, out, n, policy, ws, probe, op, init, exclusive,
                                                        deterministic);
    };
    if (policy.store == TileStore::streaming)
      launch(std::true_type{});
    else
      launch(std::false_type{});
    return;
  }
  with_single_pass_kernel<P>(policy, [&](auto items, auto stage) {
    constexpr int I = decltype(items)::value;
    constexpr bool S = decltype(stage)::value;
    if constexpr (P::run_time_flags) {
      // One kernel, exclusive or inclusive by its flag.
      launch_single_pass<Exec, T, I, true, S, P>(exec, in, out, n, policy, ws, probe, op, init, exclusive,
                                                 deterministic);
    } else if (exclusive) {
      launch_single_pass<Exec, T, I, true, S, P>(exec, in, out, n, policy, ws, probe, op, init, true, false);
    } else if constexpr (!Probe::exclusive_only) {
      launch_single_pass<Exec, T, I, false, S, P>(exec, in, out, n, policy, ws, probe, op, init, false, false);
    }
  });
}

/// Single-pass sum of in[0, n) into out (in may equal out), with the kernel's hooks `probe`
/// (kps/scan/look_back.hpp): NoProbe; a LookBackProbe (the scan study's instrument: exclusive
/// scans only) receives single_pass_probe_words words per tile of
/// single_pass_tile_elements(exec, policy, n) elements; AggregatesOnlyProbe (tests).
template <class Exec, class T, class Probe = NoProbe>
void single_pass_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive, SinglePassPolicy policy,
                      Workspace<Exec>& ws, const Probe& probe = {}) {
  single_pass_scan_problem<Exec, ScanProblem<T>>(exec, in, out, n, exclusive, policy, ws, plus{}, NoInit{}, false, probe);
}

}  // namespace kps::impl
