// kps/scan/policy.hpp — the scan's algorithms and every knob of each, in one place (CUB's policy
// structs): what kps::exclusive_scan / kps::inclusive_scan take besides their Views. A knob left
// at 0 (or -1 for the delays and prefetch) takes the tuning table's value for the device, type
// and size (kps/tuning/tuning.hpp), else the defaults of kps/scan/dispatch.hpp.
#pragma once

#include <optional>
#include <string_view>

namespace kps {

/// Scan algorithms. Every one is correct on every backend.
enum class ScanAlgorithm {
  /// The fastest for the device and size: the tuning table's choice, else the rule of
  /// kps::choose_scan_algorithm (Kokkos' scan below a few thousand elements on host backends and
  /// 2^18 on GPUs, the single pass above).
  automatic,
  /// Kokkos::parallel_scan: two passes over the input on GPUs (~3n memory traffic); no workspace.
  kokkos,
  /// The seed's naive team scan (Hillis-Steele) in tiles + scan of tile totals + propagation:
  /// ~4n traffic, three launches per level; the scan study's baseline.
  hillis_steele,
  /// The seed's work-efficient team scan (Blelloch) in tiles, as hillis_steele: fewer additions,
  /// twice the barrier-separated steps.
  blelloch,
  /// Decoupled look-back single-pass scan (Merrill & Garland 2016): one launch, ~2n traffic;
  /// the fastest on GPUs from about 2^18 elements and on host backends from a few tiles per thread.
  single_pass,
};

inline const char* to_string(ScanAlgorithm a) {
  switch (a) {
    case ScanAlgorithm::automatic: return "automatic";
    case ScanAlgorithm::kokkos: return "kokkos";
    case ScanAlgorithm::hillis_steele: return "hillis_steele";
    case ScanAlgorithm::blelloch: return "blelloch";
    case ScanAlgorithm::single_pass: return "single_pass";
  }
  return "unknown";
}

inline std::optional<ScanAlgorithm> scan_algorithm_from_string(std::string_view s) {
  for (ScanAlgorithm a : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::hillis_steele,
                          ScanAlgorithm::blelloch, ScanAlgorithm::single_pass})
    if (s == to_string(a)) return a;
  return std::nullopt;
}

/// How the single-pass scan moves a tile between memory and its threads' registers.
enum class TileLoad {
  automatic,  ///< the tuning's choice (staged on GPUs at the default items per thread, else direct)
  /// Each thread reads its consecutive elements straight into registers (16-byte loads when
  /// aligned): neighbouring threads touch addresses items_per_thread elements apart. No scratch;
  /// the items stay in registers across the look-back.
  direct,
  /// The team reads and writes the tile in 16-byte vectors with neighbouring threads on
  /// neighbouring addresses (coalesced), and transposes it through team scratch (CUB's
  /// BLOCK_LOAD_TRANSPOSE); costs tile-sized scratch and two barriers, holds nothing in registers
  /// across the look-back: the fastest on GPUs.
  staged,
  /// Each thread owns `items_per_thread` consecutive elements (thousands: the tile is sized for a
  /// core's cache, not for registers): it adds them up as it reads them into cache, the tile looks
  /// back, and the thread scans them again from cache and writes them out. One read of memory and
  /// one write, as a copy moves, at the cost of a second pass over cache; no scratch but a total
  /// per thread. Teams stay resident and take tiles until none is left (as many teams as run at
  /// once), and a one-thread team whose predecessor's inclusive prefix is already published scans
  /// in one pass (always so on one thread). The fastest on CPUs (studies/scan/README.md).
  cached,
};

inline const char* to_string(TileLoad l) {
  switch (l) {
    case TileLoad::direct: return "direct";
    case TileLoad::staged: return "staged";
    case TileLoad::cached: return "cached";
    case TileLoad::automatic: break;
  }
  return "automatic";
}

inline std::optional<TileLoad> tile_load_from_string(std::string_view s) {
  for (TileLoad l : {TileLoad::automatic, TileLoad::direct, TileLoad::staged, TileLoad::cached})
    if (s == to_string(l)) return l;
  return std::nullopt;
}

