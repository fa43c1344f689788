// kps_models/latency_model.hpp — the latency-hiding model of the cos-loop study (seeds 001 and 003),
// plain C++ (no Kokkos, no GPU): predicts the time of a launch of kps::bench::cos_loop from two
// calibration points and the device's shape.
//
// A scheduler (SM sub-partition) holds n warps of one kernel. Every loop iteration of a warp
// needs D seconds of the scheduler's bottleneck resource and waits Z seconds more on its
// dependent latency. The time per iteration C(n) is bounded below by both limits:
//     C(n) >= Z + D   (the dependent-chain latency, what one warp alone measures) and
//     C(n) >= n D    (throughput: n warps share the bottleneck),
// and how it goes from one to the other depends on what the bottleneck is (Saturation):
//   - queueing: the issue port (one warp instruction per cycle), with the dependent chain made
//     of many short steps (cosf: 38 instructions, ~25 dependent FMA-pipe steps of 4-6 cycles).
//     Other warps fill the short gaps unevenly, so the knee is smooth: a closed queueing network
//     — n customers, one queue (demand D) and one delay (Z) — solved exactly by mean value
//     analysis.
//   - bound: one pipe with a fixed occupancy per instruction (__cosf: MUFU.COS and F2I on the
//     16-lane special-function pipe, 8 cycles per warp instruction each) behind one long
//     latency. The demand is deterministic and the knee sharp: C(n) = max(Z + D, n D).
// Independent chains inside a thread (ILP) are part of the kernel: they change its Z and D
// (measured: two cosf chains in one warp take 1.7x one chain's time, not the 1.1x that two
// warps would — a warp issues in order and every cosf call ends its basic block with the
// slow-path branch, so the compiler cannot interleave the chains), so each kernel is
// calibrated on its own.
// Both take their two constants from the same two calibration points: one warp alone
// (C(1) = Z + D) and one saturated launch (C(n) at large n).
//
// Blocks go round-robin over the SMs, at most `blocks_per_sm` at a time (from the occupancy
// model); the warps of an SM's blocks, taken in launch order, go round-robin over the SM's
// schedulers (SM warp j to scheduler j mod schedulers: up to the schedulers' names, the warps
// per block on each scheduler that the latency study's %warpid probe measured on an H100), so
// the busiest scheduler of an SM holding b blocks of w warps has ceil(b w / schedulers) warps. Waves run one after the other; the launch takes the
// sum of its waves' times.
//
// Co-resident blocks (BlockArbitration). With `equal`, a scheduler's warps are one pool
// whatever their block: every warp takes C(n). With `oldest_first`, the scheduler gives its
// bottleneck to the warps of the block launched first (the oldest), then to the next, and so
// on; the warps of one block, launched together, share in step as above. Block k then sees the
// bottleneck less the utilization U_j = n_j D / C_j of the older blocks j < k, a capacity
// a_k = 1 - sum U_j (the "shadow server" of priority queueing):
//   - queueing: C_k = MVA of its n_k warps with demand D / a_k (older warps interfere at
//     random moments, so a younger warp's every step is slowed);
//   - bound: C_k = max(Z + D, n_k D / a_k) (a deterministic pipe: a younger warp that fits in
//     the older block's idle slots waits for nothing; only its throughput bound shrinks).
// The oldest block runs as if alone and finishes first; the younger ones then run with the
// pipe to themselves, fewer warps than it takes to hide the latency. The scheduler's time is
// that of its last warp (phases: rates recomputed each time a block's warps finish), and the
// SM's that of its slowest scheduler. One block per SM gives the same C(n) as `equal`; at
// saturation the total work is the same, so the loss is the tail where only younger blocks
// run. No constant beyond Z and D: the same two calibration points. Where the older blocks
// alone barely fill the bottleneck (just past the knee, (Z + D) / D warps) it overestimates:
// there the younger warps take more than the leftover (H100: up to +24 %, studies/latency).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kps::models {

/// How a scheduler shares its bottleneck between the warps of co-resident blocks.
enum class BlockArbitration {
  equal,         ///< one pool: every warp of the scheduler takes C(n), n = all its warps
  oldest_first,  ///< the oldest block's warps first, the younger ones get what it leaves
};

inline const char* to_string(BlockArbitration a) {
  return a == BlockArbitration::oldest_first ? "oldest_first" : "equal";
}

/// The device's shape as the model sees it.
struct LatencyDevice {
  int sms = 0;                    ///< streaming multiprocessors
  int schedulers_per_sm = 4;      ///< warp schedulers (sub-partitions) per SM
  int warp_size = 32;
  BlockArbitration arbitration = BlockArbitration::equal;  ///< between co-resident blocks
};

