// kps/scan/tuning.hpp — what the scan runs by default on a device: the algorithm `automatic`
// chooses and the single pass's knobs, for an operator class, a value type and a size. The
// device's tuning table (kps/tuning/table.hpp: `scan` rows, written by `kps tune` from its scan
// sweep) decides where it has a row; the rule below decides elsewhere.
#pragma once

#include <cstddef>

#include "kps/impl/kokkos_compat.hpp"
#include "kps/operators.hpp"
#include "kps/scan/policy.hpp"
#include "kps/scan/tile_io.hpp"
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
/// among the fastest (studies/scan/README.md), well inside a core's L2 and past its L1 (at least
/// the 64 items a cached tile takes, for values of more than 1 KiB).
template <class T>
constexpr int host_cached_items() {
  return 65536 / sizeof(T) < 64 ? 64 : int(65536 / sizeof(T));
}

/// Items per thread of the GPU rule's staged tiles: 256 bytes of values per thread (a 32 KiB tile
/// of 128 threads, six teams per SM on Hopper), as many as the kernels instantiate and stage:
/// 4-byte values 64, 8-byte ones 32, 1-byte ones 256, 16-byte ones 16; 8 for larger values.
template <class T>
constexpr int gpu_staged_items() {
  constexpr std::size_t want = 256 / sizeof(T);
  for (int i : {256, 128, 64, 32, 16, 8})
    if (std::size_t(i) <= want && StagedTile<T, 8>::per_vector <= i) return i;
  return 8;
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
    p.items_per_thread = gpu_staged_items<T>();
    p.load = StagedTile<T, 8>::per_vector <= p.items_per_thread ? TileLoad::staged : TileLoad::direct;
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

/// What a scan of n elements of T under Op on exec runs by default: the device's table row for the
/// operator's class, T and n, else the rule.
template <class Exec, class T, class Op = plus>
ScanTuning scan_tuning(const Exec& exec, std::size_t n) {
  if (const ScanRow* row =
          tuning_table(exec).find_scan(operator_traits<Op, T>::op_class, type_name<T>(), sizeof(T), n))
    return scan_tuning_of(*row);
  return scan_rule<Exec, T>(n);
}

/// What `automatic` runs for n elements of T under Op on exec.
template <class Exec, class T, class Op = plus>
ScanAlgorithm choose_scan_algorithm(const Exec& exec, std::size_t n) {
  return scan_tuning<Exec, T, Op>(exec, n).algorithm;
}

}  // namespace kps::impl
