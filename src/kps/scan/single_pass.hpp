// kps/scan/single_pass.hpp — the single-pass scan's per-tile kernel (CUB's AgentScan): each
// team takes its tile id (its league rank or a counter's: kps::impl::single_pass_ids_by_rank),
// loads its tile (kps/scan/tile_io.hpp), scans it, finds the tile's prefix with the decoupled
// look-back (kps/scan/look_back.hpp) and stores the result. Written
// lane by lane (kps/impl/lanes.hpp): a team is team_size() Kokkos threads of `lanes` vector lanes
// each, a warp of 32 on CUDA; host backends run the same code with their lanes in turn.
// Launched by kps/scan/dispatch.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"
#include "kps/impl/lanes.hpp"
#include "kps/scan/look_back.hpp"
#include "kps/scan/tile_io.hpp"
#include "kps/scan/tile_status.hpp"

namespace kps::impl {

/// Nothing: a direct-load kernel's staged tile, a staged kernel's registers.
struct Empty {};

/// The tile's scan over its threads' totals, by the whole team: a scan over each Kokkos thread's
/// lanes through `thread_totals` in scratch (the vector range ends with a lane barrier), then over
/// the warps' totals (`warp_totals`, one per Kokkos thread). Leaves each lane's exclusive prefix
/// among its Kokkos thread's lanes in thread_prefix[l] and its Kokkos thread's exclusive prefix in
/// the tile in warp_prefix, and returns the tile's aggregate to every thread. Ends after a team
/// barrier, with thread_totals free for the caller.
template <class Exec, class T, class Member>
KOKKOS_INLINE_FUNCTION T scan_thread_totals(const Member& team, int lanes, const LaneArray<Exec, T>& thread_total,
                                            LaneArray<Exec, T>& thread_prefix, T* thread_totals, T* warp_totals,
                                            T& warp_prefix) {
  const int warp = team.team_rank();
  const int warps = team.team_size();
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                       [&](int l) { thread_totals[warp * lanes + l] = thread_total[l]; });
  Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, lanes), [&](int l, T& update, const bool final) {
    if (final) thread_prefix[l] = update;
    update += thread_totals[warp * lanes + l];
  });
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
    if (l == lanes - 1) warp_totals[warp] = thread_prefix[l] + thread_total[l];
  });
  team.team_barrier();
  T aggregate = T(0);
  warp_prefix = T(0);
  for (int w = 0; w < warps; ++w) {
    if (w == warp) warp_prefix = aggregate;
    aggregate += warp_totals[w];
  }
  return aggregate;
}

/// Whether the single pass numbers its tiles by league rank on Exec, and needs no tile counter: the
/// look-back waits only on lower tile ids, so a tile's id must come after those of tiles already
/// started. Where teams start in league order (kps/impl/backend.hpp: BackendTeamOrder) the rank is
/// such an id and costs nothing; elsewhere an atomic counter hands ids out in start order, one L2
/// round trip and a team broadcast before the tile's loads can begin (on the H100 that was 3-10 %
/// of a call at 2^21..2^24 elements: results/h100-cuda/experiments/scan-tile-ids-by-rank).
template <class Exec>
inline constexpr bool single_pass_ids_by_rank = BackendTeamOrder<Exec>::in_league_order;

/// Calls f(std::integral_constant<int, J>) for J = First .. Last - 1 in turn.
template <int First, int Last, class F>
KOKKOS_INLINE_FUNCTION void static_for(F&& f) {
  if constexpr (First < Last) {
    f(std::integral_constant<int, First>{});
    static_for<First + 1, Last>(f);
  }
}

/// The register part of a staged tile (SinglePassPolicy::items_in_registers): Extra elements per
/// thread after the staged part, as 16-byte vectors in registers, thread t holding the part's
/// vectors t, t + threads, ... (coalesced, as the staged part's loads and stores), each with its
/// exclusive prefix in the part (the staged part's aggregate included) once the team has scanned
/// the part's rows.
template <class T, int Extra>
struct RegisterPart {
  static constexpr int per_vector = 16 / sizeof(T);
  static constexpr int vectors = Extra / per_vector;
  static_assert(Extra % per_vector == 0 && vectors >= 1, "kps: a register part holds whole 16-byte vectors per thread");
  using Vector = typename ThreadItems<T, per_vector>::Vector;
  Vector v[vectors];
  T prefix[vectors];