/// How the time per iteration goes from the latency bound to the throughput bound.
enum class Saturation {
  queueing,  ///< smooth: mean value analysis (bottleneck: the issue port, many short steps)
  bound,     ///< sharp: max(Z + D, n D) (bottleneck: one fixed-occupancy pipe)
};

inline const char* to_string(Saturation s) { return s == Saturation::bound ? "bound" : "queueing"; }

/// Calibrated constants, in seconds per chain iteration.
struct LatencyModel {
  double latency = 0;  ///< Z: dependent latency not covered by the chain's own demand
  double issue = 0;    ///< D: the bottleneck's time for one chain iteration on one scheduler
  Saturation saturation = Saturation::queueing;
};

/// A launch to predict.
struct LatencyLaunch {
  long long league = 1;
  int team_size = 32;
  long long iterations = 0;
  int blocks_per_sm = 1;  ///< resident blocks per SM (occupancy model)
};

/// Time per iteration of each of n warps sharing a scheduler (n >= 1).
inline double mva_iteration_time(const LatencyModel& m, int n) {
  if (n < 1) throw std::invalid_argument("kps latency model: at least one customer");
  if (m.saturation == Saturation::bound) return std::max(m.latency + m.issue, n * m.issue);
  double queue = 0, response = 0;
  for (int k = 1; k <= n; ++k) {
    response = m.issue * (1 + queue);
    const double throughput = k / (m.latency + response);
    queue = throughput * response;
  }
  return m.latency + response;
}

/// Fits Z and D to two calibration points: t1 = time per iteration of one customer alone,
/// tn = time per iteration with n customers (n > 1, saturated). Needs tn > t1.
inline LatencyModel calibrate_latency_model(double t1, int n, double tn, Saturation saturation = Saturation::queueing) {
  if (!(t1 > 0) || n < 2 || !(tn > t1))
    throw std::invalid_argument("kps latency model: calibration needs t1 > 0, n >= 2 and tn > t1 (got t1 = " +
                                std::to_string(t1) + ", n = " + std::to_string(n) + ", tn = " + std::to_string(tn) + ")");
  if (saturation == Saturation::bound) {
    if (tn / n >= t1) throw std::invalid_argument("kps latency model: tn is beyond n x t1, no latency-bound model fits");
    return LatencyModel{t1 - tn / n, tn / n, Saturation::bound};
  }
  // C(n) grows monotonically with D for fixed Z + D = t1: bisect on D in (0, t1].
  double lo = 0, hi = t1;
  if (mva_iteration_time(LatencyModel{0, t1}, n) < tn)
    throw std::invalid_argument("kps latency model: tn is beyond n x t1, no latency-bound model fits");
  for (int i = 0; i < 200; ++i) {
    const double d = 0.5 * (lo + hi);
    (mva_iteration_time(LatencyModel{t1 - d, d}, n) < tn ? lo : hi) = d;
  }
  const double d = 0.5 * (lo + hi);
  return LatencyModel{t1 - d, d};
}

/// Warps on the busiest scheduler of an SM holding `blocks` blocks of `team_size` threads.
inline int busiest_scheduler_warps(const LatencyDevice& dev, long long blocks, int team_size) {
  const long long warps = blocks * ((team_size + dev.warp_size - 1) / dev.warp_size);
  return static_cast<int>((warps + dev.schedulers_per_sm - 1) / dev.schedulers_per_sm);
}

/// Warps of each of `blocks` co-resident blocks of `team_size` threads (in launch order) that
/// land on scheduler `scheduler` of their SM: the SM's warps, block after block, go round-robin
/// over the schedulers (SM warp j to scheduler j mod schedulers_per_sm).
inline std::vector<int> scheduler_block_warps(const LatencyDevice& dev, int blocks, int team_size, int scheduler) {
  if (blocks < 1 || team_size < 1 || dev.schedulers_per_sm < 1 || dev.warp_size < 1 || scheduler < 0 ||
      scheduler >= dev.schedulers_per_sm)
    throw std::invalid_argument("kps latency model: blocks, team size, schedulers and warp size must be >= 1 and the "
                                "scheduler one of the SM's");
  const long long w = (team_size + dev.warp_size - 1) / dev.warp_size, s = dev.schedulers_per_sm;
  std::vector<int> out(static_cast<std::size_t>(blocks));
  for (int k = 0; k < blocks; ++k) {
    // warps j in [k w, (k + 1) w) with j mod s == scheduler
    const auto upto = [&](long long end) { return end <= scheduler ? 0 : (end - scheduler + s - 1) / s; };
    out[static_cast<std::size_t>(k)] = static_cast<int>(upto((k + 1) * w) - upto(k * w));
  }
  return out;
}

