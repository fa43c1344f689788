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
#include "kps/impl/access.hpp"
#include "kps/operators.hpp"
#include "kps/scan/look_back.hpp"
#include "kps/scan/operation.hpp"
#include "kps/scan/single_pass.hpp"
#include "kps/scan/tile_status.hpp"

namespace kps::impl {

/// Independent partial sums of the first pass: enough adds in flight to cover a floating-point
/// add's latency (4 cycles, two per cycle on current CPUs), so the pass runs at the memory's pace.
inline constexpr int cached_sum_accumulators = 8;

/// A signed integer's bits as its unsigned type (cached_sum's sums of 1- and 2-byte integers).
template <class T>
struct ToUnsigned {
  KOKKOS_INLINE_FUNCTION std::make_unsigned_t<T> operator()(const T& v) const { return std::make_unsigned_t<T>(v); }
};

/// in[first, first + count) reduced under op (the first pass of a cached tile). A commutative
/// operator (kps::plus, the built-in ones) interleaves cached_sum_accumulators partial results
/// element by element; any other keeps each partial result on a contiguous eighth of the range and
/// combines them in order.
template <class T, class Op, class In>
KOKKOS_INLINE_FUNCTION T cached_sum(const Op& op, const In& in, std::size_t first, std::size_t count) {
  constexpr int A = cached_sum_accumulators;
  const T e = operator_traits<Op, T>::identity(op);
  const auto src = shifted(in, first);
  if constexpr (is_plus_v<Op, T> && std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) < sizeof(int)) {
    // A sum of signed 1- and 2-byte integers in their unsigned type: the same bits (both wrap),
    // and not the loop GCC 12's vectorizer mistranslates at -O3 where it inlines it with a known
    // count (eight interleaved int8 sums: wrong totals, right at -O2 or with -fwrapv; reproduced
    // without kps by that loop alone).
    using U = std::make_unsigned_t<T>;
    return T(cached_sum<U>(op, Mapped<In, ToUnsigned<T>>{in, {}}, first, count));
  } else {
  T s[A];
  for (int k = 0; k < A; ++k) s[k] = e;
  if constexpr (is_plus_v<Op, T> || operator_traits<Op, T>::commutative) {
    std::size_t i = 0;
    for (; i + A <= count; i += A)
      for (int k = 0; k < A; ++k) s[k] = op(s[k], T(impl::load(src, i + k)));
    for (; i < count; ++i) s[0] = op(s[0], T(impl::load(src, i)));
  } else {
    const std::size_t part = count / A;
    for (std::size_t j = 0; j < part; ++j)
      for (int k = 0; k < A; ++k) s[k] = op(s[k], T(impl::load(src, std::size_t(k) * part + j)));
    for (std::size_t i = A * part; i < count; ++i) s[A - 1] = op(s[A - 1], T(impl::load(src, i)));
  }
  T total = e;
  for (int k = 0; k < A; ++k) total = op(total, s[k]);
  return total;
  }
}

/// The sum of in[0, count): kps::plus on contiguous memory, the form the tests call.
template <class T>
KOKKOS_INLINE_FUNCTION T cached_sum(const T* in, std::size_t count) {
  return cached_sum<T>(plus{}, in, 0, count);
}

/// Elements of a block of cached_scan: the operations of one block's own scan do not wait on the
/// running total, so eight blocks' worth run while one operation on it completes.
inline constexpr std::size_t cached_scan_block = 8;

