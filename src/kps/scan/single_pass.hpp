// kps/scan/single_pass.hpp — the single-pass scan's per-tile kernel (CUB's AgentScan): each
// team takes its tile id (its league rank or a counter's: kps::impl::single_pass_ids_by_rank),
// loads its tile (kps/scan/tile_io.hpp), scans it under the problem's operator
// (kps/scan/operation.hpp), finds the tile's prefix with the decoupled look-back
// (kps/scan/look_back.hpp) and stores the result. Written
// lane by lane (kps/impl/lanes.hpp): a team is team_size() Kokkos threads of `lanes` vector lanes
// each, a warp of 32 on CUDA; host backends run the same code with their lanes in turn.
// Launched by kps/scan/dispatch.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"
#include "kps/impl/lanes.hpp"
#include "kps/operators.hpp"
#include "kps/scan/look_back.hpp"
#include "kps/scan/operation.hpp"
#include "kps/scan/tile_io.hpp"
#include "kps/scan/tile_status.hpp"

namespace kps::impl {

/// Nothing: a direct-load kernel's staged tile, a staged kernel's registers.
struct Empty {};

/// The tile's scan over its threads' totals under op, by the whole team: a scan over each Kokkos
/// thread's lanes through `thread_totals` in scratch (the vector range ends with a lane barrier),
/// then over the warps' totals (`warp_totals`, one per Kokkos thread). Leaves each lane's
/// exclusive prefix among its Kokkos thread's lanes in thread_prefix[l] and its Kokkos thread's
/// exclusive prefix in the tile in warp_prefix, and returns the tile's aggregate to every thread.
/// Ends after a team barrier, with thread_totals free for the caller. kps::plus scans the lanes
/// with Kokkos' own vector scan; other operators with lane_exclusive_scan (in order).
template <class Exec, class T, class Member, class Op = plus>
KOKKOS_INLINE_FUNCTION T scan_thread_totals(const Member& team, int lanes, const LaneArray<Exec, T>& thread_total,
                                            LaneArray<Exec, T>& thread_prefix, T* thread_totals, T* warp_totals,
                                            T& warp_prefix, const Op& op = {}) {
  const int warp = team.team_rank();
  const int warps = team.team_size();
  if constexpr (is_plus_v<Op, T>) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                         [&](int l) { thread_totals[warp * lanes + l] = thread_total[l]; });
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, lanes), [&](int l, T& update, const bool final) {
      if (final) thread_prefix[l] = update;
      update += thread_totals[warp * lanes + l];
    });
  } else {
    lane_exclusive_scan<Exec>(team, lanes, op, thread_total, thread_prefix, thread_totals + warp * lanes);
  }
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
    if (l == lanes - 1) warp_totals[warp] = op(thread_prefix[l], thread_total[l]);
  });
  team.team_barrier();
  T aggregate = operator_traits<Op, T>::identity(op);
  warp_prefix = operator_traits<Op, T>::identity(op);
  for (int w = 0; w < warps; ++w) {
    if (w == warp) warp_prefix = aggregate;
    aggregate = op(aggregate, warp_totals[w]);
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

/// The single pass's kernel for a tile of team_size x Items elements of the problem P
/// (kps/scan/operation.hpp: its operator, input, output, initial value and look-back).
template <class Exec, class T, int Items, bool Exclusive, bool Staged, class Probe = NoProbe, class P = ScanProblem<T>>
struct SinglePassKernel : OpHolder<typename P::op_type>,
                          InitHolder<typename P::init_type>,
                          ScanFlags<P::run_time_flags> {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Op = typename P::op_type;
  /// Team scratch of the look-back (other operators than kps::plus, the deterministic form).
  static constexpr bool look_back_scratch = look_back_scratch_v<Op, T, P::run_time_flags>;
  typename P::in_type in{};
  typename P::out_type out{};
  std::size_t n = 0;
  TileStatus<Exec, T> tiles{};
  /// 0 at launch, where tiles are not numbered by rank; 32-bit: Kokkos' 64-bit atomic_fetch_add
  /// is a CAS loop on CUDA.
  unsigned int* counter = nullptr;
  int lanes = 1;                    ///< vector lanes per Kokkos thread (the team is team_size x lanes threads)
  LookBackDelay delay{};
  unsigned prefetch_ahead = 0;  ///< tiles ahead whose input is prefetched to L2 (SinglePassPolicy::prefetch_tiles)
  Probe probe{};

  SinglePassKernel() = default;
  SinglePassKernel(const Op& op, const typename P::init_type& init)
      : OpHolder<Op>(op), InitHolder<typename P::init_type>(init) {}

  /// Team scratch: a total per thread, a total per Kokkos thread (warp), the tile's prefix
  /// and, when staged, the tile (16-byte aligned); the look-back's where it has one.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t head_bytes(int threads, int lanes) {
    return (sizeof(T) * (std::size_t(threads) + std::size_t(threads / lanes) + 1) + 15) / 16 * 16;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t tile_bytes(int threads, int lanes) {
    if constexpr (Staged)
      return head_bytes(threads, lanes) + StagedTile<T, Items>::bytes(threads) + 16;
    else
      return head_bytes(threads, lanes);
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes(int threads, int lanes) {
    if constexpr (look_back_scratch)
      return (tile_bytes(threads, lanes) + 15) / 16 * 16 + LookBackScratch<T>::bytes(lanes) + 16;
    else
      return tile_bytes(threads, lanes);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const Op& op = this->scan_op();
    const T e = operator_traits<Op, T>::identity(op);
    const bool exclusive = this->exclusive_or(Exclusive);
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
    [[maybe_unused]] LookBackScratch<T> look_back_space{};
    if constexpr (look_back_scratch)
      look_back_space = LookBackScratch<T>::at(
          reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(scratch) + tile_bytes(threads, lanes) + 15) / 16 * 16),
          lanes);

    const std::size_t tile_elems = std::size_t(threads) * Items;
    const std::size_t tile_first = std::size_t(tile) * tile_elems;
    const std::size_t left = tile_first < n ? n - tile_first : 0;
    const std::size_t tile_valid = left < tile_elems ? left : tile_elems;
    // Thread `rank` of the tile owns elements [first(rank), first(rank) + Items).
    auto first = [&](int rank) { return tile_first + std::size_t(rank) * Items; };
    auto valid = [&](int rank) { return first(rank) < n ? n - first(rank) : std::size_t(0); };

    if constexpr (P::contiguous)
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
    if constexpr (Staged) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                           [&](int l) { staged.read(warp * lanes + l, threads, shifted(in, tile_first), tile_valid, e); });
      team.team_barrier();
      // Each thread scans its run where it lies in scratch, a vector at a time (exclusive within
      // the thread when the scan is exclusive): the items never all sit in registers, so the
      // kernel's registers, hence the teams an SM holds, do not grow with Items, and nothing is
      // held across the look-back.
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                           [&](int l) { thread_total[l] = staged.scan_run(warp * lanes + l, exclusive, op); });
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        ThreadItems<T, Items>& x = items[l];
        x.load(shifted(in, first(warp * lanes + l)), valid(warp * lanes + l), e);
        if constexpr (is_plus_v<Op, T>)
          for (int j = 1; j < Items; ++j) x.v[j] += x.v[j - 1];
        else
          for (int j = 1; j < Items; ++j) x.v[j] = op(x.v[j - 1], x.v[j]);
        thread_total[l] = x.v[Items - 1];
      });
    }
    T warp_prefix = e;
    const T aggregate = scan_thread_totals<Exec>(team, lanes, thread_total, thread_prefix, thread_totals,
                                                 warp_totals, warp_prefix, op);
    probed.totals_known();
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
      thread_prefix[l] = after(op, warp_prefix, thread_prefix[l]);
      // Staged: the thread's prefix in the tile, for the coalesced write (its slot was last read
      // by its own warp's lane scan, before the barrier above).
      if constexpr (Staged) thread_totals[warp * lanes + l] = thread_prefix[l];
    });

    if (warp == 0) {
      const T p = look_back<Exec>(team, lanes, tiles, tile, aggregate, delay, probed, op, this->scan_init(),
                                  look_back_space, this->deterministic());
      Kokkos::single(Kokkos::PerThread(team), [&]() { *tile_prefix_slot = p; });
    }
    team.team_barrier();
    const T tile_prefix = *tile_prefix_slot;
    if constexpr (Staged) {
      // The tile out, coalesced, each element after the tile's prefix and its thread's.
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        staged.write(warp * lanes + l, threads, shifted(out, tile_first), tile_valid, tile_prefix, thread_totals, op);
      });
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        ThreadItems<T, Items>& x = items[l];
        const T offset = [&]() -> T {
          if constexpr (is_plus_v<Op, T>)
            return tile_prefix + thread_prefix[l];
          else
            return op(tile_prefix, thread_prefix[l]);
        }();
        if (exclusive) {
          // exclusive[j] = op(offset, inclusive[j - 1]), done by shifting to stay exact
          if constexpr (is_plus_v<Op, T>)
            for (int j = Items - 1; j > 0; --j) x.v[j] = offset + x.v[j - 1];
          else
            for (int j = Items - 1; j > 0; --j) x.v[j] = op(offset, x.v[j - 1]);
          x.v[0] = offset;
        } else {
          if constexpr (is_plus_v<Op, T>)
            for (int j = 0; j < Items; ++j) x.v[j] += offset;
          else
            for (int j = 0; j < Items; ++j) x.v[j] = op(offset, x.v[j]);
        }
        x.store(shifted(out, first(warp * lanes + l)), valid(warp * lanes + l));
      });
    }
  }
};

}  // namespace kps::impl
