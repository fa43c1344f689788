// kps/device_scan.hpp — device-wide scans of any length, written once against Kokkos:
//  - tile_scan: the seed's two-level scheme on a team algorithm (team scan of each tile in
//    scratch, a scan of the tile totals, propagation): ~4n memory traffic, three launches.
//  - single_pass: decoupled look-back (Merrill & Garland 2016): one launch, ~2n traffic.
//  - kokkos: Kokkos::parallel_scan (two passes over the input on GPUs).
// Used through kps/scan.hpp; this header holds the kernels and their policies.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"
#include "kps/impl/kokkos_compat.hpp"
#include "kps/impl/workspace.hpp"
#include "kps/team_scan.hpp"

namespace kps {

/// How the single-pass scan moves a tile between memory and its threads' registers.
enum class TileLoad {
  automatic,  ///< staged on GPUs at the default items per thread, else direct (kps::impl::resolve)
  /// Each thread reads its consecutive elements straight into registers (16-byte loads when
  /// aligned): neighbouring threads touch addresses items_per_thread elements apart.
  direct,
  /// The team reads and writes the tile in 16-byte vectors with neighbouring threads on
  /// neighbouring addresses (coalesced), and transposes it through team scratch (CUB's
  /// BLOCK_LOAD_TRANSPOSE); costs tile-sized scratch and two barriers.
  staged,
};

/// Tuning knobs of the single-pass scan: a tile is team_size * items_per_thread elements.
struct SinglePassPolicy {
  int team_size = 0;         ///< threads per team (a multiple of the backend's vector lanes: 32 on CUDA); 0: default
  int items_per_thread = 0;  ///< consecutive elements per thread: 8, 16, 24, 32, 48, 64 or 256; 0: default
  TileLoad load = TileLoad::automatic;
  /// Nanoseconds the look-back sleeps after publishing the tile's aggregate, before its first
  /// read of the predecessors' status (CUB's L2WriteLatency), where the backend can sleep
  /// (kps::impl::backoff); -1: the default for the element type; 0: none.
  int look_back_delay_ns = -1;
  /// Nanoseconds it sleeps before reading again predecessors not yet published (CUB's Delay);
  /// -1: the default; 0: none.
  int poll_delay_ns = -1;
  /// Tiles ahead of its own whose input a team asks the GPU to bring into L2 when it starts
  /// (kps::impl::prefetch_l2; no effect where the backend has no such hint); -1: the default.
  int prefetch_tiles = -1;
};

/// Knobs of the tile scans built on a team algorithm.
struct TileScanPolicy {
  int tile = 0;  ///< elements per tile, a power of two >= 2; 0: 1024 (the seed's n)
};

namespace impl {

// ---------------------------------------------------------------------------------------
// Tile scans on a team algorithm
// ---------------------------------------------------------------------------------------

/// Scans each tile of `in` into `out` (exclusive or inclusive within the tile) and writes
/// the tile's total to `totals`.
template <class Exec, class T, class Count = NoWarpCount>
struct TileScanKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  const T* in;
  T* out;
  T* totals;
  std::size_t n;
  int tile;
  TeamScanAlgorithm alg;
  bool exclusive;
  Count count;

  /// Team r scans tiles r, r + league, ...: one tile per team up to max_league_size teams.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    T* x = static_cast<T*>(team.team_scratch(0).get_shmem(
        sizeof(T) * team_scan_scratch_elements(alg, tile)));
    T* tmp = x + tile;
    const std::size_t tiles = (n + tile - 1) / tile;
    for (std::size_t t = team.league_rank(); t < tiles; t += team.league_size()) {
      const std::size_t base = t * tile;
      for (int i = team.team_rank(); i < tile; i += team.team_size())
        x[i] = base + i < n ? in[base + i] : T(0);
      team.team_barrier();
      team_inclusive_scan(team, alg, x, tmp, tile, count);
      for (int i = team.team_rank(); i < tile; i += team.team_size())
        if (base + i < n) out[base + i] = exclusive ? (i > 0 ? x[i - 1] : T(0)) : x[i];
      if (totals && team.team_rank() == 0) totals[t] = x[tile - 1];
      team.team_barrier();  // x is read above before the next tile overwrites it
    }
  }
};

/// Launches one team per tile, with one thread per lane where the backend allows it.
template <class Exec, class T, class Count>
void launch_tile_scan(const Exec& exec, const TileScanKernel<Exec, T, Count>& k,
                      std::size_t tiles, const char* label) {
  const auto scratch = Kokkos::PerTeam(sizeof(T) * team_scan_scratch_elements(k.alg, k.tile));
  Kokkos::TeamPolicy<Exec> probe(exec, 1, 1);
  probe.set_scratch_size(0, scratch);
  const int lanes = team_scan_lanes(k.alg, k.tile);
  const int max = probe.team_size_max(k, Kokkos::ParallelForTag());
  const std::size_t league = tiles < std::size_t(max_league_size) ? tiles : std::size_t(max_league_size);
  Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(league), lanes < max ? lanes : max);
  policy.set_scratch_size(0, scratch);
  Kokkos::parallel_for(label, policy, k);
}

