// kps/scan/single_pass_cached.hpp — the single pass on cached tiles (TileLoad::cached): the same
// decoupled look-back as kps/scan/single_pass.hpp, with tiles sized for a core's cache instead of
// a team's registers. Each thread of a team owns `items` consecutive elements of the tile (tens of
// thousands on a CPU): it adds them up as it reads them (into its cache), the team's totals give
// the tile's aggregate, the look-back its prefix, and each thread scans its elements again, now
// from cache, and writes them out (as streaming stores where the policy asks and the backend has
// them: kps/impl/backend.hpp, BackendStore). Memory sees one read and one write per element, the
// traffic of a copy; a two-pass scan (Kokkos' on host backends) reads the input twice.
//
// Teams are persistent: as many as run at once, each taking tiles from a counter until none is
// left, so a host backend makes one dispatch per call whatever the tile count, and tiles are taken
// in the order threads reach them (a thread's tiles are not fixed in advance: a slow or
// descheduled thread delays only its own). A tile waits only on tiles taken before it, by teams
// that are running, so every wait ends on any backend and at any thread count. The counter is never
// reset: each call's ids count from the claims of the calls before it (every team's last claim
// finds no tile, so a call claims exactly tiles + league ids), and no launch is spent zeroing it.
//
// A one-thread team whose predecessor's inclusive prefix is already published when it takes its
// tile (tile 0; every tile on one thread) skips the first pass: one read, one write, as a plain
// loop. A one-lane thread's look-back does not wait for a predecessor that stays unpublished: it
// adds that tile up itself (look_back_or_add), so a descheduled thread delays no one. Launched by
// kps/scan/dispatch.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"
#include "kps/impl/lanes.hpp"
#include "kps/scan/look_back.hpp"
#include "kps/scan/single_pass.hpp"
#include "kps/scan/tile_status.hpp"

namespace kps::impl {

/// Independent partial sums of the first pass: enough adds in flight to cover a floating-point
/// add's latency (4 cycles, two per cycle on current CPUs), so the pass runs at the memory's pace.
inline constexpr int cached_sum_accumulators = 8;

/// in[0, count) added up (the first pass of a cached tile).
template <class T>
KOKKOS_INLINE_FUNCTION T cached_sum(const T* in, std::size_t count) {
  constexpr int A = cached_sum_accumulators;
  T s[A] = {};
  std::size_t i = 0;
  for (; i + A <= count; i += A)
    for (int k = 0; k < A; ++k) s[k] += in[i + k];
  for (; i < count; ++i) s[0] += in[i];
  T total = T(0);
  for (int k = 0; k < A; ++k) total += s[k];
  return total;
}

/// Elements of a block of cached_scan: the adds of one block's own scan do not wait on the running
/// total, so eight blocks' worth run while one add of it completes.
inline constexpr std::size_t cached_scan_block = 8;

/// out[0, count) = the scan of in[0, count) after `offset` (the second pass, or the only one);
/// returns offset plus their sum. Blocks of cached_scan_block elements are scanned among
/// themselves, and the range's running total is kept apart from `offset`, added once per element:
/// one dependent add per block, not per element. Floating point: a 4-cycle add would otherwise set
/// the thread's pace, and small elements are not lost against a large prefix (a float prefix of
/// 2^28 has an ulp of 16: added one by one, elements below 8 would vanish, and the range's sum with
/// them). Integers (the same sums, in another order): the one-element loop's pace was its code's
/// place in the program, not its adds: on the H200 node's Xeon the same four instructions ran one
/// element per cycle or one per two, from build to build (kps' copy and the one-thread loop's in
/// turn, results/h200-node-serial/experiments/scan-loop-placement); a block's eight independent
/// adds and one loop branch per eight elements are to leave the pace to the loads and stores.
/// Streaming: each element through BackendStore, drained at the end. `in` may equal `out`: an
/// element is read before it is written. cached_scan runs the backend's vector form of the
/// range's scan instead where it has one for T (BackendRangeScan: float on x86 hosts).
template <class Exec, bool Exclusive, bool Streaming, class T>
KOKKOS_INLINE_FUNCTION T cached_scan_elements(const T* in, T* out, std::size_t count, T offset) {
  const auto put = [out](std::size_t j, T v) {
    if constexpr (Streaming)
      BackendStore<Exec>::element(out + j, v);
    else
      out[j] = v;
  };
  constexpr std::size_t B = cached_scan_block;
  std::size_t i = 0;
  T acc = T(0);  // the range's own running total
  for (; i + B <= count; i += B) {
    T local[B];
    T run = T(0);
    for (std::size_t k = 0; k < B; ++k) {
      const T x = in[i + k];
      local[k] = Exclusive ? run : T(run + x);
      run += x;
    }
    for (std::size_t k = 0; k < B; ++k) put(i + k, T(offset + T(acc + local[k])));
    acc += run;
  }
  for (; i < count; ++i) {
    const T x = in[i];
    put(i, T(offset + (Exclusive ? acc : T(acc + x))));
    acc += x;
  }
  if constexpr (Streaming) BackendStore<Exec>::drain();
  return T(offset + acc);
}

template <class Exec, bool Exclusive, bool Streaming, class T>
KOKKOS_INLINE_FUNCTION T cached_scan(const T* in, T* out, std::size_t count, T offset) {
  if constexpr (BackendRangeScan<Exec>::template vector<T>)
    return BackendRangeScan<Exec>::template scan<Exclusive, Streaming>(in, out, count, offset);
  else
    return cached_scan_elements<Exec, Exclusive, Streaming>(in, out, count, offset);
}

template <class Exec, class T, bool Exclusive, bool Streaming, class Probe = NoProbe>
struct CachedSinglePassKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  const T* in = nullptr;
  T* out = nullptr;
  std::size_t n = 0;
  std::size_t items = 0;  ///< elements per thread; a tile is team_size x lanes x items
  long tiles_total = 0;
  TileStatus<Exec, T> tiles{};
  /// Tile claims, never reset: this call's tile id is a claim less `first_claim` (mod 2^32).
  unsigned int* claims = nullptr;
  unsigned int first_claim = 0;
  int lanes = 1;
  LookBackDelay delay{};
  Probe probe{};

