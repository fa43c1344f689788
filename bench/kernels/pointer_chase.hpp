// bench/kernels/pointer_chase.hpp — a chain of dependent loads through memory: the latency one
// load sees at a footprint, the memory-latency probe of the scan study's bytes-in-flight model
// (Little's law: the bytes a device must keep in flight to stream at its bandwidth are its
// latency times that bandwidth).
//
// The footprint is cut into lines of chase_line_bytes, each holding one link: the index (in
// 64-bit words) of the next line's link. The chain visits every line once per cycle, in a random
// order inside blocks of chase_block_bytes (a large page), the blocks in random order: no
// prefetcher can follow it, each load touches a line no recent load touched, and a translation
// miss comes once per block visited, not once per load (a chain over random lines of a whole
// large footprint measures the page walks too). One thread follows the chain, so each load waits
// for the one before it: the time per step is the latency of the level the footprint lives in.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

namespace kps::bench {

/// A line of the chain: an H100's or H200's L2 line, two of a CPU's 64-byte lines (a CPU's
/// adjacent-line prefetch then brings nothing the chain uses next).
inline constexpr std::size_t chase_line_bytes = 128;
/// A block of the chain's order: a large page (2 MiB on x86-64 and on NVIDIA GPUs).
inline constexpr std::size_t chase_block_bytes = std::size_t(2) << 20;
inline constexpr std::size_t chase_line_words = chase_line_bytes / sizeof(std::uint64_t);

/// The order in which the chain visits the `lines` lines: the lines of each block shuffled, the
/// blocks shuffled (a pure function of `seed`). order[0] is where the chain starts; the line
/// after order[i] is order[(i + 1) % lines].
inline std::vector<std::uint64_t> chase_order(std::size_t lines, std::uint64_t seed) {
  const std::size_t per_block = std::max<std::size_t>(1, std::min(lines, chase_block_bytes / chase_line_bytes));
  const std::size_t blocks = (lines + per_block - 1) / per_block;
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> block_order(blocks);
  std::iota(block_order.begin(), block_order.end(), std::uint64_t(0));
  std::shuffle(block_order.begin(), block_order.end(), rng);
  std::vector<std::uint64_t> order;
  order.reserve(lines);
  std::vector<std::uint64_t> in_block;
  for (std::uint64_t b : block_order) {
    const std::uint64_t first = b * per_block;
    const std::uint64_t count = std::min<std::uint64_t>(per_block, lines - first);
    in_block.resize(count);
    std::iota(in_block.begin(), in_block.end(), first);
    std::shuffle(in_block.begin(), in_block.end(), rng);
    order.insert(order.end(), in_block.begin(), in_block.end());
  }
  return order;
}

/// Follows the chain `steps` links from where it stands (`at`, a word index) and leaves it there:
/// one thread, launched as a range of one.
template <class Exec>
struct PointerChase {
  Kokkos::View<const std::uint64_t*, typename Exec::memory_space> links;
  Kokkos::View<std::uint64_t, typename Exec::memory_space> at;
  std::int64_t steps = 0;

  KOKKOS_INLINE_FUNCTION void operator()(int) const {
    std::uint64_t p = at();
    for (std::int64_t s = 0; s < steps; ++s) p = links(p);
    at() = p;
  }
};

/// The chain followed under load: team 0's first thread follows it `steps` links (as PointerChase
/// does) while every other team copies its share of `src` into `dst`, pass after pass, until the
/// chain is done: the latency of a load queued behind a memory that streams (Little's law at a
/// saturated memory asks for this latency, not the idle one). The chain times itself: its thread
/// reads the space's clock (Kokkos::Impl::clock_tic: an SM's cycle counter on a GPU, the time-stamp
/// counter on x86) before its first load and after its last (ticks), so the call's other costs (the
/// launch, teams that start before or after it, the copy's tail) are not the chain's; and the copy
/// counts the elements it moved while the chain ran (`during`: blocks begun between the chain's
/// start and its end). A copying team does not wait for the chain:
/// it copies from its start, one thread reading the chain's flags before each block of `check`
/// elements per thread and handing them to its team (Kokkos::single), until the chain is done or
/// after `max_passes` passes (where the space did not run team 0 beside it, `during` stays 0 and
/// the call is not a loaded one). The H200's first two runs timed the call and had the copiers
/// wait for the chain's start for up to 2^24 polls: each call took 2.9-5.1 s, 44-77 us per link,
/// with 40-63 GB/s of copy, which the call's time could not tell from a copy waiting to start.
template <class Exec>
struct LoadedChase {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  using space = typename Exec::memory_space;
  Kokkos::View<const std::uint64_t*, space> links;
  Kokkos::View<std::uint64_t, space> at;
  Kokkos::View<const double*, space> src;
  Kokkos::View<double*, space> dst;
  Kokkos::View<int*, space> flags;             // [0] the chain started, [1] the chain is done
  Kokkos::View<unsigned long long, space> during;
  Kokkos::View<std::uint64_t*, space> ticks;   // [0] before the chain's first load, [1] after its last
  std::int64_t steps = 0;
  int max_passes = 4096;
  int check = 256;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    if (m.league_rank() == 0) {
      if (m.team_rank() != 0) return;
      kps::impl::store_relaxed(&flags(0), 1);
      Kokkos::memory_fence();
      const std::uint64_t start = Kokkos::Impl::clock_tic();
      std::uint64_t p = at();
      for (std::int64_t s = 0; s < steps; ++s) p = links(p);
      at() = p;
      const std::uint64_t end = Kokkos::Impl::clock_tic();
      ticks(0) = start;
      ticks(1) = end;
      Kokkos::memory_fence();
      kps::impl::store_relaxed(&flags(1), 1);
      return;
    }
    const std::size_t n = src.extent(0), copiers = std::size_t(m.league_size() - 1);
    const std::size_t k = std::size_t(m.league_rank() - 1);
    const std::size_t begin = n * k / copiers, end = n * (k + 1) / copiers;
    const std::size_t team = std::size_t(m.team_size()), block = team * std::size_t(check);
    unsigned long long mine_during = 0;
    bool done = false;
    for (int pass = 0; pass < max_passes && !done; ++pass)
      for (std::size_t b = begin; b < end && !done; b += block) {
        int state = 0;  // 0: the chain has not started, 1: it runs, 2: it is done
        Kokkos::single(
            Kokkos::PerTeam(m),
            [&](int& st) {
              st = kps::impl::load_relaxed(&flags(1)) != 0 ? 2 : kps::impl::load_relaxed(&flags(0)) != 0 ? 1 : 0;
            },
            state);
        done = state == 2;
        if (done) break;
        const std::size_t stop = b + block < end ? b + block : end;
        for (std::size_t i = b + std::size_t(m.team_rank()); i < stop; i += team) dst(i) = src(i);
        if (state == 1) mine_during += (stop - b + team - 1 - std::size_t(m.team_rank())) / team;
      }
    Kokkos::atomic_add(&during(), mine_during);
  }
};