/// The tile of a tile scan: a power of two >= 2 (each level must shrink the problem).
inline int tile_scan_tile(int requested) {
  const int tile = requested == 0 ? 1024 : requested;  // the seed's n
  if (tile < 2 || (tile & (tile - 1)))
    throw std::invalid_argument("kps: tile scan tile must be a power of two >= 2, got " + std::to_string(tile));
  return tile;
}

/// Device-wide scan of in[0, n) into out on a team algorithm (in may equal out).
template <class Exec, class T>
void tile_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive,
               TeamScanAlgorithm alg, TileScanPolicy policy, unsigned char* scratch) {
  if (n == 0) return;
  const int tile = tile_scan_tile(policy.tile);
  const std::size_t tiles = (n + tile - 1) / tile;
  T* totals = tiles > 1 ? reinterpret_cast<T*>(scratch) : nullptr;
  launch_tile_scan(exec, TileScanKernel<Exec, T>{in, out, totals, n, tile, alg, exclusive, {}}, tiles,
                   exclusive ? "kps::tile_scan::exclusive" : "kps::tile_scan::inclusive");
  if (tiles == 1) return;
  // Exclusive scan of the tile totals (recursively, same algorithm), then propagation.
  unsigned char* next = scratch + ((tiles * sizeof(T) + 255) / 256) * 256;
  tile_scan(exec, totals, totals, tiles, true, alg, policy, next);
  Kokkos::parallel_for(
      "kps::tile_scan::propagate", Kokkos::RangePolicy<Exec>(exec, std::size_t(tile), n),
      KOKKOS_LAMBDA(std::size_t i) { out[i] += totals[i / tile]; });
}

/// Scratch bytes tile_scan needs for n elements.
template <class T>
std::size_t tile_scan_scratch_bytes(std::size_t n, int tile) {
  std::size_t bytes = 0;
  for (std::size_t tiles = (n + tile - 1) / tile; tiles > 1; tiles = (tiles + tile - 1) / tile)
    bytes += ((tiles * sizeof(T) + 255) / 256) * 256;
  return bytes;
}

// ---------------------------------------------------------------------------------------
// Single-pass scan with decoupled look-back
// ---------------------------------------------------------------------------------------

// Tile status. Each published word carries a 32-bit tag, (epoch << 2 | kind), in its high
// half, so that a reader tells this call's words from earlier calls' without clearing them.
//  - 4-byte types: one word per tile, the value in the low half: status and value are
//    published by one 64-bit store and read by one load.
//  - 8-byte types: four words per tile, values[4 * tile + 2 * (kind - 1) + {0, 1}], the
//    value's high and low halves, each beside the tag. A reader loads all four at once and
//    takes a kind only when both of its halves carry this call's tag (a half from an earlier
//    call, or not yet written, fails the check), so no fence orders value and status and a
//    window costs one round trip to memory, as for 4-byte types (CUB packs status and value in
//    one 16-byte word instead; Kokkos has no portable 16-byte atomic load or store).
enum : std::uint32_t { tile_aggregate = 1, tile_inclusive = 2 };

template <class T>
KOKKOS_INLINE_FUNCTION std::uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}

template <class T>
KOKKOS_INLINE_FUNCTION T from_bits(std::uint64_t b) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t w = static_cast<std::uint32_t>(b);
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &b, 8);
  }
  return v;
}

template <class T>
struct TileStatus {
  std::uint64_t* status;  // 4-byte types: a word per tile
  std::uint64_t* values;  // 8-byte types: four words per tile
  std::uint32_t epoch;

  KOKKOS_INLINE_FUNCTION std::uint64_t tag(std::uint32_t kind) const {
    return std::uint64_t((epoch << 2) | kind) << 32;
  }

  KOKKOS_INLINE_FUNCTION void publish(long tile, std::uint32_t kind, T v) const {
    if constexpr (sizeof(T) == 4) {
      store_relaxed(&status[tile], tag(kind) | to_bits(v));
    } else {
      const std::uint64_t b = to_bits(v);
      std::uint64_t* w = values + 4 * tile + 2 * (kind - 1);
      store_relaxed(&w[0], tag(kind) | (b >> 32));
      store_relaxed(&w[1], tag(kind) | (b & 0xffffffffu));
    }
  }

  /// Reads tile's status; returns its kind (0: not published yet in this call).
  KOKKOS_INLINE_FUNCTION std::uint32_t read(long tile, T& v) const {
    if constexpr (sizeof(T) == 4) {
      const std::uint64_t w = load_relaxed(&status[tile]);
      const std::uint32_t t = static_cast<std::uint32_t>(w >> 32);
      if ((t >> 2) != epoch) return 0;
      v = from_bits<T>(w);
      return t & 3u;
    } else {
      std::uint64_t w[4];
      for (int k = 0; k < 4; ++k) w[k] = load_relaxed(&values[4 * tile + k]);
      constexpr std::uint64_t high = ~std::uint64_t(0xffffffffu);
      auto complete = [&](std::uint32_t kind) {
        const std::uint64_t* h = w + 2 * (kind - 1);
        if ((h[0] & high) != tag(kind) || (h[1] & high) != tag(kind)) return false;
        v = from_bits<T>((h[0] << 32) | (h[1] & 0xffffffffu));
        return true;
      };
      if (complete(tile_inclusive)) return tile_inclusive;
      if (complete(tile_aggregate)) return tile_aggregate;
      return 0;
    }
  }
};