  /// Team scratch: a total per thread, a total per Kokkos thread and the tile's prefix.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes(int threads, int lanes) {
    return (sizeof(T) * (std::size_t(threads) + std::size_t(threads / lanes) + 1) + 15) / 16 * 16;
  }

  /// The look-back of a team of one-lane threads (a CPU's): the predecessors' status words one at
  /// a time, nearest first, as kps/scan/look_back.hpp walks them, except that a predecessor still
  /// unpublished after spin_rounds polls is added up here from its input instead of waited for
  /// (its thread may be descheduled: more threads than cores, or a core shared with another
  /// process, where waiting for it costs a scheduler's time slice per tile). In place its input
  /// may already be partly its output: there the walk waits, yielding its core between polls. Publishes the tile's
  /// aggregate first and its inclusive prefix last; returns its exclusive prefix.
  template <class ProbeTile>
  KOKKOS_INLINE_FUNCTION T look_back_or_add(long tile, T aggregate, std::size_t tile_elems, ProbeTile& probed) const {
    if (tile == 0) {
      tiles.publish(0, tile_inclusive, aggregate);
      probed.done(0, 0);
      return T(0);
    }
    tiles.publish(tile, tile_aggregate, aggregate);
    probed.aggregate_published();
    T prefix = T(0);
    long j = tile - 1;
    for (; j >= 0; --j) {
      T v = T(0);
      probed.window_started();
      std::uint32_t kind = tiles.read(j, v);
      // In place, a late tile's input may be half overwritten by its own scan: wait for it then.
      for (unsigned round = 0; kind == 0 && (round < spin_rounds || in == out); ++round) {
        probed.waited();
        BackendWait<Exec>::pause(round);
        kind = tiles.read(j, v);
      }
      probed.window_complete();
      if (kind == 0) {  // late: its sum, from its input
        const std::size_t first = std::size_t(j) * tile_elems;
        v = cached_sum(in + first, n - first < tile_elems ? n - first : tile_elems);
      }
      prefix = v + prefix;
      if (kind == tile_inclusive) break;
    }
    tiles.publish(tile, tile_inclusive, prefix + aggregate);
    probed.done(tile, tile - (j < 0 ? 0 : j));
    return prefix;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int warp = team.team_rank();
    const int warps = team.team_size();
    const int threads = warps * lanes;
    T* const thread_totals = static_cast<T*>(team.team_scratch(0).get_shmem(scratch_bytes(threads, lanes)));
    T* const warp_totals = thread_totals + threads;
    T* const tile_prefix_slot = warp_totals + warps;
    const std::size_t tile_elems = std::size_t(threads) * items;
    for (;;) {
      long tile = 0;
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](long& id) { id = long(Kokkos::atomic_fetch_add(claims, 1u) - first_claim); }, tile);
      if (tile >= tiles_total) return;
      auto probed = probe.start();
      probed.tile_known();
      const std::size_t tile_first = std::size_t(tile) * tile_elems;
      // Thread `rank` of the tile owns elements [first(rank), first(rank) + count(rank)).
      auto first = [&](int rank) { return tile_first + std::size_t(rank) * items; };
      auto count = [&](int rank) {
        const std::size_t f = first(rank);
        return f >= n ? std::size_t(0) : n - f < items ? n - f : items;
      };

      if (threads == 1 && Probe::Tile::publish_inclusive) {
        // The prefix may be known already: then one pass, and the tile publishes its inclusive prefix.
        T prefix = T(0);
        const bool known = tile == 0 || tiles.read(tile - 1, prefix) == tile_inclusive;
        if (known) {
          const T inclusive = cached_scan<Exec, Exclusive, Streaming>(in + tile_first, out + tile_first, count(0), prefix);
          probed.aggregate_published();
          tiles.publish(tile, tile_inclusive, inclusive);
          probed.done(tile, tile == 0 ? 0 : 1);
          continue;
        }
      }

      LaneArray<Exec, T> thread_total, thread_prefix;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        const int rank = warp * lanes + l;
        thread_total[l] = cached_sum(in + first(rank), count(rank));
      });
      T warp_prefix = T(0);
      const T aggregate = scan_thread_totals<Exec>(team, lanes, thread_total, thread_prefix, thread_totals,
                                                   warp_totals, warp_prefix);
      probed.totals_known();
      if (warp == 0) {
        const T p = lanes == 1 && Probe::Tile::publish_inclusive ? look_back_or_add(tile, aggregate, tile_elems, probed)
                                                                  : look_back<Exec>(team, lanes, tiles, tile, aggregate,
                                                                                    delay, probed);
        Kokkos::single(Kokkos::PerThread(team), [&]() { *tile_prefix_slot = p; });
      }
      team.team_barrier();
      const T tile_prefix = *tile_prefix_slot;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        const int rank = warp * lanes + l;
        cached_scan<Exec, Exclusive, Streaming>(in + first(rank), out + first(rank), count(rank),
                                                T(tile_prefix + warp_prefix + thread_prefix[l]));
      });
      // Every thread has read the tile's prefix and the warps' totals before the next tile writes them.
      team.team_barrier();
    }
  }
};

}  // namespace kps::impl
