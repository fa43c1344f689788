// bench/latency_bench.cpp — the latency-hiding study's fixtures (seeds 001 and 003):
//   latency/<impl>/<math>/chains:<k>/threads:<T>/teams:<L>
// impl: kokkos (kps::bench::cos_loop, a TeamPolicy) or cuda (its native twin, CUDA builds only);
// math: cosf or fast_cosf (where the backend has one); k independent chains per thread;
// T threads per team from 32 to 1024 in steps of 32 on a GPU (powers of two on the host);
// L teams: 1, sm, 2sm, 3sm where sm is the device's SM count (the host's concurrency).
// Every point checks every thread's result against one thread run alone. On a GPU each point
// also carries the latency model's prediction (kps_models/latency_model.hpp) from two calibration
// points measured first for its kernel (impl, math, chains): one warp alone (teams:1,
// threads:32) and one saturated team (teams:1, threads:1024); counters predicted_ms and prediction_error
// (= predicted / measured - 1), plus the calibrated constants and the arbitration between
// co-resident blocks (model_oldest_first: the oldest block's warps are served first), so that
// the comparison can be recomputed from the JSON alone.
#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "support/common.hpp"
#include "support/cos_calibration.hpp"
#include "support/native.hpp"
#include "kernels/cos_loop.hpp"
#include "kps_models/latency_model.hpp"
#include "kps_models/occupancy.hpp"

