// kps/scan/look_back.hpp — the decoupled look-back of the single-pass scan (CUB's
// TilePrefixCallbackOp): a tile's exclusive prefix found from its predecessors' published status,
// by the vector lanes of one Kokkos thread (a warp on GPUs) while the rest of the team waits.
// Also the scan's measurement hooks, a type parameter of the kernel: NoProbe compiles to nothing,
// LookBackProbe records per tile what the scan study's look-back benchmark reports.
#pragma once

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"
#include "kps/impl/lanes.hpp"
#include "kps/scan/tile_status.hpp"

namespace kps::impl {

/// The most predecessors each lane of the look-back reads in one round
/// (SinglePassPolicy::look_back_windows).
inline constexpr int max_look_back_windows = 4;

/// The look-back's knobs: its sleeps where the backend can sleep (CUB's delay constructor),
/// nanoseconds, and the predecessors each lane reads per round.
struct LookBackDelay {
  unsigned first_ns = 0;  ///< after publishing the aggregate, before the first read
  unsigned poll_ns = 0;   ///< before reading again predecessors not yet published
  int windows = 1;        ///< predecessors per lane and round, 1..max_look_back_windows: a round reads lanes x windows
};

/// One lane's predecessors of a look-back round: `windows` consecutive status entries.
template <class T>
struct LookBackEntries {
  T value[max_look_back_windows] = {};
  std::uint32_t kind[max_look_back_windows] = {};
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

/// The exclusive prefix of `tile` (the sum of every tile before it), by the `lanes` vector lanes
/// of the calling Kokkos thread, written lane by lane (kps/impl/lanes.hpp).
///
/// The tile's aggregate is published first. Each round reads a window of lanes x w predecessors
/// (w = delay.windows), nearest first: lane l reads the w consecutive predecessors base - l w - k,
/// k = 0..w-1, all its loads issued before any is used, so a round is one memory round trip
/// however wide. Each lane then finds its own nearest inclusive prefix and what lies before it
/// (the sum, the entries not yet published); the lanes wait until all of the window up to the
/// window's nearest inclusive prefix is published (a lane with one still unpublished reads its
/// entries again), a Min reduction finds that nearest inclusive prefix and a Sum adds the entries
/// up to it; a window without one adds all its aggregates and the next window follows. Every
/// entry waited for belongs to a running team (tile ids follow the order teams start:
/// kps::impl::single_pass_ids_by_rank) that publishes its aggregate before it looks back itself,
/// so every wait ends; tile 0 is always inclusive, so the walk ends. The reductions are
/// vector-lane reductions (warp shuffles on GPUs): no team barrier inside the walk. CUB reads 32
/// words with one warp the same way (w = 1); a window of team_size words evaluated by team
/// reductions cost as much as the rest of the scan on the H100
/// (results/h100-cuda/experiments/scan-look-back-team-window).
template <class Exec, class T, class Member, class ProbeTile>
KOKKOS_INLINE_FUNCTION T look_back(const Member& team, int lanes, const TileStatus<Exec, T>& tiles, long tile, T aggregate,
                                   const LookBackDelay& delay, ProbeTile& probe) {
  if (tile == 0) {
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      tiles.publish(0, tile_inclusive, aggregate);
      probe.done(0, 0);
    });
    return T(0);
  }
  Kokkos::single(Kokkos::PerThread(team), [&]() { tiles.publish(tile, tile_aggregate, aggregate); });
  probe.aggregate_published();
  BackendWait<Exec>::sleep(delay.first_ns);  // let the nearest predecessors publish before the first read
  const int w = delay.windows;
  const int span = lanes * w;  // predecessors a round reads
  LaneArray<Exec, LookBackEntries<T>> entries;
  LaneArray<Exec, int> cut;  // the lane's nearest inclusive prefix (its entry), w: none
  T prefix = T(0);
  long base = tile - 1;  // nearest predecessor not added yet
  unsigned waits = 0;    // polls that found an entry still unpublished
  // Reads lane l's entries (those not yet published where `unpublished_only`), then finds its cut.
  auto read_lane = [&](int l, bool unpublished_only) {
    LookBackEntries<T>& e = entries[l];
    for (int k = 0; k < max_look_back_windows; ++k) {
      if (k >= w || (unpublished_only && e.kind[k] != 0)) continue;
      const long pred = base - long(l) * w - k;
      e.value[k] = T(0);
      e.kind[k] = tile_inclusive;  // before tile 0: never added (tile 0 is inclusive)
      if (pred >= 0) e.kind[k] = tiles.read(pred, e.value[k]);
    }
    int c = w;  // constant bounds throughout: the entries stay in registers on GPUs
    for (int k = max_look_back_windows - 1; k >= 0; --k)
      if (k < w && e.kind[k] == tile_inclusive) c = k;
    cut[l] = c;
  };
  for (;;) {
    probe.window_started();
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) { read_lane(l, false); });
    int nearest = span;  // the window's nearest inclusive prefix (its entry); span: none in this window
    for (;;) {  // until every entry before the nearest inclusive prefix is published
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int l, int& m) {
            const int mine = cut[l] < w ? l * w + cut[l] : span;
            if (mine < m) m = mine;
          },
          Kokkos::Min<int>(nearest));
      int missing = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int l, int& m) {
            for (int k = 0; k < max_look_back_windows; ++k)
              if (k < w && entries[l].kind[k] == 0 && l * w + k < nearest) ++m;
          },
          missing);
      probe.window_complete();
      if (missing == 0) break;
      probe.waited();
      BackendWait<Exec>::pause(waits++);
      BackendWait<Exec>::sleep(delay.poll_ns);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        if (l * w < nearest) read_lane(l, true);
      });
    }
    T sum = T(0);
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes),
        [&](int l, T& acc) {
          for (int k = 0; k < max_look_back_windows; ++k)
            if (k < w && l * w + k <= nearest) acc += entries[l].value[k];
        },
        sum);
    prefix = sum + prefix;
    if (nearest < span) {
      base -= nearest;
      break;
    }
    base -= span;
  }
  Kokkos::single(Kokkos::PerThread(team), [&]() {
    if constexpr (ProbeTile::publish_inclusive) tiles.publish(tile, tile_inclusive, prefix + aggregate);
    probe.done(tile, tile - base);
  });
  return prefix;
}

}  // namespace kps::impl