  /// Reads the part's vectors of thread `rank` of `ts` from src[0, valid); zeros past valid.
  KOKKOS_INLINE_FUNCTION void read(int rank, int ts, const T* src, std::size_t valid) {
    const bool whole = valid == std::size_t(ts) * Extra && reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
    for (int j = 0; j < vectors; ++j) {
      const std::size_t at = std::size_t(j) * ts + rank;
      if (whole) {
        v[j] = reinterpret_cast<const Vector*>(src)[at];
      } else {
        for (int k = 0; k < per_vector; ++k) {
          const std::size_t e = at * per_vector + k;
          v[j].v[k] = e < valid ? src[e] : T(0);
        }
      }
    }
  }
  KOKKOS_INLINE_FUNCTION T sum(int j) const {
    T s = T(0);
    for (int k = 0; k < per_vector; ++k) s += v[j].v[k];
    return s;
  }
  /// Writes the part's vectors of thread `rank` to dst[0, valid): each element's exclusive or
  /// inclusive sum in the vector plus its prefix and `base`.
  KOKKOS_INLINE_FUNCTION void write(int rank, int ts, T* dst, std::size_t valid, T base, bool exclusive) const {
    const bool whole = valid == std::size_t(ts) * Extra && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0;
    for (int j = 0; j < vectors; ++j) {
      const std::size_t at = std::size_t(j) * ts + rank;
      Vector w;
      T acc = base + prefix[j];
      for (int k = 0; k < per_vector; ++k) {
        const T x = v[j].v[k];
        if (exclusive) {
          w.v[k] = acc;
          acc += x;
        } else {
          acc += x;
          w.v[k] = acc;
        }
      }
      if (whole) {
        reinterpret_cast<Vector*>(dst)[at] = w;
      } else {
        for (int k = 0; k < per_vector; ++k) {
          const std::size_t e = at * per_vector + k;
          if (e < valid) dst[e] = w.v[k];
        }
      }
    }
  }
};

/// Extra: with staged tiles, elements per thread held in registers after the tile's staged part
/// (RegisterPart, SinglePassPolicy::items_in_registers): a tile is then threads x Items elements
/// through scratch followed by threads x Extra elements in registers, so that a tile holds more
/// than scratch alone allows at the same teams per SM.
template <class Exec, class T, int Items, bool Exclusive, bool Staged, class Probe = NoProbe, int Extra = 0>
struct SinglePassKernel {
  static_assert(Extra == 0 || Staged, "kps: register items extend staged tiles only");
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  const T* in = nullptr;
  T* out = nullptr;
  std::size_t n = 0;
  TileStatus<Exec, T> tiles{};
  /// 0 at launch, where tiles are not numbered by rank; 32-bit: Kokkos' 64-bit atomic_fetch_add
  /// is a CAS loop on CUDA.
  unsigned int* counter = nullptr;
  int lanes = 1;                    ///< vector lanes per Kokkos thread (the team is team_size x lanes threads)
  LookBackDelay delay{};
  unsigned prefetch_ahead = 0;  ///< tiles ahead whose input is prefetched to L2 (SinglePassPolicy::prefetch_tiles)
  Probe probe{};

  /// Team scratch: a total per thread, a total per Kokkos thread (warp), the tile's prefix
  /// and, when staged, the tile (16-byte aligned).
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t head_bytes(int threads, int lanes) {
    return (sizeof(T) * (std::size_t(threads) + std::size_t(threads / lanes) + 1) + 15) / 16 * 16;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes(int threads, int lanes) {
    if constexpr (Staged)
      return head_bytes(threads, lanes) + StagedTile<T, Items>::bytes(threads) + 16;
    else
      return head_bytes(threads, lanes);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    auto probed = probe.start();
    // Tile ids in the order teams start, so every predecessor of a tile is already running:
    // the look-back never waits on a team that has not been scheduled.
    long tile = 0;
    if constexpr (single_pass_ids_by_rank<Exec>)
      tile = team.league_rank();
    else
      Kokkos::single(
          Kokkos::PerTeam(team), [&](long& id) { id = long(Kokkos::atomic_fetch_add(counter, 1u)); }, tile);
    probed.tile_known();

    const int warp = team.team_rank();
    const int warps = team.team_size();
    const int threads = warps * lanes;
    char* const scratch = static_cast<char*>(team.team_scratch(0).get_shmem(scratch_bytes(threads, lanes)));
    T* const thread_totals = reinterpret_cast<T*>(scratch);
    T* const warp_totals = thread_totals + threads;
    T* const tile_prefix_slot = warp_totals + warps;
    const std::uintptr_t staged_at =
        (reinterpret_cast<std::uintptr_t>(scratch) + head_bytes(threads, lanes) + 15) / 16 * 16;
    [[maybe_unused]] const StagedTile<T, Items> staged{reinterpret_cast<T*>(staged_at)};

    const std::size_t tile_elems = std::size_t(threads) * (Items + Extra);
    const std::size_t tile_first = std::size_t(tile) * tile_elems;
    const std::size_t left = tile_first < n ? n - tile_first : 0;
    const std::size_t tile_valid = left < tile_elems ? left : tile_elems;
    // Of it, the staged part's (the whole tile without register items).
    const std::size_t staged_elems = std::size_t(threads) * Items;
    [[maybe_unused]] const std::size_t staged_valid = tile_valid < staged_elems ? tile_valid : staged_elems;
    // Thread `rank` of the tile owns elements [first(rank), first(rank) + Items).
    auto first = [&](int rank) { return tile_first + std::size_t(rank) * Items; };
    auto valid = [&](int rank) { return first(rank) < n ? n - first(rank) : std::size_t(0); };

    if (prefetch_ahead > 0 && warp == 0) {
      // The tile a later team takes: its loads then find the data in L2.
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        const std::size_t ahead = tile_first + std::size_t(prefetch_ahead) * tile_elems;
        if (ahead < n) BackendPrefetch<Exec>::l2(in + ahead, sizeof(T) * (n - ahead < tile_elems ? n - ahead : tile_elems));
      });
    }

