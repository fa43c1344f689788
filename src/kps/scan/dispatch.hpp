// kps/scan/dispatch.hpp — the single-pass scan's dispatch (CUB's DispatchScan): the policy's
// knobs resolved against the tuning (kps/scan/tuning.hpp), checked, the kernel's template
// instance chosen (items per thread, load layout, exclusive or inclusive, probe), the team size
// fitted to the backend's limits, the workspace's tile status prepared, and the launch.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// Whether direct and staged tiles are instantiated for this many items per thread
/// (with_single_pass_kernel); other counts are cached tiles'.
inline bool register_items(int items) {
  for (int i : {8, 16, 24, 32, 48, 64, 256})
    if (items == i) return true;
  return false;
}

/// The single-pass policy with every knob filled in for Exec, T and n: the explicit knobs, the
/// tuning's for the others (kps::impl::scan_tuning), then checked; std::invalid_argument for a
/// knob out of range. A policy that names its items per thread, or a team too large for a staged
/// tile of them, loads directly unless it names the load (cached tiles for a count that only
/// they take). Team size 0 stays "automatic" until the launch.
template <class Exec, class T>
SinglePassPolicy resolve(const Exec& exec, SinglePassPolicy p, std::size_t n) {
  const SinglePassPolicy tuned = scan_tuning<Exec, T>(exec, n).single_pass;
  const bool default_items = p.items_per_thread == 0;
  if (default_items) p.items_per_thread = tuned.items_per_thread;
  if (p.load == TileLoad::automatic) {
    const bool fits = p.team_size == 0 || std::size_t(p.team_size) * p.items_per_thread * sizeof(T) <= 32768;
    p.load = default_items && fits ? tuned.load
             : register_items(p.items_per_thread) ? TileLoad::direct
                                                  : TileLoad::cached;
  }
  if (p.store == TileStore::automatic) p.store = tuned.store == TileStore::automatic ? TileStore::cached : tuned.store;
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
/// combinations kps does not instantiate.
template <class F>
decltype(auto) with_single_pass_kernel(const SinglePassPolicy& p, F&& f) {
  const bool staged = p.load == TileLoad::staged;
  auto either = [&](auto items) -> decltype(auto) {
    if (staged) return f(items, std::true_type{});
    return f(items, std::false_type{});
  };
  switch (p.items_per_thread) {
    case 8: return either(std::integral_constant<int, 8>{});
    case 16: return either(std::integral_constant<int, 16>{});
    case 24: return either(std::integral_constant<int, 24>{});
    case 32: return either(std::integral_constant<int, 32>{});
    case 48: return either(std::integral_constant<int, 48>{});
    case 64: return either(std::integral_constant<int, 64>{});
    case 256:
      if (staged)
        throw std::invalid_argument("kps: single_pass scan: 256 items per thread load directly (a staged tile "
                                    "that large exceeds team scratch)");
      return f(std::integral_constant<int, 256>{}, std::false_type{});
    default:
      throw std::invalid_argument("kps: single_pass scan: items_per_thread must be 8, 16, 24, 32, 48, 64 or 256, got " +
                                  std::to_string(p.items_per_thread));
  }
}

/// The largest team (in threads: Kokkos threads x lanes) the backend launches Kernel with, given
/// the team scratch a team of `team_size` threads needs (the kernel's registers and that scratch
/// decide it).
template <class Exec, class Kernel>
int single_pass_limit(const Exec& exec, int team_size, int lanes) {
  Kokkos::TeamPolicy<Exec> probe(exec, 1, 1, lanes);
  probe.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(team_size, lanes)));
  return probe.team_size_max(Kernel{}, Kokkos::ParallelForTag()) * lanes;
}

