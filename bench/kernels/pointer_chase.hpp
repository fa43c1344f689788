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
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <Kokkos_Core.hpp>

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