/// Items consecutive elements of one thread, loaded with 16-byte accesses when aligned.
template <class T, int Items>
struct ThreadItems {
  T v[Items];
  static constexpr int per_vector = 16 / sizeof(T);
  struct alignas(16) Vector {
    T v[per_vector];
  };

  KOKKOS_INLINE_FUNCTION void load(const T* p, std::size_t valid) {
    if (valid >= std::size_t(Items) && Items % per_vector == 0 &&
        reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      for (int j = 0; j < Items / per_vector; ++j) {
        const Vector w = reinterpret_cast<const Vector*>(p)[j];
        for (int k = 0; k < per_vector; ++k) v[j * per_vector + k] = w.v[k];
      }
    } else {
      for (int j = 0; j < Items; ++j) v[j] = std::size_t(j) < valid ? p[j] : T(0);
    }
  }

  KOKKOS_INLINE_FUNCTION void store(T* p, std::size_t valid) const {
    if (valid >= std::size_t(Items) && Items % per_vector == 0 &&
        reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      for (int j = 0; j < Items / per_vector; ++j) {
        Vector w;
        for (int k = 0; k < per_vector; ++k) w.v[k] = v[j * per_vector + k];
        reinterpret_cast<Vector*>(p)[j] = w;
      }
    } else {
      for (int j = 0; j < Items; ++j)
        if (std::size_t(j) < valid) p[j] = v[j];
    }
  }
};

/// A tile staged in team scratch, laid out so that both the coalesced accesses (thread t on
/// vector j * team_size + t) and the blocked ones (thread t on its Items consecutive elements)
/// spread over the shared-memory banks (eight 16-byte vectors span them): where a thread's run
/// is a multiple of eight vectors, vector v sits at v XOR (v / run mod 8), a permutation within
/// each aligned group of eight that costs no space; otherwise one 16-byte pad follows every
/// eight vectors (runs of 6 or 12 vectors, 24 items, still meet two ways on the blocked side).
/// The space matters: on Hopper a 32 KiB tile with padding leaves room for five teams per SM,
/// without it for six.
template <class T, int Items>
struct StagedTile {
  static constexpr int per_vector = 16 / sizeof(T);
  static constexpr int vectors_per_thread = Items / per_vector;
  static_assert(Items % per_vector == 0, "kps: staged tiles hold whole 16-byte vectors per thread");
  /// 16-byte loads a thread keeps in flight while staging the tile (128 bytes).
  static constexpr int batch = vectors_per_thread < 8 ? vectors_per_thread : 8;
  using Vector = typename ThreadItems<T, Items>::Vector;

  T* base;  // 16-byte aligned

  static constexpr bool swizzled = vectors_per_thread % 8 == 0;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(int team_size) {
    const std::size_t vectors = std::size_t(team_size) * vectors_per_thread;
    return (swizzled ? vectors : vectors + vectors / 8 + 1) * 16;
  }
  /// Where vector v of the tile sits, in vectors from base.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t slot(std::size_t v) {
    if constexpr (swizzled)
      return v ^ (v / vectors_per_thread % 8);
    else
      return v + v / 8;
  }
  KOKKOS_INLINE_FUNCTION Vector& vector(std::size_t v) const { return reinterpret_cast<Vector*>(base)[slot(v)]; }
  KOKKOS_INLINE_FUNCTION T& element(std::size_t e) const {
    return base[slot(e / per_vector) * per_vector + e % per_vector];
  }

  /// Reads src[0, valid) of a tile of ts * Items elements, coalesced (thread `rank` of `ts`);
  /// zeros past valid.
  KOKKOS_INLINE_FUNCTION void read(int rank, int ts, const T* src, std::size_t valid) const {
    const std::size_t tile = std::size_t(ts) * Items;
    if (valid == tile && reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
      // All of a batch's loads are issued before any of its stores to scratch: the compiler
      // cannot tell that scratch and src do not overlap, so a load placed after a store waits
      // for it, and a store waits for its load (measured on the H100, CUDA 13: one 16-byte
      // load in flight per thread, a memory round trip per vector).
      for (int j0 = 0; j0 < vectors_per_thread; j0 += batch) {
        Vector r[batch];
        for (int b = 0; b < batch; ++b)
          if (j0 + b < vectors_per_thread) r[b] = reinterpret_cast<const Vector*>(src)[std::size_t(j0 + b) * ts + rank];
        for (int b = 0; b < batch; ++b)
          if (j0 + b < vectors_per_thread) vector(std::size_t(j0 + b) * ts + rank) = r[b];
      }
    } else {
      for (std::size_t e = rank; e < tile; e += ts) element(e) = e < valid ? src[e] : T(0);
    }
  }

  /// Scans thread rank's Items consecutive elements in place, one 16-byte vector at a time
  /// (so that only a vector and the running sum occupy registers, whatever Items is):
  /// inclusive, or exclusive (each element replaced by the sum of those before it in the
  /// thread's run, summed in the inclusive scan's order, hence exact). Returns the run's total.
  KOKKOS_INLINE_FUNCTION T scan_run(int rank, bool exclusive) const {
    T sum = T(0);
    KPS_IMPL_ROLLED_LOOP
    for (int j = 0; j < vectors_per_thread; ++j) {
      Vector& slot = vector(std::size_t(rank) * vectors_per_thread + j);
      Vector w = slot;
      for (int k = 0; k < per_vector; ++k) {
        const T x = w.v[k];
        if (exclusive) {
          w.v[k] = sum;
          sum += x;
        } else {
          sum += x;
          w.v[k] = sum;
        }
      }
      slot = w;
    }
    return sum;
  }

  /// Writes dst[0, valid) of the tile, coalesced, each element plus base + offsets[t] where t
  /// is the thread whose run holds it (the tile's prefix and that thread's prefix in the tile).
  KOKKOS_INLINE_FUNCTION void write(int rank, int ts, T* dst, std::size_t valid, T base, const T* offsets) const {
    const std::size_t tile = std::size_t(ts) * Items;
    if (valid == tile && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0) {
      // One vector at a time: a store does not hold up the next read of scratch.
      KPS_IMPL_ROLLED_LOOP
      for (int j = 0; j < vectors_per_thread; ++j) {
        const std::size_t v = std::size_t(j) * ts + rank;
        Vector w = vector(v);
        const T o = base + offsets[v / vectors_per_thread];
        for (int k = 0; k < per_vector; ++k) w.v[k] += o;
        reinterpret_cast<Vector*>(dst)[v] = w;
      }
    } else {
      for (std::size_t e = rank; e < valid; e += ts) dst[e] = element(e) + (base + offsets[e / Items]);
    }
  }
};

