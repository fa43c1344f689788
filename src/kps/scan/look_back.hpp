// kps/scan/look_back.hpp — the decoupled look-back of the single-pass scan (CUB's
// TilePrefixCallbackOp): a tile's exclusive prefix found from its predecessors' published status,
// by the vector lanes of one Kokkos thread (a warp on GPUs) while the rest of the team waits.
// Also the scan's measurement hooks, a type parameter of the kernel: NoProbe compiles to nothing,
// LookBackProbe records per tile what the scan study's look-back benchmark reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"
#include "kps/impl/lanes.hpp"
#include "kps/operators.hpp"
#include "kps/scan/operation.hpp"
#include "kps/scan/tile_status.hpp"

namespace kps::impl {

/// Sleeps of the look-back where the backend can sleep (CUB's delay constructor), nanoseconds.
struct LookBackDelay {
  unsigned first_ns = 0;  ///< after publishing the aggregate, before the first read
  unsigned poll_ns = 0;   ///< before reading again predecessors not yet published
};

/// Words per tile a LookBackProbe writes.
inline constexpr int single_pass_probe_words = 8;

/// Hooks of a scan without measurement: every call is empty.
struct NoProbe {
  static constexpr bool exclusive_only = false;
  struct Tile {
    static constexpr bool publish_inclusive = true;
    KOKKOS_INLINE_FUNCTION void tile_known() {}
    KOKKOS_INLINE_FUNCTION void totals_known() {}
    KOKKOS_INLINE_FUNCTION void aggregate_published() {}
    KOKKOS_INLINE_FUNCTION void window_started() {}
    KOKKOS_INLINE_FUNCTION void window_complete() {}
    KOKKOS_INLINE_FUNCTION void waited() {}
    KOKKOS_INLINE_FUNCTION void done(long /*tile*/, long /*depth*/) const {}
  };
  KOKKOS_INLINE_FUNCTION Tile start() const { return {}; }
};

/// The scan study's instrument: single_pass_probe_words words per tile, written by the tile's
/// team (BackendClock ticks: cycles on GPUs, ns on host backends):
///  0 depth reached (tile - the predecessor whose inclusive prefix ended the walk; 0: tile 0)
///  1 rounds spent waiting for unpublished predecessors
///  2 ticks from the tile's start to its aggregate's publication
///  3 ticks from there to its inclusive prefix's publication (the look-back)
///  4 ticks from the start to the tile id (the counter's atomic; ~0 where tiles are numbered by rank)
///  5 ticks from the tile id to the team's totals (loads, thread scans, lane scans, a barrier)
///  6 ticks of the first window read (issued to known by all lanes)
///  7 windows read
template <class Exec>
struct LookBackProbe {
  static constexpr bool exclusive_only = true;
  std::uint64_t* words;
  struct Tile {
    static constexpr bool publish_inclusive = true;
    std::uint64_t* words;
    long long started, id_known = 0, totals = 0, published = 0, first_read_started = 0, first_read = 0;
    std::uint64_t waits = 0, windows = 0;
    KOKKOS_INLINE_FUNCTION static long long now() { return BackendClock<Exec>::now(); }
    KOKKOS_INLINE_FUNCTION void tile_known() { id_known = now(); }
    KOKKOS_INLINE_FUNCTION void totals_known() { totals = now(); }
    KOKKOS_INLINE_FUNCTION void aggregate_published() { published = now(); }
    KOKKOS_INLINE_FUNCTION void window_started() {
      if (windows++ == 0) first_read_started = now();
    }
    KOKKOS_INLINE_FUNCTION void window_complete() {
      if (windows == 1 && first_read == 0) first_read = now() - first_read_started;
    }
    KOKKOS_INLINE_FUNCTION void waited() { ++waits; }
    KOKKOS_INLINE_FUNCTION void done(long tile, long depth) const {
      const long long end = now();
      const long long pub = tile == 0 ? end : published;
      std::uint64_t* w = words + single_pass_probe_words * tile;
      w[0] = std::uint64_t(depth);
      w[1] = waits;
      w[2] = std::uint64_t(pub - started);
      w[3] = std::uint64_t(end - pub);
      w[4] = std::uint64_t(id_known - started);
      w[5] = std::uint64_t(totals - id_known);
      w[6] = std::uint64_t(first_read);
      w[7] = windows;
    }
  };
  KOKKOS_INLINE_FUNCTION Tile start() const { return Tile{words, BackendClock<Exec>::now()}; }
};

/// A test instrument: tiles publish their aggregates only (tile 0 its inclusive prefix), so that
/// every tile's look-back walks back to tile 0 through windows of aggregates, waiting on
/// unpublished ones: the multi-window path that a backend whose predecessors finish early (a
/// CPU) rarely takes otherwise. Same results, O(tiles^2) status reads.
struct AggregatesOnlyProbe {
  static constexpr bool exclusive_only = false;
  struct Tile : NoProbe::Tile {
    static constexpr bool publish_inclusive = false;
  };
  KOKKOS_INLINE_FUNCTION Tile start() const { return {}; }
};

/// Team scratch the look-back of an operator other than kps::plus needs: `lanes` values and kinds
/// of the calling Kokkos thread's own (the ordered lane reductions, the deterministic fold);
/// empty for sums.
template <class T>
struct LookBackScratch {
  T* values = nullptr;
  std::uint32_t* kinds = nullptr;
  /// Bytes for `lanes` lanes (16-byte aligned).
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(int lanes) {
    return (sizeof(T) * std::size_t(lanes) + 15) / 16 * 16 + (sizeof(std::uint32_t) * std::size_t(lanes) + 15) / 16 * 16;
  }
  KOKKOS_INLINE_FUNCTION static LookBackScratch at(char* p, int lanes) {
    return {reinterpret_cast<T*>(p), reinterpret_cast<std::uint32_t*>(p + (sizeof(T) * std::size_t(lanes) + 15) / 16 * 16)};
  }
};

/// Whether the look-back of Op on T needs LookBackScratch: every operator but kps::plus, and any
/// problem whose flags are decided at run time (it may be deterministic; kps/scan/operation.hpp).
template <class Op, class T, bool RunTimeFlags>
inline constexpr bool look_back_scratch_v = RunTimeFlags || !is_plus_v<Op, T>;

/// The deterministic look-back's second pass: from `base`, the nearest predecessor whose inclusive
/// prefix was published, to the tile before `tile`, in windows of `lanes` entries read at once,
/// folded left to right by one lane (an inclusive prefix met on the way replaces the fold):
/// op(...op(op(C_base, a_base+1), a_base+2)..., a_tile-1), the same bits whichever predecessor
/// the first pass stopped at, since every published inclusive prefix is such a fold itself.
template <class Exec, class T, class Member, class Op>
KOKKOS_INLINE_FUNCTION T fold_forward(const Member& team, int lanes, const TileStatus<Exec, T>& tiles, long base, long tile,
                                      const Op& op, const LookBackScratch<T>& scratch) {
  T acc = operator_traits<Op, T>::identity(op);
  LaneArray<Exec, T> value;
  LaneArray<Exec, std::uint32_t> kind;
  for (long first = base; first < tile; first += lanes) {
    const int count = tile - first < long(lanes) ? int(tile - first) : lanes;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
      kind[l] = 0;
      if (l < count)
        while (kind[l] == 0) kind[l] = tiles.read(first + l, value[l]);  // published: a torn read again
      if constexpr (LaneArray<Exec, T>::simt) {
        scratch.values[l] = value[l];
        scratch.kinds[l] = kind[l];
      }
    });
    Kokkos::single(
        Kokkos::PerThread(team),
        [&](T& a) {
          for (int l = 0; l < count; ++l) {
            const T v = LaneArray<Exec, T>::simt ? scratch.values[l] : value[l];
            const std::uint32_t k = LaneArray<Exec, T>::simt ? scratch.kinds[l] : kind[l];
            a = k == tile_inclusive ? v : op(a, v);
          }
        },
        acc);
  }
  return acc;
}

