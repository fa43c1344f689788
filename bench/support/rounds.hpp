// bench/support/rounds.hpp — the interleaved rounds of a benchmark (bench/support/common.cpp,
// timed_rounds): how many a benchmark runs, and the order of the calls in each, a Williams
// design, the Latin square that crossover trials use to balance first-order carry-over. Pure
// functions, tested on the host (test/test_rounds.cpp).
#pragma once

#include <cstddef>

namespace kps::bench {

/// Rounds of one full design for `calls` calls: `calls` where it is even, twice that where it
/// is odd (the second half runs the first half's rounds backwards).
constexpr std::size_t design_rounds(std::size_t calls) { return calls % 2 ? 2 * calls : calls; }

/// The call at position j of round r. Over design_rounds(calls) rounds every call takes every
/// position equally often and follows every other call equally often (once where `calls` is
/// even, twice where it is odd). A rotation of one fixed order (round r: r, r + 1, ...) gives
/// the first but not the second: each call always follows the same one, and whatever that
/// call leaves behind (state of the driver, the host, the device) lands on it in every round.
/// Row 0 is 0, 1, n-1, 2, n-2, ...; row r adds r to each entry, modulo n.
constexpr std::size_t round_order(std::size_t j, std::size_t r, std::size_t calls) {
  if (calls < 2) return 0;
  const std::size_t row = r % design_rounds(calls);
  const std::size_t pos = row < calls ? j : calls - 1 - j;
  const std::size_t first = pos == 0 ? 0 : (pos % 2 ? (pos + 1) / 2 : calls - pos / 2);
  return (first + row) % calls;
}

/// How many rounds a benchmark runs: at least `min`; for calls that move fewer bytes than
/// `short_bytes`, proportionally more, up to `max` (a median of 15 calls of 20 us moves with one
/// slow wake-up of the host, one of 15 calls of a few ms does not); `device_clock`: the rounds
/// are repeated with the device's own clock where the backend has one (CUDA events).
struct Rounds {
  int min = 15;
  int max = 15;
  double short_bytes = 0;
  bool device_clock = false;
  /// Calls of at least this many bytes (0: none) run one Latin square of rounds, `calls` of them
  /// (every call in every place once: the first half of an odd count's design), at least
  /// long_min: a host's scans of 2^30 elements take a second or more a call, where a median of a
  /// few rounds is steady to a fraction of a percent and the whole design (2 x 7 rounds of 7
  /// calls, then rounded up past 15) ran past a batch slot.
  double long_bytes = 0;
  int long_min = 5;
};

/// `r`'s rounds for calls of `bytes` each, rounded up to whole designs of `calls` calls (so
/// that every call takes every place and follows every other call equally often); long calls
/// (Rounds::long_bytes) whole Latin squares.
constexpr int rounds_for(const Rounds& r, double bytes, std::size_t calls) {
  if (r.long_bytes > 0 && bytes >= r.long_bytes && calls > 0) {
    const int c = static_cast<int>(calls);
    return (r.long_min + c - 1) / c * c;
  }
  double want = r.min;
  if (bytes > 0 && r.short_bytes > bytes) want = r.min * (r.short_bytes / bytes);
  if (want > r.max) want = r.max;
  if (want < r.min) want = r.min;
  const int d = static_cast<int>(design_rounds(calls));
  const int n = static_cast<int>(want + 0.999999);
  return (n + d - 1) / d * d;
}

}  // namespace kps::bench