/// Predecessors each lane reads per look-back window (a window is this many times the lanes).
/// One: on the H100 two cost 10 registers, hence a team per SM, and ran slower
/// (studies/scan/NOTES.md, session 5); kept as a constant so the look-back is written for any.
inline constexpr int single_pass_window_entries = 1;

/// Words per tile of the single pass's look-back probe (SinglePassKernel::probe).
inline constexpr int single_pass_probe_words = 8;

/// Vector lanes per Kokkos thread of the single pass: the look-back is done by one Kokkos
/// thread whose lanes read a window of predecessors and reduce it (shuffles on GPUs), like
/// CUB's warp-wide look-back; host backends have one lane.
template <class Exec>
int single_pass_lanes() {
  if constexpr (is_host_space_v<Exec>) {
    return 1;
  } else {
    return Kokkos::TeamPolicy<Exec>::vector_length_max();
  }
}

template <class Exec, class T, int Items, bool Exclusive, bool Staged, bool Probe = false>
struct SinglePassKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  const T* in;
  T* out;
  std::size_t n;
  TileStatus<T> tiles;
  unsigned int* counter;  // 0 at launch; 32-bit: Kokkos' 64-bit atomic_fetch_add is a CAS loop on CUDA
  int lanes;              // vector lanes per Kokkos thread (the team is team_size x lanes threads)
  /// Look-back probe of the Probe instantiation (the scan study's instrument; a separate
  /// kernel, so that the scan proper spends no registers on it): single_pass_probe_words per tile, written
  /// by the tile's team (BackendClock ticks: cycles on GPUs, ns on host backends):
  ///  0 depth reached (tile - the predecessor whose inclusive prefix ended the walk; 0: tile 0)
  ///  1 rounds spent waiting for unpublished predecessors
  ///  2 ticks from the tile's start to its aggregate's publication
  ///  3 ticks from there to its inclusive prefix's publication (the look-back)
  ///  4 ticks from the start to the tile id (the counter's atomic)
  ///  5 ticks from the tile id to the team's totals (loads, thread scans, lane scans, a barrier)
  ///  6 ticks of the first window read (issued to known by all lanes)
  ///  7 windows read
  std::uint64_t* probe = nullptr;
  unsigned delay_ns = 0;  // sleep before the first window read (SinglePassPolicy::look_back_delay_ns)
  unsigned poll_ns = 0;   // sleep between polls of unpublished predecessors (SinglePassPolicy::poll_delay_ns)
  unsigned prefetch_ahead = 0;  // tiles ahead whose input is prefetched to L2 (SinglePassPolicy::prefetch_tiles)
  KOKKOS_INLINE_FUNCTION static long long clock() {
    if constexpr (Probe)
      return BackendClock<Exec>::now();
    else
      return 0;
  }

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

  /// The tile's exclusive prefix (the sum of every tile before it), found by the lanes of
  /// Kokkos thread 0 (one warp on GPUs) while the rest of the team waits at a barrier.
  ///
  /// The tile's aggregate is published first. Each round, lane l reads predecessor
  /// base - l (a window of `lanes` status words, nearest first), the lanes wait until all of
  /// the window is published, a Min reduction finds the nearest inclusive prefix in it and a
  /// Sum adds the entries up to it; a window without one adds all its aggregates and the next
  /// window follows. Every entry waited for belongs to a running team (tile ids are taken in
  /// start order) that publishes its aggregate before it looks back itself, so every wait ends;
  /// tile 0 is always inclusive, so the walk ends. The reductions are vector-lane reductions
  /// (warp shuffles on GPUs): no team barrier inside the walk.
  ///
  /// Measured on the H100 (studies/scan/NOTES.md): a window of team_size words evaluated by
  /// three team reductions (session 4) cost as much as the rest of the scan; CUB reads 32
  /// words with one warp.
  KOKKOS_INLINE_FUNCTION T look_back(const member_type& team, int lane, long tile, T aggregate,
                                      const long long (&times)[3]) const {
    const long long published = clock();
    if (tile == 0) {
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        tiles.publish(0, tile_inclusive, aggregate);
        if constexpr (Probe) record(0, 0, 0, published, published, times, 0, 0);
      });
      return T(0);
    }
    Kokkos::single(Kokkos::PerThread(team), [&]() { tiles.publish(tile, tile_aggregate, aggregate); });
    backoff(delay_ns);  // let the nearest predecessors publish before the first read
    constexpr int E = single_pass_window_entries;
    const int width = E * lanes;  // entries per window; entry e = k * lanes + lane is predecessor base - e
    T prefix = T(0);
    long base = tile - 1;  // nearest predecessor not added yet
    std::uint64_t waits = 0, windows = 0;
    long long first_read = 0;
    for (;;) {
      const long long read_at = windows == 0 ? clock() : 0;
      T v[E];
      std::uint32_t kind[E];
      for (int k = 0; k < E; ++k) {
        v[k] = T(0);
        kind[k] = tile_inclusive;  // before tile 0: never added (tile 0 is inclusive)
        const long p = base - (k * lanes + lane);
        if (p >= 0) kind[k] = tiles.read(p, v[k]);
      }
      ++windows;
      int nearest = width;  // entry of the nearest inclusive prefix; width: none in this window
      for (;;) {  // until every entry before the nearest inclusive prefix is published
        int mine = width;
        for (int k = E - 1; k >= 0; --k)
          if (kind[k] == tile_inclusive) mine = k * lanes + lane;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, lanes),
            [&](int, int& m) {
              if (mine < m) m = mine;
            },
            Kokkos::Min<int>(nearest));
        int missing = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, lanes),
            [&](int, int& m) {
              for (int k = 0; k < E; ++k) m += kind[k] == 0 && k * lanes + lane < nearest ? 1 : 0;
            },
            missing);
        if (Probe && windows == 1 && first_read == 0) first_read = clock() - read_at;
        if (missing == 0) break;
        ++waits;
        spin_pause();
        backoff(poll_ns);
        for (int k = 0; k < E; ++k)
          if (kind[k] == 0 && k * lanes + lane < nearest) kind[k] = tiles.read(base - (k * lanes + lane), v[k]);
      }
      T sum = T(0);
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int, T& acc) {
            for (int k = 0; k < E; ++k)
              if (k * lanes + lane <= nearest) acc += v[k];
          },
          sum);
      prefix = sum + prefix;
      if (nearest < width) {
        base -= nearest;
        break;
      }
      base -= width;
    }
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      tiles.publish(tile, tile_inclusive, prefix + aggregate);
      if constexpr (Probe)
        record(tile, std::uint64_t(tile - base), waits, published, clock(), times, first_read,
               windows);
    });
    return prefix;
  }

  /// times: the tile's start, its id known, its team's totals known.
  KOKKOS_INLINE_FUNCTION void record(long tile, std::uint64_t depth, std::uint64_t waits, long long published,
                                     long long inclusive, const long long (&times)[3], long long first_read,
                                     std::uint64_t windows) const {
    std::uint64_t* w = probe + single_pass_probe_words * tile;
    w[0] = depth;
    w[1] = waits;
    w[2] = std::uint64_t(published - times[0]);
    w[3] = std::uint64_t(inclusive - published);
    w[4] = std::uint64_t(times[1] - times[0]);
    w[5] = std::uint64_t(times[2] - times[1]);
    w[6] = std::uint64_t(first_read);
    w[7] = windows;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    // Tile ids in the order teams start, so every predecessor of a tile is already running:
    // the look-back below never waits on a team that has not been scheduled.
    const long long started = clock();
    long tile = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](long& id) { id = long(Kokkos::atomic_fetch_add(counter, 1u)); },
        tile);
    long long times[3] = {started, clock(), 0};

    // This lane's place in the team: a vector range of exactly `lanes` indices gives each
    // lane one index (its lane; the only index 0 with one lane).
    int lane = 0;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int i) { lane = i; });
    const int warp = team.team_rank();
    const int warps = team.team_size();
    const int threads = warps * lanes;
    const int rank = warp * lanes + lane;

    char* const scratch = static_cast<char*>(team.team_scratch(0).get_shmem(scratch_bytes(threads, lanes)));
    T* const thread_totals = reinterpret_cast<T*>(scratch);
    T* const warp_totals = thread_totals + threads;
    T* const tile_prefix_slot = warp_totals + warps;
    const std::uintptr_t staged_at = (reinterpret_cast<std::uintptr_t>(scratch) + head_bytes(threads, lanes) + 15) / 16 * 16;

    const std::size_t tile_first = std::size_t(tile) * threads * Items;
    const std::size_t left = tile_first < n ? n - tile_first : 0;
    const std::size_t tile_valid = left < std::size_t(threads) * Items ? left : std::size_t(threads) * Items;
    const std::size_t first = tile_first + std::size_t(rank) * Items;
    const std::size_t valid = first < n ? n - first : 0;
    if (prefetch_ahead > 0 && rank == 0) {
      // The tile a later team will take: its loads then find the data in L2.
      const std::size_t tile_elems = std::size_t(threads) * Items;
      const std::size_t ahead = tile_first + std::size_t(prefetch_ahead) * tile_elems;
      if (ahead < n) prefetch_l2(in + ahead, sizeof(T) * (n - ahead < tile_elems ? n - ahead : tile_elems));
    }
    T thread_total;
    [[maybe_unused]] ThreadItems<T, Items> x;  // direct loads: the thread's items
    if constexpr (Staged) {
      const StagedTile<T, Items> staged{reinterpret_cast<T*>(staged_at)};
      staged.read(rank, threads, in + tile_first, tile_valid);
      team.team_barrier();
      // Each thread scans its run where it lies in scratch, a vector at a time (exclusive
      // within the thread when the scan is exclusive): the items never all sit in registers,
      // so the kernel's registers, hence the teams an SM holds, do not grow with Items, and
      // nothing is held across the look-back.
      thread_total = staged.scan_run(rank, Exclusive);
    } else {
      x.load(in + first, valid);
      for (int j = 1; j < Items; ++j) x.v[j] += x.v[j - 1];
      thread_total = x.v[Items - 1];
    }

    // Exclusive prefix of this thread within the tile: a scan over the lanes (through the
    // per-thread totals in scratch; the vector range ends with a lane barrier), then over
    // the warps' totals; and the tile's aggregate.
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                         [&](int i) { thread_totals[warp * lanes + i] = thread_total; });
    T lane_prefix = T(0);
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, lanes), [&](int i, T& update, const bool final) {
      if (final) lane_prefix = update;
      update += thread_totals[warp * lanes + i];
    });
    if (lane == lanes - 1) warp_totals[warp] = lane_prefix + thread_total;
    team.team_barrier();
    if constexpr (Probe) times[2] = clock();
    T thread_prefix = lane_prefix;
    T aggregate = T(0);
    for (int w = 0; w < warps; ++w) {
      if (w == warp) thread_prefix += aggregate;
      aggregate += warp_totals[w];
    }

    // Staged: the thread's prefix in the tile, for the coalesced write (its slot was last read
    // by its own warp's lane scan, before the barrier above).
    if constexpr (Staged) thread_totals[rank] = thread_prefix;

    if (warp == 0) {
      const T p = look_back(team, lane, tile, aggregate, times);
      Kokkos::single(Kokkos::PerThread(team), [&]() { *tile_prefix_slot = p; });
    }
    team.team_barrier();
    const T tile_prefix = *tile_prefix_slot;
    if constexpr (Staged) {
      // The tile out, coalesced, each element plus the tile's prefix and its thread's.
      const StagedTile<T, Items> staged{reinterpret_cast<T*>(staged_at)};
      staged.write(rank, threads, out + tile_first, tile_valid, tile_prefix, thread_totals);
    } else {
      const T offset = tile_prefix + thread_prefix;
      if constexpr (Exclusive) {
        // exclusive[j] = offset + inclusive[j] - input[j], done by shifting to stay exact
        for (int j = Items - 1; j > 0; --j) x.v[j] = offset + x.v[j - 1];
        x.v[0] = offset;
      } else {
        for (int j = 0; j < Items; ++j) x.v[j] += offset;
      }
      x.store(out + first, valid);
    }
  }
};