/// How the single pass writes its output (cached tiles; direct and staged tiles write through the cache).
enum class TileStore {
  automatic,  ///< the tuning's choice
  /// Ordinary stores: each output line is first read into the cache (a CPU's write-allocate),
  /// then written back: 3 x N x sizeof(T) bytes of memory traffic for the scan, not 2; right
  /// where the output is read again while it is still in cache.
  cached,
  /// Streaming (non-temporal) stores of whole lines where the backend has them
  /// (kps/impl/backend.hpp: BackendStore), which skip the read: the traffic of a copy. Elsewhere
  /// ordinary stores.
  streaming,
};

inline const char* to_string(TileStore s) {
  return s == TileStore::cached ? "cached" : s == TileStore::streaming ? "streaming" : "automatic";
}

inline std::optional<TileStore> tile_store_from_string(std::string_view s) {
  for (TileStore t : {TileStore::automatic, TileStore::cached, TileStore::streaming})
    if (s == to_string(t)) return t;
  return std::nullopt;
}

/// Knobs of the single-pass scan: a tile is team_size x items_per_thread elements.
struct SinglePassPolicy {
  /// Threads per team: Kokkos threads x `lanes` (a multiple of lanes); 0: the tuning's, lowered
  /// at launch to what fits.
  int team_size = 0;
  /// Consecutive elements per thread: 8, 16, 24, 32, 48, 64 or 256 (256: direct loads only); for
  /// cached tiles any count from 64 to 2^24; 0: the tuning's.
  int items_per_thread = 0;
  TileLoad load = TileLoad::automatic;
  /// Nanoseconds the look-back sleeps after publishing the tile's aggregate, before its first read
  /// of the predecessors (CUB's L2WriteLatency), where the backend can sleep; -1: the tuning's; 0: none.
  int look_back_delay_ns = -1;
  /// Nanoseconds it sleeps before reading again predecessors not yet published (CUB's Delay);
  /// -1: the tuning's; 0: none.
  int poll_delay_ns = -1;
  /// Tiles ahead of its own whose input a team asks the device to bring into L2 when it starts
  /// (no effect where the backend has no such hint); -1: the tuning's; 0: none.
  int prefetch_tiles = -1;
  /// Vector lanes of each Kokkos thread: the look-back's window is `lanes` predecessors read at
  /// once and reduced across the lanes. 0: the backend's (its warp on a GPU, 32 on CUDA; 1 on a
  /// host backend); else a power of two up to 32 (and up to the backend's vector length). Host
  /// backends emulate lanes > 1 one after another: the GPU's look-back and staged tiles, run and
  /// tested on a CPU.
  int lanes = 0;
  /// How cached tiles write their output (direct and staged tiles ignore it).
  TileStore store = TileStore::automatic;
};

/// Knobs of the tile scans built on a team algorithm.
struct TileScanPolicy {
  int tile = 0;  ///< elements per tile, a power of two >= 2; 0: 1024 (the seed's n)
};

/// Extra knobs; the defaults are what `automatic` and the named algorithms use.
struct ScanOptions {
  SinglePassPolicy single_pass;
  TileScanPolicy tile;
  /// Bit-identical results run to run for the same input on the same device and tuning (the same
  /// tiles): the single pass's look-back then finds the nearest published inclusive prefix and
  /// reduces the tiles after it left to right (kps/scan/look_back.hpp: fold_forward), so its
  /// floating-point prefix does not depend on how far back a tile's walk went, and a one-thread
  /// tile on cached tiles no longer scans in one pass where its prefix is known. Off by default:
  /// the single pass's floating-point results may then differ in their last bits between runs
  /// (the tiles' prefixes are reduced in an order set by timing). The other algorithms are
  /// deterministic either way, and so is every operator whose result does not depend on the
  /// association (integers, minima, maxima, bitwise operators: kps::operator_traits::exact), for
  /// which the option changes nothing. What it costs: studies/scan/README.md.
  bool deterministic = false;
};

}  // namespace kps