/// Time per iteration of each of n warps of one block when the older blocks leave it the
/// fraction `capacity` (0..1] of the scheduler's bottleneck (see BlockArbitration).
inline double shadow_iteration_time(const LatencyModel& m, int n, double capacity) {
  if (n < 1 || !(capacity > 0) || capacity > 1)
    throw std::invalid_argument("kps latency model: at least one warp and a capacity in (0, 1]");
  if (capacity == 1) return mva_iteration_time(m, n);
  if (m.saturation == Saturation::bound) return std::max(m.latency + m.issue, n * m.issue / capacity);
  return mva_iteration_time(LatencyModel{m.latency, m.issue / capacity, m.saturation}, n);
}

/// Time per loop iteration until the last warp of one scheduler is done, with `block_warps[k]`
/// warps of the k-th oldest co-resident block on it (zeros allowed) and the oldest-first
/// arbitration: phases during which every unfinished block runs at its shadow time, each
/// ending when a block's warps finish. One block: its C(n).
inline double oldest_first_iteration_time(const LatencyModel& m, const std::vector<int>& block_warps) {
  constexpr double none = std::numeric_limits<double>::infinity();
  std::vector<int> warps;
  for (int w : block_warps) {
    if (w < 0) throw std::invalid_argument("kps latency model: negative warps on a scheduler");
    if (w > 0) warps.push_back(w);
  }
  if (warps.empty()) return 0;
  std::vector<double> left(warps.size(), 1.0), time(warps.size());  // fraction of the loop left, C_k
  double elapsed = 0;
  for (;;) {
    double capacity = 1;
    std::size_t first = warps.size();  // the block that finishes first in this phase
    for (std::size_t k = 0; k < warps.size(); ++k) {
      if (left[k] <= 0) continue;
      if (capacity <= 1e-12) {  // the older blocks take the whole bottleneck: this one waits
        time[k] = none;
        continue;
      }
      time[k] = shadow_iteration_time(m, warps[k], capacity);
      capacity -= warps[k] * m.issue / time[k];
      if (first == warps.size() || left[k] * time[k] < left[first] * time[first]) first = k;
    }
    if (first == warps.size()) return elapsed;  // every block done
    const double dt = left[first] * time[first];
    elapsed += dt;
    for (std::size_t k = 0; k < warps.size(); ++k) {
      if (left[k] <= 0 || time[k] == none) continue;
      const double rest = left[k] - dt / time[k];
      left[k] = k == first || rest <= 1e-12 ? 0 : rest;
    }
  }
}

/// Time per iteration of the slowest warp of an SM holding `blocks` blocks of `team_size`
/// threads under the device's arbitration (equal: C of the busiest scheduler's warps).
inline double sm_iteration_time(const LatencyModel& m, const LatencyDevice& dev, int blocks, int team_size) {
  if (dev.arbitration == BlockArbitration::equal || blocks == 1)
    return mva_iteration_time(m, busiest_scheduler_warps(dev, blocks, team_size));
  double slowest = 0;
  for (int s = 0; s < dev.schedulers_per_sm; ++s)
    slowest = std::max(slowest, oldest_first_iteration_time(m, scheduler_block_warps(dev, blocks, team_size, s)));
  return slowest;
}

/// Waves of a launch: ceil(league / (sms x blocks_per_sm)).
inline long long latency_waves(const LatencyDevice& dev, const LatencyLaunch& l) {
  const long long per_wave = static_cast<long long>(dev.sms) * l.blocks_per_sm;
  return (l.league + per_wave - 1) / per_wave;
}

/// Predicted seconds for the launch.
inline double predict_latency_seconds(const LatencyModel& m, const LatencyDevice& dev, const LatencyLaunch& l) {
  if (dev.sms < 1 || dev.schedulers_per_sm < 1 || l.league < 1 || l.team_size < 1 || l.blocks_per_sm < 1 ||
      l.iterations < 0)
    throw std::invalid_argument("kps latency model: sms, schedulers, league, team size and blocks per SM must be >= 1");
  const long long per_wave = static_cast<long long>(dev.sms) * l.blocks_per_sm;
  double seconds = 0;
  for (long long left = l.league; left > 0; left -= per_wave) {
    const long long in_wave = std::min(left, per_wave);
    const long long blocks_on_busiest_sm = (in_wave + dev.sms - 1) / dev.sms;
    seconds += static_cast<double>(l.iterations) *
               sm_iteration_time(m, dev, static_cast<int>(blocks_on_busiest_sm), l.team_size);
  }
  return seconds;
}

}  // namespace kps::models