/// Default team size of the single pass on GPUs (lowered at launch to what fits).
template <class T>
constexpr int single_pass_default_team(bool staged) {
  if (staged) return 128;
  return sizeof(T) <= 4 ? 512 : 256;
}

/// Default sleep of the single pass's look-back on GPUs (ns), after publishing the aggregate and
/// before the first read of the predecessors. The H100 sweep (scan_delay/...,
/// studies/scan/NOTES.md, session 10), with the default tiles: 2400 ns for 4-byte types, 1200 ns
/// for 8-byte ones. Between polls the default is no sleep: 600 ns measured the same.
template <class T>
inline constexpr int single_pass_default_delay = sizeof(T) <= 4 ? 2400 : 1200;

/// Default distance of the single pass's L2 prefetch on GPUs, in tiles: a team starting tile t
/// asks for tile t + 64 (of the ~800 tiles resident at once on a 132-SM Hopper, six 128-thread
/// teams per SM). The sweeps (scan_prefetch/..., studies/scan/NOTES.md, session 11): 33 to 132
/// tiles ahead gain 7-13 % on the H100 and the H200; 264 loses on the H100, 528 and more on
/// both (the prefetched lines leave L2 before their team reads them).
inline constexpr int single_pass_default_prefetch = 64;

/// Tiles from which the default delays and prefetch apply (CUB sleeps from 500 blocks on).
inline constexpr std::size_t single_pass_delay_tiles = 500;