/// out[first, first + count) = the scan under op of in[first, first + count) after `offset` (the
/// second pass, or the only one); returns op(offset, their reduction). Blocks of cached_scan_block
/// elements are scanned among themselves, and the range's running value is kept apart from
/// `offset`, combined once per element: one dependent operation per block, not per element.
/// Floating point: a 4-cycle add would otherwise set the thread's pace, and small elements are not
/// lost against a large prefix (a float prefix of 2^28 has an ulp of 16: added one by one,
/// elements below 8 would vanish, and the range's sum with them). Integers (the same sums, in
/// another order): the one-element loop's pace was its code's place in the program, not its adds:
/// on the H200 node's Xeon the same four instructions ran one element per cycle or one per two,
/// from build to build (kps' copy and the one-thread loop's in turn,
/// results/h200-node-serial/experiments/scan-loop-placement); a block's eight independent adds
/// and one loop branch per eight elements are to leave the pace to the loads and stores.
/// Streaming: each element (a block of 1- and 2-byte values) through BackendStore, drained at the
/// end. `in` may be `out`: an element is read before it is written. cached_scan runs the backend's
/// vector form of the range's scan instead where it has one for T and op (BackendRangeScan: sums
/// of float, the integers' minimum and maximum on x86 hosts).
template <class Exec, bool Exclusive, bool Streaming, class T, class Op, class In, class Out>
KOKKOS_INLINE_FUNCTION T cached_scan_elements(const Op& op, const In& in, const Out& out, std::size_t first,
                                              std::size_t count, T offset) {
  constexpr bool stream = Streaming && contiguous_v<Out, T>;
  const auto src = shifted(in, first);
  const auto dst = shifted(out, first);
  const auto put = [&](std::size_t j, T v) {
    if constexpr (stream)
      BackendStore<Exec>::element(dst + j, v);
    else
      impl::store(dst, j, v);
  };
  constexpr std::size_t B = cached_scan_block;
  // An exact operator other than the sum (minimum, maximum, bitwise ones on integers: every
  // association gives the same bits) joins offset and the running value once per block, and each
  // element takes one operation more instead of two: on the 2-core development machine a maximum
  // of int64 spent about twice the sum's instructions per element (a compare and a move for
  // each operation). The sums keep their code.
  constexpr bool join_first = operator_traits<Op, T>::exact && !is_plus_v<Op, T>;
  std::size_t i = 0;
  T acc = operator_traits<Op, T>::identity(op);  // the range's own running value
  for (; i + B <= count; i += B) {
    T local[B];
    T run = operator_traits<Op, T>::identity(op);
    for (std::size_t k = 0; k < B; ++k) {
      const T x = impl::load(src, i + k);
      local[k] = Exclusive ? run : T(op(run, x));
      run = op(run, x);
    }
    if constexpr (join_first) {
      const T base = T(op(offset, acc));
      if constexpr (stream && BackendStore<Exec>::template blocks<T, B>)
        BackendStore<Exec>::template block<B>(dst + i, local, [&](const T& l) { return T(op(base, l)); });
      else
        for (std::size_t k = 0; k < B; ++k) put(i + k, T(op(base, local[k])));
    } else if constexpr (stream && BackendStore<Exec>::template blocks<T, B>) {
      BackendStore<Exec>::template block<B>(dst + i, local, [&](const T& l) { return T(op(offset, T(op(acc, l)))); });
    } else {
      for (std::size_t k = 0; k < B; ++k) put(i + k, T(op(offset, T(op(acc, local[k])))));
    }
    acc = op(acc, run);
  }
  for (; i < count; ++i) {
    const T x = impl::load(src, i);
    put(i, T(op(offset, (Exclusive ? acc : T(op(acc, x))))));
    acc = op(acc, x);
  }
  if constexpr (stream) BackendStore<Exec>::drain();
  return T(op(offset, acc));
}

template <class Exec, bool Exclusive, bool Streaming, class T, class Op, class In, class Out>
KOKKOS_INLINE_FUNCTION T cached_scan(const Op& op, const In& in, const Out& out, std::size_t first, std::size_t count,
                                     T offset) {
  if constexpr (is_plus_v<Op, T> && contiguous_v<In, T> && contiguous_v<Out, T> &&
                BackendRangeScan<Exec>::template vector<T>) {
    return BackendRangeScan<Exec>::template scan<Exclusive, Streaming>(in + first, out + first, count, offset);
  } else {
    if constexpr (contiguous_v<In, T> && contiguous_v<Out, T> && BackendRangeScan<Exec>::template minmax<T, Op>)
      if (BackendRangeScan<Exec>::minmax_usable())
        return BackendRangeScan<Exec>::template scan_minmax<Exclusive, Streaming>(in + first, out + first, count,
                                                                                  offset, op);
    return cached_scan_elements<Exec, Exclusive, Streaming>(op, in, out, first, count, offset);
  }
}

/// The sum's form on contiguous memory, as the tests call it.
template <class Exec, bool Exclusive, bool Streaming, class T>
KOKKOS_INLINE_FUNCTION T cached_scan(const T* in, T* out, std::size_t count, T offset) {
  return cached_scan<Exec, Exclusive, Streaming>(plus{}, in, out, 0, count, offset);
}