/// Reads the space's clock (Kokkos::Impl::clock_tic) until `ticks` have passed; returns the ticks
/// that passed, 0 where the clock does not advance (a backend without one).
KOKKOS_INLINE_FUNCTION std::uint64_t spin_ticks(std::uint64_t ticks) {
  const std::uint64_t t0 = Kokkos::Impl::clock_tic();
  std::uint64_t t = t0;
  for (long spins = 0; t - t0 < ticks; ++spins) {
    t = Kokkos::Impl::clock_tic();
    if (t == t0 && spins > (1 << 20)) return 0;
  }
  return t - t0;
}

/// Ticks per second of the clock LoadedChase reads, over about `ticks` ticks (spin_ticks): on a
/// host space on the calling thread beside the steady clock (both count wall time: the thread's
/// scheduling does not enter), on a device in one thread of a call the host times (a launch of
/// microseconds against milliseconds). 0 where the space's clock does not advance.
template <class Exec>
double clock_tic_rate(const Exec& exec, std::uint64_t ticks) {
  std::uint64_t passed = 0;
  double seconds = 0;
  if constexpr (kps::impl::is_host_space_v<Exec>) {
    const auto c0 = std::chrono::steady_clock::now();
    passed = spin_ticks(ticks);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
  } else {
    Kokkos::View<std::uint64_t, typename Exec::memory_space> on_device("kps::bench::clock_ticks");
    exec.fence();
    Kokkos::Timer timer;
    Kokkos::parallel_for(
        "kps::bench::clock_rate", Kokkos::RangePolicy<Exec>(exec, 0, 1),
        KOKKOS_LAMBDA(int) { on_device() = spin_ticks(ticks); });
    exec.fence();
    seconds = timer.seconds();
    Kokkos::deep_copy(passed, on_device);
  }
  return passed > 0 && seconds > 0 ? double(passed) / seconds : 0.0;
}

/// Position i of the chain links its line to the line of position i + 1 (the last to the first).
template <class Exec>
struct ChaseLinks {
  Kokkos::View<std::uint64_t*, typename Exec::memory_space> links;
  Kokkos::View<const std::uint64_t*, typename Exec::memory_space> path;
  std::size_t lines = 0;

  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const {
    links(path(i) * chase_line_words) = path(i + 1 < lines ? i + 1 : 0) * chase_line_words;
  }
};

/// The links of a chain in the order `order` (chase_order), written into `links` (the footprint's
/// words; only each line's first word is a link) on exec, position by position along the chain:
/// the lines the chain visits first are written first, so where the footprint exceeds the caches
/// they are the ones evicted by the time the chain starts (a footprint written line by line leaves
/// its last lines cached wherever the chain meets them).
template <class Exec>
void write_chase(const Exec& exec, const Kokkos::View<std::uint64_t*, typename Exec::memory_space>& links,
                 const std::vector<std::uint64_t>& order) {
  const std::size_t lines = order.size();
  Kokkos::View<std::uint64_t*, typename Exec::memory_space> path(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::chase_order"), lines);
  Kokkos::deep_copy(exec, path,
                    Kokkos::View<const std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        order.data(), lines));
  Kokkos::parallel_for("kps::bench::chase_links", Kokkos::RangePolicy<Exec>(exec, 0, lines),
                       ChaseLinks<Exec>{links, path, lines});
  exec.fence();
}

}  // namespace kps::bench