/// The single-pass policy with defaults filled in for Exec and T.
template <class Exec, class T>
SinglePassPolicy resolve(SinglePassPolicy p) {
  // GPUs: staged tiles of 128 x 64 for 4-byte types and 128 x 32 for 8-byte ones (32 KiB; team
  // size lowered at launch to what fits): six teams per SM on Hopper, each asking L2 for the
  // tile a later team takes (studies/scan/NOTES.md, sessions 10-11: the staged loads kept in
  // flight together, the look-back's sleep, the unpadded layout, the prefetch). A policy that names its
  // items per thread, or a team too large for a staged tile of them, loads directly. Host
  // backends: one thread per team, 256 items, direct. Team size 0 stays "automatic" until the
  // launch.
  constexpr bool host = is_host_space_v<Exec>;
  const bool default_items = p.items_per_thread == 0;
  if (default_items) p.items_per_thread = host ? 256 : sizeof(T) <= 4 ? 64 : 32;
  if (p.load == TileLoad::automatic) {
    const bool fits = p.team_size == 0 || std::size_t(p.team_size) * p.items_per_thread * sizeof(T) <= 32768;
    p.load = !host && default_items && fits ? TileLoad::staged : TileLoad::direct;
  }
  if (p.team_size == 0 && host) p.team_size = 1;
  if (p.prefetch_tiles < -1 || p.prefetch_tiles > 65536)
    throw std::invalid_argument("kps: single_pass scan: prefetch_tiles is 0 to 65536 (-1: default), got " +
                                std::to_string(p.prefetch_tiles));
  for (int d : {p.look_back_delay_ns, p.poll_delay_ns})
    if (d < -1 || d > 1000000)
      throw std::invalid_argument("kps: single_pass scan: look-back delays are 0 to 1000000 ns (-1: default), got " +
                                  std::to_string(d));
  return p;
}

