// kps/scan/tuning.hpp — what the scan runs by default on a device: the algorithm `automatic`
// chooses and the single pass's knobs, for an element type and size. The device's tuning table
// (kps/tuning/table.hpp: `scan` rows, written by `kps tune` from its scan sweep) decides where it has
// a row; the rule below decides elsewhere.
#pragma once

#include <cstddef>

#include "kps/impl/kokkos_compat.hpp"
#include "kps/scan/policy.hpp"
#include "kps/tuning/tuning.hpp"
#include "kps/types.hpp"

namespace kps::impl {

/// What a scan of n elements of T runs by default: `automatic`'s algorithm and the single
/// pass's knobs (every one filled in; team size 0: the largest default team that fits).
struct ScanTuning {
  ScanAlgorithm algorithm = ScanAlgorithm::single_pass;
  SinglePassPolicy single_pass;
};

/// Default team size of the single pass on GPUs (lowered at launch to what fits).
template <class T>
constexpr int single_pass_default_team(bool staged) {
  if (staged) return 128;
  return sizeof(T) <= 4 ? 512 : 256;
}

/// Elements per thread of the host rule's cached tiles: 64 KiB, the size the node's sweeps put
/// among the fastest (studies/scan/README.md), well inside a core's L2 and past its L1.
template <class T>
constexpr int host_cached_items() {
  return int(65536 / sizeof(T));
}

/// The rule, where the device has no table row:
/// - host backends: the single pass on cached tiles of host_cached_items, one thread per team
///   (one pass where the tile's prefix is known at its start: one tile, or one thread); below
///   2^26 bytes of input (an L3 holds the output) ordinary stores, streaming stores from there
///   (the output would otherwise be read into the cache before it is written).
/// - GPUs: Kokkos' scan below 2^18 elements (below, 16384-element tiles leave most SMs idle and
///   Kokkos' scan is as fast or faster: on the H100 the single pass is 0.96x / 0.94x Kokkos' at
///   2^14 and 1.12x / 1.39x at 2^18, int32 / double,
///   results/h100-cuda/experiments/scan-tile-residency), the single pass from there: staged tiles
///   of 128 x 64 for 4-byte types and 128 x 32 for 8-byte ones (32 KiB; six teams per SM on
///   Hopper), and from 500 tiles on (CUB's rule: fewer are all resident at once, where a sleep only
///   adds latency and every tile's loads are already under way) a look-back that sleeps 2400 ns
///   (4-byte types) or 1200 ns (8-byte) before its first read and asks L2 for the tile 64 ahead
///   (the H100 and H200 sweeps: results/h100-cuda/scan/scan-delay.json, scan-prefetch.json).
template <class Exec, class T>
ScanTuning scan_rule(std::size_t n) {
  ScanTuning t;
  SinglePassPolicy& p = t.single_pass;
  p.poll_delay_ns = 0;
  p.store = TileStore::cached;
  if constexpr (is_host_space_v<Exec>) {
    t.algorithm = ScanAlgorithm::single_pass;
    p.team_size = 1;
    p.items_per_thread = host_cached_items<T>();
    p.load = TileLoad::cached;
    p.store = n * sizeof(T) >= (std::size_t(1) << 26) ? TileStore::streaming : TileStore::cached;
    p.look_back_delay_ns = 0;
    p.prefetch_tiles = 0;
  } else {
    t.algorithm = n >= (std::size_t(1) << 18) ? ScanAlgorithm::single_pass : ScanAlgorithm::kokkos;
    p.team_size = 0;
    p.items_per_thread = sizeof(T) <= 4 ? 64 : 32;
    p.load = TileLoad::staged;
    const std::size_t tile = std::size_t(single_pass_default_team<T>(true)) * p.items_per_thread;
    const bool many = n >= 500 * tile;
    p.look_back_delay_ns = many ? (sizeof(T) <= 4 ? 2400 : 1200) : 0;
    p.prefetch_tiles = many ? 64 : 0;
  }
  return t;
}

/// A table's scan row as the scan's defaults.
inline ScanTuning scan_tuning_of(const ScanRow& row) {
  ScanTuning t;
  t.algorithm = row.algorithm;
  SinglePassPolicy& p = t.single_pass;
  p.team_size = row.team_size;
  p.items_per_thread = row.items_per_thread;
  p.load = row.load;
  p.look_back_delay_ns = row.look_back_delay_ns;
  p.poll_delay_ns = row.poll_delay_ns;
  p.prefetch_tiles = row.prefetch_tiles;
  p.store = row.store;
  return t;
}

/// What a scan of n elements of T on exec runs by default: the device's table row, else the rule.
template <class Exec, class T>
ScanTuning scan_tuning(const Exec& exec, std::size_t n) {
  if (const ScanRow* row = tuning_table(exec).find_scan(type_name<T>(), n)) return scan_tuning_of(*row);
  return scan_rule<Exec, T>(n);
}

/// What `automatic` runs for n elements of T on exec.
template <class Exec, class T>
ScanAlgorithm choose_scan_algorithm(const Exec& exec, std::size_t n) {
  return scan_tuning<Exec, T>(exec, n).algorithm;
}

}  // namespace kps::impl