/// The exclusive prefix of `tile` (the reduction under op of every tile before it, after the
/// initial value), by the `lanes` vector lanes of the calling Kokkos thread, written lane by lane
/// (kps/impl/lanes.hpp).
///
/// The tile's aggregate is published first. Each round, lane l reads predecessor base - l (a
/// window of `lanes` status words, nearest first), the lanes wait until all of the window up to
/// its nearest inclusive prefix is published, a Min reduction finds that nearest inclusive
/// prefix and a reduction adds the entries up to it (in sequence order: the window's highest lane
/// first, kps/impl/lanes.hpp: lane_reduce_reversed, for an operator not known to be
/// commutative); a window without one adds all its aggregates and the next window follows. Every
/// entry waited for belongs to a running team (tile ids follow the order teams start:
/// kps::impl::single_pass_ids_by_rank) that publishes its aggregate before it looks back itself,
/// so every wait ends; tile 0 is always inclusive, so the walk ends. The reductions are
/// vector-lane reductions (warp shuffles on GPUs): no team barrier inside the walk. CUB reads 32
/// words with one warp the same way; a window of team_size words evaluated by team reductions
/// cost as much as the rest of the scan on the H100
/// (results/h100-cuda/experiments/scan-look-back-team-window).
///
/// Deterministic: the walk only finds the nearest inclusive prefix and waits for the entries after
/// it; fold_forward then reduces them left to right, so that the prefix's bits do not depend on
/// how far back the walk went (floating point: the same input on the same tiles gives the same
/// output, run to run).
///
/// `deterministic`: std::false_type (today's sums: the form above, compiled alone) or a flag.
template <class Exec, class T, class Member, class ProbeTile, class Op = plus, class Init = NoInit,
          class Det = std::false_type>
