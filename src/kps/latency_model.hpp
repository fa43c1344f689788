// kps/latency_model.hpp — the latency-hiding model of the cos-loop study (seeds 001 and 003),
// plain C++ (no Kokkos, no GPU): predicts the time of a launch of kps::cos_loop from two
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
// model); a block's warps go round-robin over the SM's schedulers, so the busiest scheduler
// of an SM holding b blocks of w warps has ceil(b w / schedulers) warps. Waves run one after
// the other; the launch takes the sum of its waves' times.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kps {

/// The device's shape as the model sees it.
struct LatencyDevice {
  int sms = 0;                    ///< streaming multiprocessors
  int schedulers_per_sm = 4;      ///< warp schedulers (sub-partitions) per SM
  int warp_size = 32;
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
    const int warps = busiest_scheduler_warps(dev, blocks_on_busiest_sm, l.team_size);
    seconds += static_cast<double>(l.iterations) * mva_iteration_time(m, warps);
  }
  return seconds;
}

}  // namespace kps