/// The largest team (in threads: Kokkos threads x lanes) the backend launches the single
/// pass with, given the team scratch a team of `team_size` threads needs (the kernel's
/// registers and that scratch decide it).
template <class Exec, class T, int Items, bool Exclusive, bool Staged, bool Probe = false>
int single_pass_limit(const Exec& exec, int team_size) {
  using Kernel = SinglePassKernel<Exec, T, Items, Exclusive, Staged, Probe>;
  const int lanes = single_pass_lanes<Exec>();
  Kokkos::TeamPolicy<Exec> probe(exec, 1, 1, lanes);
  probe.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(team_size, lanes)));
  return probe.team_size_max(Kernel{}, Kokkos::ParallelForTag()) * lanes;
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

/// Whether the backend launches the (exclusive) single pass with this policy; policies kps
/// refuses (items per thread not 8, 16, 24, 32, 48, 64 or 256, staged 256) are not launchable either.
template <class Exec, class T>
bool single_pass_launchable(const Exec& exec, SinglePassPolicy p) {
  try {
    p = resolve<Exec, T>(p);
    if (p.team_size <= 0) return p.team_size == 0;  // automatic: lowered to what fits
    if (p.team_size % single_pass_lanes<Exec>() != 0) return false;
    return with_single_pass_kernel(p, [&](auto items, auto stage) {
      return p.team_size <=
             single_pass_limit<Exec, T, decltype(items)::value, true, decltype(stage)::value>(exec, p.team_size);
    });
  } catch (const std::invalid_argument&) {
    return false;
  }
}

/// The team size (threads) the single pass launches with for a requested one (0: automatic,
/// the largest multiple of 128 up to the default that fits); throws std::invalid_argument for
/// a team size that is not a multiple of the vector lanes or over the backend's limit.
template <class Exec, class T, int Items, bool Exclusive, bool Staged, bool Probe = false>
int single_pass_team(const Exec& exec, int team_size) {
  using Kernel = SinglePassKernel<Exec, T, Items, Exclusive, Staged, Probe>;
  const int lanes = single_pass_lanes<Exec>();
  auto limit = [&](int ts) { return single_pass_limit<Exec, T, Items, Exclusive, Staged, Probe>(exec, ts); };
  if (team_size == 0) {
    int ts = single_pass_default_team<T>(Staged);
    while (ts > lanes && limit(ts) < ts) ts = ts > 128 ? ts - 128 : ts / 2;
    return ts;
  }
  if (team_size % lanes != 0)
    throw std::invalid_argument("kps: single_pass scan: team size " + std::to_string(team_size) +
                                " is not a multiple of the backend's " + std::to_string(lanes) + " vector lanes");
  const int max = limit(team_size);
  if (team_size > max)
    throw std::invalid_argument("kps: single_pass scan: team size " + std::to_string(team_size) + " with " +
                                std::to_string(Items) + " items per thread exceeds the backend's limit of " +
                                std::to_string(max) + " (team scratch " +
                                std::to_string(Kernel::scratch_bytes(team_size, lanes)) + " bytes)");
  return team_size;
}

/// Elements per tile of the probed single pass with this policy on exec (what its launch uses).
template <class Exec, class T>
std::size_t single_pass_tile_elements(const Exec& exec, SinglePassPolicy p) {
  p = resolve<Exec, T>(p);
  if (p.team_size < 0) throw std::invalid_argument("kps: single_pass scan: team size must be positive");
  return with_single_pass_kernel(p, [&](auto items, auto stage) {
    constexpr int I = decltype(items)::value;
    return std::size_t(single_pass_team<Exec, T, I, true, decltype(stage)::value, true>(exec, p.team_size)) * I;
  });
}