/// The team size (threads) the single pass launches Kernel with for a requested one (0:
/// automatic, the largest multiple of 128 up to the default that fits, whole Kokkos threads);
/// std::invalid_argument for a team size that is not whole Kokkos threads or over the backend's limit.
template <class Exec, class T, class Kernel>
int single_pass_team(const Exec& exec, int team_size, int lanes, bool staged) {
  auto limit = [&](int ts) { return single_pass_limit<Exec, Kernel>(exec, ts, lanes); };
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

/// Whether the backend launches the (exclusive) single pass with this policy for n elements;
/// policies kps refuses are not launchable either.
template <class Exec, class T>
bool single_pass_launchable(const Exec& exec, SinglePassPolicy p, std::size_t n = 0) {
  try {
    p = resolve<Exec, T>(exec, p, n);
    if (p.team_size == 0) return true;  // automatic: lowered to what fits
    if (p.load == TileLoad::cached) {
      single_pass_team<Exec, T, CachedSinglePassKernel<Exec, T, true, false>>(exec, p.team_size, p.lanes, false);
      return true;
    }
    return with_single_pass_kernel(p, [&](auto items, auto stage) {
      using Kernel = SinglePassKernel<Exec, T, decltype(items)::value, true, decltype(stage)::value>;
      single_pass_team<Exec, T, Kernel>(exec, p.team_size, p.lanes, decltype(stage)::value);
      return true;
    });
  } catch (const std::invalid_argument&) {
    return false;
  }
}

/// Elements per tile of the single pass with this policy on exec for n elements (what its launch uses).
template <class Exec, class T>
std::size_t single_pass_tile_elements(const Exec& exec, SinglePassPolicy p, std::size_t n = 0) {
  p = resolve<Exec, T>(exec, p, n);
  if (p.load == TileLoad::cached)
    return std::size_t(single_pass_team<Exec, T, CachedSinglePassKernel<Exec, T, true, false>>(exec, p.team_size,
                                                                                                p.lanes, false)) *
           std::size_t(p.items_per_thread);
  return with_single_pass_kernel(p, [&](auto items, auto stage) {
    using Kernel = SinglePassKernel<Exec, T, decltype(items)::value, true, decltype(stage)::value>;
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

/// The workspace's tile status words for `tiles` tiles. They persist between calls; the epoch
/// tells this call's words apart. Made and zeroed on exec: no other instance, no other host
/// thread's, is involved.
template <class Exec>
void prepare_tile_status(const Exec& exec, Workspace<Exec>& ws, std::size_t tiles) {
  if (ws.status.extent(0) < tiles || ws.epoch + 1 >= (1u << 30)) {
    exec.fence();
    ws.status = {};
    ws.values = {};
    const std::size_t cap = tiles > ws.status.extent(0) ? tiles : ws.status.extent(0);
    ws.status = Kokkos::View<std::uint64_t*, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::status")), cap);
    ws.values = Kokkos::View<std::uint64_t*, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::values")),
        std::size_t(tile_status_words<double>) * cap);  // the pairs of 8-byte types
    ws.epoch = 0;
  }
}

template <class Exec, class T, int Items, bool Exclusive, bool Staged, class Probe>
void launch_single_pass(const Exec& exec, const T* in, T* out, std::size_t n, const SinglePassPolicy& p,
                        Workspace<Exec>& ws, const Probe& probe) {
  using Kernel = SinglePassKernel<Exec, T, Items, Exclusive, Staged, Probe>;
  const int team_size = single_pass_team<Exec, T, Kernel>(exec, p.team_size, p.lanes, Staged);
  const std::size_t tile_elems = std::size_t(team_size) * Items;
  const std::size_t tiles = single_pass_tiles(n, tile_elems);
  prepare_tile_status(exec, ws, tiles);
  if (!single_pass_ids_by_rank<Exec> && !ws.tile_counter.data())
    ws.tile_counter = Kokkos::View<unsigned int, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::tile_counter")));
  Kernel k;
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
  Kokkos::parallel_for(Exclusive ? "kps::single_pass_scan::exclusive" : "kps::single_pass_scan::inclusive", policy, k);
}

/// The single pass on cached tiles (kps/scan/single_pass_cached.hpp): persistent teams, as many as
/// the backend runs at once (its concurrency over the team's threads), at most one per tile.
template <class Exec, class T, bool Exclusive, bool Streaming, class Probe>
void launch_cached_single_pass(const Exec& exec, const T* in, T* out, std::size_t n, const SinglePassPolicy& p,
                               Workspace<Exec>& ws, const Probe& probe) {
  using Kernel = CachedSinglePassKernel<Exec, T, Exclusive, Streaming, Probe>;
  const int team_size = single_pass_team<Exec, T, Kernel>(exec, p.team_size, p.lanes, false);
  const std::size_t tiles = single_pass_tiles(n, std::size_t(team_size) * std::size_t(p.items_per_thread));
  prepare_tile_status(exec, ws, tiles);
  if (!ws.tile_claims.data())
    ws.tile_claims = Kokkos::View<unsigned int, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::tile_claims")));
  std::size_t at_once = std::size_t(exec.concurrency()) / std::size_t(team_size);
  if (at_once < 1) at_once = 1;
  const std::size_t league = tiles < at_once ? tiles : at_once < std::size_t(max_league_size) ? at_once : max_league_size;
  Kernel k;
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
  Kokkos::parallel_for(Exclusive ? "kps::single_pass_scan::cached::exclusive" : "kps::single_pass_scan::cached::inclusive",
                       policy, k);
  // Every team claims each tile it scans and one more that finds none.
  ws.claims += static_cast<unsigned int>(tiles + league);
}

/// Single-pass scan of in[0, n) into out (in may equal out), with the kernel's hooks `probe`
/// (kps/scan/look_back.hpp): NoProbe; a LookBackProbe (the scan study's instrument: exclusive
/// scans only) receives single_pass_probe_words words per tile of
/// single_pass_tile_elements(exec, policy, n) elements; AggregatesOnlyProbe (tests).
template <class Exec, class T, class Probe = NoProbe>
void single_pass_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive, SinglePassPolicy policy,
                      Workspace<Exec>& ws, const Probe& probe = {}) {
  if (n == 0) return;
  policy = resolve<Exec, T>(exec, policy, n);
  if (Probe::exclusive_only && !exclusive)
    throw std::invalid_argument("kps: single_pass scan: the look-back probe is built for exclusive scans only");
  if (policy.load == TileLoad::cached) {
    const auto launch = [&](auto streaming) {
      constexpr bool S = decltype(streaming)::value;
      if (exclusive)
        launch_cached_single_pass<Exec, T, true, S>(exec, in, out, n, policy, ws, probe);
      else if constexpr (!Probe::exclusive_only)
        launch_cached_single_pass<Exec, T, false, S>(exec, in, out, n, policy, ws, probe);
    };
    if (policy.store == TileStore::streaming)
      launch(std::true_type{});
    else
      launch(std::false_type{});
    return;
  }
  with_single_pass_kernel(policy, [&](auto items, auto stage) {
    constexpr int I = decltype(items)::value;
    constexpr bool S = decltype(stage)::value;
    if (exclusive)
      launch_single_pass<Exec, T, I, true, S>(exec, in, out, n, policy, ws, probe);
    else if constexpr (!Probe::exclusive_only)
      launch_single_pass<Exec, T, I, false, S>(exec, in, out, n, policy, ws, probe);
  });
}

}  // namespace kps::impl