namespace kps::bench {
namespace latency_fixtures {

using namespace kps::models;  // the occupancy and latency models (kps_models/)

using Sums = CosSums;

enum class Impl { kokkos, cuda };
const char* to_string(Impl i) { return i == Impl::kokkos ? "kokkos" : "cuda"; }

void launch(Impl which, const CosLoopConfig& cfg, const Sums& out) {
  if (which == Impl::kokkos) return cos_loop(Exec(), cfg, out);
  Native<Exec>::cos_loop(Exec(), cfg, out.data());
}

/// Registers per thread of the kernel a launch runs (0 where the backend does not say: host backends).
int registers(Impl which, int chains, CosMath math) {
  if (which == Impl::cuda) return Native<Exec>::cos_loop_attributes(chains, math).registers;
  auto of = [&](auto functor) {
    return Native<Exec>::template team_for_attributes<decltype(functor), Kokkos::TeamPolicy<Exec>>().registers;
  };
  const bool fast = math == CosMath::fast;
  switch (chains) {
    case 1: return fast ? of(kernels::CosLoop<Exec, 1, CosMath::fast>{}) : of(kernels::CosLoop<Exec, 1, CosMath::accurate>{});
    case 2: return fast ? of(kernels::CosLoop<Exec, 2, CosMath::fast>{}) : of(kernels::CosLoop<Exec, 2, CosMath::accurate>{});
    default: return fast ? of(kernels::CosLoop<Exec, 4, CosMath::fast>{}) : of(kernels::CosLoop<Exec, 4, CosMath::accurate>{});
  }
}

/// The model of one kernel (impl, math, chains), calibrated once per process on its two named points.
const LatencyModel& calibration(Impl which, CosMath math, int chains, long long iterations) {
  static std::map<std::tuple<int, int, int>, LatencyModel> cache;
  const auto key = std::make_tuple(static_cast<int>(which), static_cast<int>(math), chains);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  return cache[key] = calibrate_cos_model([which](const CosLoopConfig& cfg, const Sums& out) { launch(which, cfg, out); },
                                          LatencyDevice{}, math, chains, iterations);
}

struct Point {
  Impl impl;
  CosMath math;
  int chains;
  int team_size;
  int teams_per_sm;  // 0: one team
  std::string teams_name;
};

void run(benchmark::State& state, const Options& o, const Point& p) {
  const Exec exec;
  const int sms = o.device.compute_units;
  CosLoopConfig cfg{p.teams_per_sm == 0 ? 1 : p.teams_per_sm * sms, p.team_size, o.iterations, p.chains, p.math};
  try {
    Sums out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::latency::out"), cos_loop_threads(cfg));
    launch(p.impl, cfg, out);  // warm-up
    const double measured = timed_loop(state, exec, [&] { launch(p.impl, cfg, out); });
    const int want = cos_reference(cfg.iterations, cfg.chains, cfg.math);
    auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (std::size_t t = 0; t < got.extent(0); ++t)
      if (got(t) != want)
        return fail(state, std::string(to_string(p.impl)) + ": thread " + std::to_string(t) + " computed " +
                               std::to_string(got(t)) + ", one thread alone computes " + std::to_string(want));
    state.counters["team_size"] = cfg.team_size;
    state.counters["league"] = cfg.league;
    state.counters["chains"] = cfg.chains;
    state.counters["loop_iterations"] = static_cast<double>(cfg.iterations);
    state.counters["ns_per_iteration"] = measured / cfg.iterations * 1e9;
    if (o.host) return;  // the model describes GPUs; host points are reported without it

    const LatencyModel& model = calibration(p.impl, p.math, p.chains, cfg.iterations);
    const int regs = registers(p.impl, p.chains, p.math);
    const DeviceLimits limits = limits_for(o.device.compute_capability);
    const OccupancyResult occ = occupancy(limits, KernelResources{cfg.team_size, regs, 0, 0});
    const LatencyDevice dev{sms, limits.sub_partitions, limits.warp_size, BlockArbitration::oldest_first};
    const LatencyLaunch l{cfg.league, cfg.team_size, cfg.iterations, occ.blocks_per_sm};
    const double predicted = predict_latency_seconds(model, dev, l);
    const long long in_first_wave = std::min<long long>(cfg.league, static_cast<long long>(sms) * occ.blocks_per_sm);
    state.counters["registers"] = regs;
    state.counters["blocks_per_sm"] = occ.blocks_per_sm;
    state.counters["waves"] = static_cast<double>(latency_waves(dev, l));
    state.counters["warps_per_scheduler"] = busiest_scheduler_warps(dev, (in_first_wave + sms - 1) / sms, cfg.team_size);
    state.counters["calibration_latency_ns"] = model.latency * 1e9;
    state.counters["calibration_issue_ns"] = model.issue * 1e9;
    state.counters["model_sharp_knee"] = model.saturation == Saturation::bound ? 1 : 0;
    state.counters["model_oldest_first"] = dev.arbitration == BlockArbitration::oldest_first ? 1 : 0;
    state.counters["predicted_ms"] = predicted * 1e3;
    state.counters["measured_ms"] = measured * 1e3;
    state.counters["prediction_error"] = predicted / measured - 1;
  } catch (const std::exception& e) {
    fail(state, e.what());
  }
}

/// latency/cuda/placement/threads:<T>/teams:<L>: where the hardware puts the grid (blocks
/// that spin together): blocks per SM (%smid) and each warp's slot on its SM (%warpid; slot
/// mod schedulers = the sub-partition that issues for it). Counters: max / min blocks on one
/// SM, the busiest scheduler's warps measured (over all SMs) and as the model counts them, and
/// the label lists the warp slots of each block on the fullest SM.
void run_placement(benchmark::State& state, const Options& o, int team_size, int teams_per_sm) {
  try {
    const int blocks = teams_per_sm * o.device.compute_units;
    BlockPlacement p;
    for (auto _ : state) {
      Kokkos::Timer timer;
      p = Native<Exec>::block_placement(Exec(), blocks, team_size, 1 << 20);
      state.SetIterationTime(timer.seconds());
    }
    const LatencyDevice dev{};
    std::vector<int> per_sm(static_cast<std::size_t>(p.sms), 0);
    std::vector<int> per_scheduler(static_cast<std::size_t>(p.sms) * dev.schedulers_per_sm, 0);
    for (int b = 0; b < blocks; ++b) {
      ++per_sm[p.sm[b]];
      for (int w = 0; w < p.warps_per_block; ++w)
        ++per_scheduler[std::size_t(p.sm[b]) * dev.schedulers_per_sm +
                        p.warp_slot[std::size_t(b) * p.warps_per_block + w] % dev.schedulers_per_sm];
    }
    const auto [lo, hi] = std::minmax_element(per_sm.begin(), per_sm.end());
    const int fullest = static_cast<int>(hi - per_sm.begin());
    std::string slots;
    for (int b = 0; b < blocks; ++b)
      if (p.sm[b] == fullest) {
        slots += slots.empty() ? "" : " | ";
        for (int w = 0; w < p.warps_per_block; ++w)
          slots += (w ? "," : "") + std::to_string(p.warp_slot[std::size_t(b) * p.warps_per_block + w]);
      }
    state.SetLabel("warp slots of each block on SM " + std::to_string(fullest) + ": " + slots);
    state.counters["team_size"] = team_size;
    state.counters["league"] = blocks;
    state.counters["max_blocks_on_one_sm"] = *hi;
    state.counters["min_blocks_on_one_sm"] = *lo;
    state.counters["busiest_scheduler_warps_measured"] = *std::max_element(per_scheduler.begin(), per_scheduler.end());
    state.counters["busiest_scheduler_warps"] = busiest_scheduler_warps(dev, *hi, team_size);
    return;
  } catch (const std::exception& e) {
    return fail(state, e.what());
  }
}

void register_latency(const Options& o) {
  std::vector<int> team_sizes;
  if (o.host) {
    const int team_max = Kokkos::TeamPolicy<Exec>(1, 1).team_size_max(kernels::CosLoop<Exec, 1, CosMath::accurate>{},
                                                                       Kokkos::ParallelForTag{});
    for (int t = 1; t <= team_max; t *= 2) team_sizes.push_back(t);
  } else {
    for (int t = 32; t <= 1024; t += 32) team_sizes.push_back(t);
  }
  std::vector<Impl> impls{Impl::kokkos};
  if (!o.host) impls.push_back(Impl::cuda);
  std::vector<CosMath> maths{CosMath::accurate};
  if (has_fast_cos<Exec>) maths.push_back(CosMath::fast);
  const std::vector<std::pair<int, std::string>> leagues{{0, "1"}, {1, "sm"}, {2, "2sm"}, {3, "3sm"}};
  for (Impl which : impls)
    for (CosMath math : maths)
      for (int chains : {1, 2, 4})
        for (const auto& [per_sm, lname] : leagues)
          for (int t : team_sizes) {
            const std::string name = std::string("latency/") + to_string(which) + "/" + to_string(math) + "/chains:" +
                                     std::to_string(chains) + "/threads:" + std::to_string(t) + "/teams:" + lname;
            const Point p{which, math, chains, t, per_sm, lname};
            add(name, [o, p](benchmark::State& s) { run(s, o, p); })->Unit(benchmark::kMillisecond);
          }
  if (!o.host)
    for (int per_sm : {2, 3})
      for (int t : team_sizes)
        add("latency/cuda/placement/threads:" + std::to_string(t) + "/teams:" + std::to_string(per_sm) + "sm",
            [o, t, per_sm](benchmark::State& s) { run_placement(s, o, t, per_sm); })
            ->Unit(benchmark::kMillisecond);
}

}  // namespace latency_fixtures
KPS_BENCH_REGISTER(latency_fixtures::register_latency);
}  // namespace kps::bench