template <class Exec, class T, bool Exclusive, bool Streaming, class Probe = NoProbe, class P = ScanProblem<T>>
struct CachedSinglePassKernel : OpHolder<typename P::op_type>,
                                InitHolder<typename P::init_type>,
                                ScanFlags<P::run_time_flags> {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Op = typename P::op_type;
  static constexpr bool look_back_scratch = look_back_scratch_v<Op, T, P::run_time_flags>;
  typename P::in_type in{};
  typename P::out_type out{};
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

  CachedSinglePassKernel() = default;
  CachedSinglePassKernel(const Op& op, const typename P::init_type& init)
      : OpHolder<Op>(op), InitHolder<typename P::init_type>(init) {}

  /// Team scratch: a total per thread, a total per Kokkos thread and the tile's prefix; the
  /// look-back's where it has one.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t head_bytes(int threads, int lanes) {
    return (sizeof(T) * (std::size_t(threads) + std::size_t(threads / lanes) + 1) + 15) / 16 * 16;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes(int threads, int lanes) {
    if constexpr (look_back_scratch)
      return head_bytes(threads, lanes) + LookBackScratch<T>::bytes(lanes) + 16;
    else
      return head_bytes(threads, lanes);
  }

  /// cached_scan of [first, first + count) after offset, exclusive or inclusive as the kernel scans.
  KOKKOS_INLINE_FUNCTION T scan_range(const Op& op, std::size_t first, std::size_t count, T offset) const {
    if constexpr (P::run_time_flags) {
      if (this->exclusive_flag) return cached_scan<Exec, true, Streaming>(op, in, out, first, count, offset);
      return cached_scan<Exec, false, Streaming>(op, in, out, first, count, offset);
    } else {
      (void)op;
      return cached_scan<Exec, Exclusive, Streaming>(in + first, out + first, count, offset);
    }
  }

  /// Tile j's aggregate as its own team makes it (each thread's range reduced by cached_sum, the
  /// threads' totals in order; one-lane threads): what look_back_or_add adds for a predecessor
  /// still unpublished, bit for bit the value that predecessor publishes (tile 0: its inclusive
  /// prefix, after the initial value).
  KOKKOS_INLINE_FUNCTION T late_aggregate(long j, int threads, std::size_t tile_elems) const {
    const Op& op = this->scan_op();
    const T e = operator_traits<Op, T>::identity(op);
    const std::size_t first = std::size_t(j) * tile_elems;
    T agg = e;
    for (int r = 0; r < threads; ++r) {
      const std::size_t f = first + std::size_t(r) * items;
      const std::size_t c = f >= n ? std::size_t(0) : n - f < items ? n - f : items;
      agg = op(agg, op(e, cached_sum<T>(op, in, f, c)));
    }
    // Tile 0 publishes its inclusive prefix, the initial value's too: so stands it in.
    return j == 0 ? with_init(op, this->scan_init(), agg) : agg;
  }

  /// The look-back of a team of one-lane threads (a CPU's): the predecessors' status words one at
  /// a time, nearest first, as kps/scan/look_back.hpp walks them, except that a predecessor still
  /// unpublished after spin_rounds polls is reduced here from its input instead of waited for
  /// (its thread may be descheduled: more threads than cores, or a core shared with another
  /// process, where waiting for it costs a scheduler's time slice per tile). In place its input
  /// may already be partly its output: there the walk waits, yielding its core between polls.
  /// Publishes the tile's aggregate first and its inclusive prefix last; returns its exclusive
  /// prefix. Deterministic: the walk finds the nearest inclusive prefix, then folds the tiles
  /// after it left to right (kps/scan/look_back.hpp: fold_forward), each late one's aggregate
  /// made as its team makes it (late_aggregate).
  template <class ProbeTile>
  KOKKOS_INLINE_FUNCTION T look_back_or_add(long tile, T aggregate, int threads, std::size_t tile_elems,
                                            ProbeTile& probed) const {
    const Op& op = this->scan_op();
    if (tile == 0) {
      tiles.publish(0, tile_inclusive, with_init(op, this->scan_init(), aggregate));
      probed.done(0, 0);
      return first_prefix<T>(op, this->scan_init());
    }
    tiles.publish(tile, tile_aggregate, aggregate);
    probed.aggregate_published();
    // Tile j's status, waited for where it may not be added here; kind 0: still late.
    [[maybe_unused]] const auto status = [&](long j, T& v) {
      std::uint32_t kind = tiles.read(j, v);
      // In place, a late tile's input may be half overwritten by its own scan: wait for it then.
      for (unsigned round = 0; kind == 0 && (round < spin_rounds || address(in) == address(out)); ++round) {
        probed.waited();
        BackendWait<Exec>::pause(round);
        kind = tiles.read(j, v);
      }
      return kind;
    };
    if constexpr (!P::run_time_flags) {
      // Today's sums: a late predecessor's sum over its whole tile.
      (void)threads;
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
    } else {
      const bool deterministic = this->is_deterministic();
      T prefix = operator_traits<Op, T>::identity(op);
      long j = tile - 1;
      for (; j >= 0; --j) {
        T v = operator_traits<Op, T>::identity(op);
        probed.window_started();
        const std::uint32_t kind = status(j, v);
        probed.window_complete();
        if (kind == tile_inclusive) {
          if (!deterministic) prefix = op(v, prefix);
          break;
        }
        if (!deterministic) prefix = op(kind == 0 ? late_aggregate(j, threads, tile_elems) : v, prefix);
      }
      if (deterministic) {
        // Left to right from the inclusive prefix found (tile 0's is always published).
        prefix = operator_traits<Op, T>::identity(op);
        for (long k = j < 0 ? 0 : j; k < tile; ++k) {
          T v = operator_traits<Op, T>::identity(op);
          const std::uint32_t kind = status(k, v);
          prefix = kind == tile_inclusive ? v : op(prefix, kind == 0 ? late_aggregate(k, threads, tile_elems) : v);
        }
      }
      tiles.publish(tile, tile_inclusive, op(prefix, aggregate));
      probed.done(tile, tile - (j < 0 ? 0 : j));
      return prefix;
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const Op& op = this->scan_op();
    const T e = operator_traits<Op, T>::identity(op);
    const int warp = team.team_rank();
    const int warps = team.team_size();
    const int threads = warps * lanes;
    char* const scratch = static_cast<char*>(team.team_scratch(0).get_shmem(scratch_bytes(threads, lanes)));
    T* const thread_totals = reinterpret_cast<T*>(scratch);
    T* const warp_totals = thread_totals + threads;
    T* const tile_prefix_slot = warp_totals + warps;
    [[maybe_unused]] LookBackScratch<T> look_back_space{};
    if constexpr (look_back_scratch)
      look_back_space = LookBackScratch<T>::at(
          reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(scratch) + head_bytes(threads, lanes) + 15) / 16 * 16),
          lanes);
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

      if (threads == 1 && Probe::Tile::publish_inclusive && !this->is_deterministic()) {
        // The prefix may be known already: then one pass, and the tile publishes its inclusive
        // prefix. (Deterministic: not so, as the prefix it published would hold its sum in the
        // scan's order, not its aggregate's.)
        T prefix = first_prefix<T>(op, this->scan_init());
        const bool known = tile == 0 || tiles.read(tile - 1, prefix) == tile_inclusive;
        if (known) {
          const T inclusive = scan_range(op, tile_first, count(0), prefix);
          probed.aggregate_published();
          tiles.publish(tile, tile_inclusive, inclusive);
          probed.done(tile, tile == 0 ? 0 : 1);
          continue;
        }
      }

      LaneArray<Exec, T> thread_total, thread_prefix;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        const int rank = warp * lanes + l;
        if constexpr (P::run_time_flags)
          thread_total[l] = cached_sum<T>(op, in, first(rank), count(rank));
        else
          thread_total[l] = cached_sum(in + first(rank), count(rank));
      });
      T warp_prefix = e;
      const T aggregate = scan_thread_totals<Exec>(team, lanes, thread_total, thread_prefix, thread_totals,
                                                   warp_totals, warp_prefix, op);
      probed.totals_known();
      if (warp == 0) {
        const T p = lanes == 1 && Probe::Tile::publish_inclusive
                        ? look_back_or_add(tile, aggregate, threads, tile_elems, probed)
                        : look_back<Exec>(team, lanes, tiles, tile, aggregate, delay, probed, op, this->scan_init(),
                                          look_back_space, this->deterministic());
        Kokkos::single(Kokkos::PerThread(team), [&]() { *tile_prefix_slot = p; });
      }
      team.team_barrier();
      const T tile_prefix = *tile_prefix_slot;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int l) {
        const int rank = warp * lanes + l;
        if constexpr (P::run_time_flags)
          scan_range(op, first(rank), count(rank), T(op(op(tile_prefix, warp_prefix), thread_prefix[l])));
        else
          scan_range(op, first(rank), count(rank), T(tile_prefix + warp_prefix + thread_prefix[l]));
      });
      // Every thread has read the tile's prefix and the warps' totals before the next tile writes them.
      team.team_barrier();
    }
  }
};

}  // namespace kps::impl