    // Each thread's total, its exclusive prefix among its Kokkos thread's lanes, then in the tile.
    LaneArray<Exec, std::conditional_t<Staged, Empty, ThreadItems<T, Items>>> items;
    LaneArray<Exec, T> thread_total, thread_prefix;
    // The register part (Extra > 0): Extra elements per thread after the staged part, read
    // coalesced (thread t on the part's vectors t, t + threads, ...) and first, so that they are
    // in flight with the staged loads.
    [[maybe_unused]] const std::size_t extra_valid = tile_valid - staged_valid;
    [[maybe_unused]] LaneArray<Exec, RegisterPart<T, Extra == 0 ? 16 / sizeof(T) : Extra>> extra;
    if constexpr (Extra > 0)
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        extra[l].read(warp * lanes + l, threads, in + tile_first + staged_elems, extra_valid);
      });
    if constexpr (Staged) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                           [&](int l) { staged.read(warp * lanes + l, threads, in + tile_first, staged_valid); });
      team.team_barrier();
      // Each thread scans its run where it lies in scratch, a vector at a time (exclusive within
      // the thread when the scan is exclusive): the items never all sit in registers, so the
      // kernel's registers, hence the teams an SM holds, do not grow with Items, and nothing is
      // held across the look-back.
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                           [&](int l) { thread_total[l] = staged.scan_run(warp * lanes + l, Exclusive); });
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        ThreadItems<T, Items>& x = items[l];
        x.load(in + first(warp * lanes + l), valid(warp * lanes + l));
        for (int j = 1; j < Items; ++j) x.v[j] += x.v[j - 1];
        thread_total[l] = x.v[Items - 1];
      });
    }
    T warp_prefix = T(0);
    T aggregate = scan_thread_totals<Exec>(team, lanes, thread_total, thread_prefix, thread_totals,
                                           warp_totals, warp_prefix);
    // The register part's scan: for each of its vector rows j (vectors j x threads + t), a scan
    // of the threads' vector sums across the team, after the staged part and the rows before.
    if constexpr (Extra > 0) {
      T running = aggregate;
      // Row by row, unrolled (each row's index a constant: the part stays in registers).
      static_for<0, RegisterPart<T, Extra>::vectors>([&](auto row) {
        constexpr int j = decltype(row)::value;
        LaneArray<Exec, T> row_sum, row_prefix;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) { row_sum[l] = extra[l].sum(j); });
        team.team_barrier();  // every thread has read warp_totals (scan_thread_totals) before they are reused
        T row_warp_prefix = T(0);
        const T row_total = scan_thread_totals<Exec>(team, lanes, row_sum, row_prefix, thread_totals, warp_totals,
                                                     row_warp_prefix);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                             [&](int l) { extra[l].prefix[j] = running + row_warp_prefix + row_prefix[l]; });
        running += row_total;
      });
      aggregate = running;
    }
    probed.totals_known();
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
      thread_prefix[l] += warp_prefix;
      // Staged: the thread's prefix in the tile, for the coalesced write (its slot was last read
      // by its own warp's lane scan, before the barrier above).
      if constexpr (Staged) thread_totals[warp * lanes + l] = thread_prefix[l];
    });

    if (warp == 0) {
      const T p = look_back<Exec>(team, lanes, tiles, tile, aggregate, delay, probed);
      Kokkos::single(Kokkos::PerThread(team), [&]() { *tile_prefix_slot = p; });
    }
    team.team_barrier();
    const T tile_prefix = *tile_prefix_slot;
    if constexpr (Staged) {
      // The tile out, coalesced, each element plus the tile's prefix and its thread's.
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        staged.write(warp * lanes + l, threads, out + tile_first, staged_valid, tile_prefix, thread_totals);
      });
      if constexpr (Extra > 0)
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
          extra[l].write(warp * lanes + l, threads, out + tile_first + staged_elems, extra_valid, tile_prefix, Exclusive);
        });
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        ThreadItems<T, Items>& x = items[l];
        const T offset = tile_prefix + thread_prefix[l];
        if constexpr (Exclusive) {
          // exclusive[j] = offset + inclusive[j] - input[j], done by shifting to stay exact
          for (int j = Items - 1; j > 0; --j) x.v[j] = offset + x.v[j - 1];
          x.v[0] = offset;
        } else {
          for (int j = 0; j < Items; ++j) x.v[j] += offset;
        }
        x.store(out + first(warp * lanes + l), valid(warp * lanes + l));
      });
    }
  }
};

}  // namespace kps::impl
