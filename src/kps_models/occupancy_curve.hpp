// kps_models/occupancy_curve.hpp — the two models of seed 003's claim (studies/occupancy: time against
// occupancy), plain C++ (no Kokkos, no GPU), each giving the occupancy beyond which nothing is
// gained (the plateau) from two calibration points measured in the same run:
//   - a compute-bound kernel (the cos loop, bench/kernels/cos_loop.hpp): the latency model of
//     kps_models/latency_model.hpp. One warp per scheduler takes Z + D per iteration, n warps at least
//     n D; the knee where the two bounds meet, n = (Z + D) / D warps per scheduler, is the
//     plateau (seed 003: "dependent latency / issue interval" warps hide the latency);
//   - a memory-bound kernel (the reduction, kps/reduce/kernel.hpp): Little's law. The bytes in
//     flight grow with the warps resident, so the bandwidth of b blocks per SM is b times the
//     bandwidth of one until it meets the memory system's ceiling:
//         bandwidth(b) = min(ceiling, b x per_block),
//     with per_block measured at the lowest occupancy and the ceiling at the highest; the
//     plateau is b = ceiling / per_block blocks per SM.
// Occupancy is warps resident per SM over the most an SM holds (kps_models/occupancy.hpp).
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kps_models/latency_model.hpp"

namespace kps::models {

/// Occupancy (0..1, may exceed 1 for a plateau beyond the SM's warps) of `warps_per_scheduler`
/// warps on each of `schedulers` schedulers of an SM holding at most `max_warps` warps.
inline double occupancy_of_scheduler_warps(double warps_per_scheduler, int schedulers, int max_warps) {
  if (schedulers < 1 || max_warps < 1)
    throw std::invalid_argument("kps occupancy curve: schedulers and max warps per SM must be >= 1");
  return warps_per_scheduler * schedulers / max_warps;
}

/// Warps per scheduler where the latency bound (Z + D) meets the throughput bound (n D): past
/// it, more warps add time per iteration as fast as they add work, and nothing is gained.
inline double latency_knee_warps(const LatencyModel& m) {
  if (!(m.issue > 0) || m.latency < 0)
    throw std::invalid_argument("kps occupancy curve: the latency model needs D > 0 and Z >= 0");
  return (m.latency + m.issue) / m.issue;
}

/// Little's law for a memory-bound kernel: bytes per second per resident block per SM (the
/// slope at low occupancy) and the ceiling.
struct BandwidthModel {
  double per_block = 0;  ///< bytes/s with one block per SM (the slope)
  double ceiling = 0;    ///< bytes/s the memory system delivers at most
};

/// Fits the model to two calibration points: bandwidth `low` at `low_blocks` blocks per SM
/// (the lowest occupancy of the sweep) and `high` at the highest (the ceiling).
inline BandwidthModel calibrate_bandwidth_model(int low_blocks, double low, double high) {
  if (low_blocks < 1 || !(low > 0) || !(high > 0))
    throw std::invalid_argument("kps occupancy curve: calibration needs blocks >= 1 and positive bandwidths (got " +
                                std::to_string(low_blocks) + " blocks, " + std::to_string(low) + " and " +
                                std::to_string(high) + " B/s)");
  return BandwidthModel{low / low_blocks, std::max(low, high)};
}

/// Predicted bytes per second with `blocks_per_sm` blocks resident on every SM.
inline double predict_bandwidth(const BandwidthModel& m, double blocks_per_sm) {
  if (!(blocks_per_sm > 0)) throw std::invalid_argument("kps occupancy curve: blocks per SM must be > 0");
  return std::min(m.ceiling, blocks_per_sm * m.per_block);
}

/// Blocks per SM where the Little's-law slope meets the ceiling (may be fractional).
inline double bandwidth_plateau_blocks(const BandwidthModel& m) {
  if (!(m.per_block > 0)) throw std::invalid_argument("kps occupancy curve: the bandwidth model needs a slope > 0");
  return m.ceiling / m.per_block;
}

}  // namespace kps::models
