// bench/support/cos_calibration.hpp — what the latency and occupancy-curve fixtures share about the cos
// loop: one thread's result (the reference every thread must match) and the latency model
// calibrated on the latency study's two named points.
#pragma once

#include <functional>
#include <map>
#include <tuple>

#include "support/common.hpp"
#include "kernels/cos_loop.hpp"
#include "kps_models/latency_model.hpp"

namespace kps::bench {

using CosSums = Kokkos::View<int*, Exec::memory_space>;

/// One thread's result, computed alone by the portable kernel, cached per (iterations, chains, math).
inline int cos_reference(long long iterations, int chains, CosMath math) {
  static std::map<std::tuple<long long, int, int>, int> cache;
  const auto key = std::make_tuple(iterations, chains, static_cast<int>(math));
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  return cache[key] = cos_chain_reference(Exec(), iterations, chains, math);
}

/// The latency model of a cos-loop kernel, from its two named calibration points, one team each:
/// threads:32 (one warp alone) and threads:1024 (8 warps per scheduler, saturated); `launch`
/// runs a configuration of the kernel, each point is the median of 5 launches.
inline models::LatencyModel calibrate_cos_model(const std::function<void(const CosLoopConfig&, const CosSums&)>& launch,
                                        const models::LatencyDevice& dev, CosMath math, int chains, long long iterations) {
  constexpr int saturated = 1024;
  CosSums out("kps::bench::cos_calibration", saturated);
  const auto per_iteration = [&](int threads) {
    const CosLoopConfig cfg{1, threads, iterations, chains, math};
    return median_seconds(Exec(), [&] { launch(cfg, out); }, 5) / static_cast<double>(iterations);
  };
  const double t1 = per_iteration(32), tn = per_iteration(saturated);
  return models::calibrate_latency_model(t1, models::busiest_scheduler_warps(dev, 1, saturated), tn, expected_saturation(math));
}

}  // namespace kps::bench