KOKKOS_INLINE_FUNCTION T look_back(const Member& team, int lanes, const TileStatus<Exec, T>& tiles, long tile, T aggregate,
                                   const LookBackDelay& delay, ProbeTile& probe, const Op& op = {}, const Init& init = {},
                                   const LookBackScratch<T>& scratch = {}, const Det& deterministic = {}) {
  constexpr bool may_be_deterministic = !std::is_same_v<Det, std::false_type>;
  if (tile == 0) {
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      tiles.publish(0, tile_inclusive, with_init(op, init, aggregate));
      probe.done(0, 0);
    });
    return first_prefix<T>(op, init);
  }
  Kokkos::single(Kokkos::PerThread(team), [&]() { tiles.publish(tile, tile_aggregate, aggregate); });
  probe.aggregate_published();
  BackendWait<Exec>::sleep(delay.first_ns);  // let the nearest predecessors publish before the first read
  LaneArray<Exec, T> value;
  LaneArray<Exec, std::uint32_t> kind;
  T prefix = operator_traits<Op, T>::identity(op);
  long base = tile - 1;  // nearest predecessor not added yet
  unsigned waits = 0;    // polls that found an entry still unpublished
  for (;;) {
    probe.window_started();
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
      value[l] = operator_traits<Op, T>::identity(op);
      kind[l] = tile_inclusive;  // before tile 0: never added (tile 0 is inclusive)
      if (base - l >= 0) kind[l] = tiles.read(base - l, value[l]);
    });
    int nearest = lanes;  // the lane of the nearest inclusive prefix; lanes: none in this window
    for (;;) {  // until every entry before the nearest inclusive prefix is published
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int l, int& m) {
            const int mine = kind[l] == tile_inclusive ? l : lanes;
            if (mine < m) m = mine;
          },
          Kokkos::Min<int>(nearest));
      int missing = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int l, int& m) { m += kind[l] == 0 && l < nearest ? 1 : 0; }, missing);
      probe.window_complete();
      if (missing == 0) break;
      probe.waited();
      BackendWait<Exec>::pause(waits++);
      BackendWait<Exec>::sleep(delay.poll_ns);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        if (kind[l] == 0 && l < nearest) kind[l] = tiles.read(base - l, value[l]);
      });
    }
    if constexpr (is_plus_v<Op, T> && !may_be_deterministic) {
      T sum = T(0);
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes), [&](int l, T& acc) { acc += l <= nearest ? value[l] : T(0); }, sum);
      prefix = sum + prefix;
    } else {
      if (!flag_on(deterministic)) {
        const T sum = lane_reduce_reversed<Exec, T>(team, lanes, op, nearest < lanes ? nearest + 1 : lanes,
                                                    scratch.values, [&](int l) { return value[l]; });
        prefix = op(sum, prefix);
      }
    }
    if (nearest < lanes) {
      base -= nearest;
      break;
    }
    base -= lanes;
  }
  if constexpr (may_be_deterministic)
    if (flag_on(deterministic)) prefix = fold_forward<Exec>(team, lanes, tiles, base, tile, op, scratch);
  Kokkos::single(Kokkos::PerThread(team), [&]() {
    if constexpr (ProbeTile::publish_inclusive) tiles.publish(tile, tile_inclusive, op(prefix, aggregate));
    probe.done(tile, tile - base);
  });
  return prefix;
}

}  // namespace kps::impl