template <class Exec, class T, int Items, bool Exclusive, bool Staged, bool Probe>
void launch_single_pass(const Exec& exec, const T* in, T* out, std::size_t n, const SinglePassPolicy& p,
                        Workspace<Exec>& ws, std::uint64_t* probe) {
  using Kernel = SinglePassKernel<Exec, T, Items, Exclusive, Staged, Probe>;
  const int lanes = single_pass_lanes<Exec>();
  const int team_size = single_pass_team<Exec, T, Items, Exclusive, Staged, Probe>(exec, p.team_size);
  const std::size_t tile_elems = std::size_t(team_size) * Items;
  const std::size_t tiles = (n + tile_elems - 1) / tile_elems;
  if (tiles > std::size_t(2147483647))
    throw std::invalid_argument("kps: single_pass scan: too many tiles for one launch");

  // Tile status words persist between calls; the epoch tells this call's words apart.
  if (ws.status.extent(0) < tiles || ws.epoch + 1 >= (1u << 30)) {
    exec.fence();
    ws.status = {};
    ws.values = {};
    const std::size_t cap = tiles > ws.status.extent(0) ? tiles : ws.status.extent(0);
    // Made and zeroed on exec: no other instance, no other host thread's, is involved.
    ws.status = Kokkos::View<std::uint64_t*, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::status")), cap);
    ws.values = Kokkos::View<std::uint64_t*, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::values")), 4 * cap);
    ws.epoch = 0;
  }
  if (!ws.tile_counter.data())
    ws.tile_counter = Kokkos::View<unsigned int, typename Exec::memory_space>(
        Kokkos::view_alloc(exec, std::string("kps::scan::tile_counter")));
  // The look-back's default delays and the prefetch apply from single_pass_delay_tiles tiles on
  // (CUB's rule): with fewer, the tiles are all resident at once; a sleep only adds to the
  // latency, and every tile's loads are already under way.
  const bool many = tiles >= single_pass_delay_tiles;
  const int first_delay = many ? single_pass_default_delay<T> : 0;
  Kernel k{in, out, n, TileStatus<T>{ws.status.data(), ws.values.data(), ws.epoch + 1}, ws.tile_counter.data(), lanes, probe,
           unsigned(p.look_back_delay_ns >= 0 ? p.look_back_delay_ns : first_delay),
           unsigned(p.poll_delay_ns >= 0 ? p.poll_delay_ns : 0),
           unsigned(p.prefetch_tiles >= 0 ? p.prefetch_tiles : many ? single_pass_default_prefetch : 0)};
  // Every call starts its tile ids from 0 on exec's stream (a 4-byte fill): a call that
  // failed to launch can never leave the counter out of step with the next one.
  ++ws.epoch;
  Kokkos::deep_copy(exec, ws.tile_counter, 0u);
  Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(tiles), team_size / lanes, lanes);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(team_size, lanes)));
  Kokkos::parallel_for(Exclusive ? "kps::single_pass_scan::exclusive" : "kps::single_pass_scan::inclusive",
                       policy, k);
}

/// Single-pass scan of in[0, n) into out (in may equal out).
/// `probe`, when given, receives single_pass_probe_words words per tile (SinglePassKernel::
/// probe); it must hold that many per tile of single_pass_tile_elements(exec, policy) elements.
template <class Exec, class T>
void single_pass_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive,
                      SinglePassPolicy policy, Workspace<Exec>& ws, std::uint64_t* probe = nullptr) {
  if (n == 0) return;
  policy = resolve<Exec, T>(policy);
  if (policy.team_size < 0) throw std::invalid_argument("kps: single_pass scan: team size must be positive");
  with_single_pass_kernel(policy, [&](auto items, auto stage) {
    constexpr int I = decltype(items)::value;
    constexpr bool S = decltype(stage)::value;
    if (probe && !exclusive)
      throw std::invalid_argument("kps: single_pass scan: the look-back probe is built for exclusive scans only");
    if (probe)
      launch_single_pass<Exec, T, I, true, S, true>(exec, in, out, n, policy, ws, probe);
    else if (exclusive)
      launch_single_pass<Exec, T, I, true, S, false>(exec, in, out, n, policy, ws, nullptr);
    else
      launch_single_pass<Exec, T, I, false, S, false>(exec, in, out, n, policy, ws, nullptr);
  });
}

// ---------------------------------------------------------------------------------------
// Kokkos' own parallel_scan
// ---------------------------------------------------------------------------------------

template <class Exec, class T>
void kokkos_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive) {
  if (n == 0) return;
  Kokkos::parallel_scan(
      exclusive ? "kps::kokkos_scan::exclusive" : "kps::kokkos_scan::inclusive",
      Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(std::size_t i, T& update, const bool final) {
        const T v = in[i];
        if (final && exclusive) out[i] = update;
        update += v;
        if (final && !exclusive) out[i] = update;
      });
}

}  // namespace impl
}  // namespace kps
