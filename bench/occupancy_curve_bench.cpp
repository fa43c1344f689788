// bench/occupancy_curve_bench.cpp — seed 003's claim measured: time against occupancy for a
// compute-bound and a memory-bound kernel, with the occupancy set portably through Kokkos team
// scratch, and the models' prediction of the occupancy beyond which nothing is gained.
//   occupancy_curve/cos/<math>/threads:128/blocks_per_sm:<b>         the latency study's cos
//       loop (kernels::CosLoop, one chain), b = 1..16;
//   occupancy_curve/reduce/int32/<N>/threads:<T>/blocks_per_sm:<b>   the reduction's kernel
//       (impl::ReduceKernel, its grid-stride loop; league one wave of b x SMs), T = 128, 256,
//       b = 1..2048/T.
// Every point is one wave of b x SMs teams, so b teams run on every SM. The team scratch is
// chosen with the occupancy model (scratch_bytes_for_blocks: the kernel's registers, Kokkos'
// static and dynamic shared memory, the reserved 1 KB) so that b teams fit an SM and b + 1 do
// not, which makes the placement even (no SM can take more than b). Kokkos up to 5.1 asks for
// at most the default 48 KB of shared memory per team, which leaves at least 4 teams per SM on
// an H100 (5.2 opts in to more, and scratch reaches lower); below what the scratch can reach
// the one-wave league alone sets b (the
// distributor spreads one wave evenly: latency/cuda/placement). The functors do not touch
// their scratch: asking for it is what limits the occupancy.
// The work is the same at every b: the cos loop runs (iterations x 2048/T) / b iterations per
// team (the --kps_iterations option), the reduction adds N elements (--kps_sizes).
// Counters: blocks_per_sm (requested), on a GPU blocks_per_sm_model (the occupancy model's
// limit with the scratch) and blocks_per_sm_runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor
// on the kernel Kokkos launches), occupancy, warps_per_scheduler, measured_ms, GB/s (reduction),
// and the models (kps_models/occupancy_curve.hpp): predicted_ms, prediction_error = predicted /
// measured - 1, predicted_plateau_occupancy and their calibrated constants, so the analysis
// recomputes everything from the JSON. Cos loop: the latency model calibrated, as in the
// latency study, on one warp alone and one 1024-thread team (kps::bench::cos_loop, same process).
// Reduction: Little's law calibrated on the lowest (b = 1) and highest point of its curve.
// Every result is checked: every thread's cos sum against one thread alone, the sum against an
// exact host reference. On host backends a few points run without model claims.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>

#include "support/checks.hpp"
#include "support/common.hpp"
#include "support/cos_calibration.hpp"
#include "support/native.hpp"
#include "kps/reduce/dispatch.hpp"
#include "kernels/cos_loop.hpp"
#include "kps_models/latency_model.hpp"
#include "kps_models/occupancy.hpp"
#include "kps_models/occupancy_curve.hpp"

namespace kps::bench {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace occupancy_curve_fixtures {

using namespace kps::models;  // the occupancy and latency models (kps_models/)

using Policy = Kokkos::TeamPolicy<Exec>;
using Sums = CosSums;
using Data = decltype(random_view<std::int32_t>(std::string(), 0, 0));
using Load = impl::SumLoad<std::int32_t>;
template <CosMath Math>
using Cos = kernels::CosLoop<Exec, 1, Math>;
template <int V>
using Reduce = impl::ReduceKernel<Exec, std::int32_t, V, Load>;

constexpr int cos_team_size = 128;  // 4 warps: one per scheduler, b teams = b warps per scheduler
constexpr int reduce_items = 16;    // with the league given, this only lets the loads be 16 bytes wide
constexpr int host_points = 2;      // blocks_per_sm 1 and 2 on host backends
constexpr std::size_t host_scratch = 1024;  // host teams run the same launch with a token of scratch

enum class Kernel { cos_accurate, cos_fast, reduce };

/// One point of a curve.
struct Point {
  Kernel kernel;
  int team_size;
  int blocks;          // requested blocks (teams) per SM
  int top;             // the curve's highest blocks per SM (2048 / team size on a GPU)
  std::size_t n = 0;   // reduction: elements
};

CosMath math_of(Kernel k) { return k == Kernel::cos_fast ? CosMath::fast : CosMath::accurate; }

int league_of(const Options& o, const Point& p) { return p.blocks * o.device.compute_units; }

/// Cos loop iterations per team: the curve's work (top teams per SM x --kps_iterations) split
/// over the point's teams, so that every point does the same work (to the nearest iteration).
long long cos_iterations(const Options& o, const Point& p) {
  return static_cast<long long>(std::llround(static_cast<double>(o.iterations) * p.top / p.blocks));
}

/// The reduction's vector width for data x (16-byte loads where aligned), as kps::reduce_sum picks it.
int vector_width(const Data& x, int team_size) {
  return impl::validate<Exec, std::int32_t>(Exec(), ReducePolicy{team_size, reduce_items, 1, 0}, x.extent(0),
                                            Load{x.data()})
      .vector_width;
}

Policy policy(int league, int team_size, std::size_t scratch) {
  Policy p(Exec(), league, team_size);
  if (scratch > 0) p.set_scratch_size(0, Kokkos::PerTeam(scratch));
  return p;
}

void launch_cos(CosMath math, const Policy& p, long long iterations, const Sums& out) {
  if (math == CosMath::fast) {
    if constexpr (has_fast_cos<Exec>)
      return Kokkos::parallel_for("kps::bench::occupancy_curve::cos", p, Cos<CosMath::fast>{out, iterations});
    throw std::invalid_argument(std::string("occupancy curve: the ") + Exec::name() + " backend has no fast cos");
  }
  Kokkos::parallel_for("kps::bench::occupancy_curve::cos", p, Cos<CosMath::accurate>{out, iterations});
}

std::int32_t launch_reduce(const Policy& p, const Data& x, int v) {
  std::int32_t sum = 0;
  auto run = [&](auto width) {
    constexpr int V = decltype(width)::value;
    Kokkos::parallel_reduce("kps::bench::occupancy_curve::reduce", p,
                            Reduce<V>{Load{x.data()}, x.extent(0)}, sum);
  };
  switch (v) {
    case 4: run(std::integral_constant<int, 4>{}); break;
    case 2: run(std::integral_constant<int, 2>{}); break;
    default: run(std::integral_constant<int, 1>{}); break;
  }
  return sum;
}

// ---------------------------------------------------------------------------------------------
// What the occupancy model needs of the kernels Kokkos launches (CUDA builds).

/// Dynamic shared memory Kokkos' CUDA team launches ask for besides the scratch: (team size +
/// 2) doubles for team reductions and broadcasts (Kokkos_Cuda_Parallel_Team.hpp, m_shmem_begin;
/// parallel_reduce of a scalar adds nothing: it reduces with shuffles). blocks_per_sm_runtime
/// checks it on the GPU.
std::size_t kokkos_team_shmem(int team_size) { return sizeof(double) * (static_cast<std::size_t>(team_size) + 2); }

/// The kernel as the occupancy model sees it, and the runtime's count for it.
struct Resources {
  KernelResources kernel;  // registers, static shared memory, Kokkos' dynamic shared memory
  int runtime_blocks = -1; // cudaOccupancyMaxActiveBlocksPerMultiprocessor with the scratch; -1: unknown
};

/// The kernel of a point with `scratch` bytes of team scratch (where the backend says:
/// Native<Exec>::has_attributes).
Resources resources(const Point& p, int v, std::size_t scratch) {
  const std::size_t dynamic = kokkos_team_shmem(p.team_size);
  const auto of = [&](const LaunchResources& l) {
    return Resources{KernelResources{p.team_size, l.attributes.registers, l.attributes.static_smem, dynamic},
                     l.runtime_blocks};
  };
  if (p.kernel != Kernel::reduce)
    return of(math_of(p.kernel) == CosMath::fast
                  ? Native<Exec>::team_for_resources<Cos<CosMath::fast>, Policy>(p.team_size, dynamic + scratch)
                  : Native<Exec>::team_for_resources<Cos<CosMath::accurate>, Policy>(p.team_size, dynamic + scratch));
  switch (v) {
    case 4: return of(Native<Exec>::team_reduce_resources<Reduce<4>, Policy, std::int32_t>(p.team_size, dynamic + scratch));
    case 2: return of(Native<Exec>::team_reduce_resources<Reduce<2>, Policy, std::int32_t>(p.team_size, dynamic + scratch));
    default: return of(Native<Exec>::team_reduce_resources<Reduce<1>, Policy, std::int32_t>(p.team_size, dynamic + scratch));
  }
}

/// The point's team scratch: exactly `blocks` teams per SM where shared memory can make it so,
/// else the fewest it can (the one-wave league sets the rest); none where the kernel holds
/// `blocks` or fewer by itself (more than it holds take a second wave, which the counters show).
/// Host backends: a token.
/// The largest team scratch, at most `wanted`, with which Kokkos still admits the point's team
/// size: Kokkos 4.6 checks team_size_max(functor, tag) with the scratch against its own
/// reading of the shared memory, which refuses scratch the occupancy model (and the hardware)
/// would fit: measured on an H100, scratch for 1-5 teams per SM was refused. Below that floor
/// the one-wave league alone sets the teams per SM (scratch_bytes counter).
std::size_t accepted_scratch(const Point& p, std::size_t wanted) {
  const auto admits = [&](std::size_t bytes) {
    // A probe of one thread: Kokkos 5.1 and later refuse to construct a policy past its limits.
    if (bytes > static_cast<std::size_t>(Policy::scratch_size_max(0))) return false;
    const Policy pol = policy(1, 1, bytes);
    const int most = p.kernel == Kernel::reduce
                         ? pol.team_size_max(Reduce<1>{Load{nullptr}, 0}, Kokkos::ParallelReduceTag())
                         : pol.team_size_max(Cos<CosMath::accurate>{Sums(), 0}, Kokkos::ParallelForTag());
    return most >= p.team_size;
  };
  if (wanted == 0 || admits(wanted)) return wanted;
  std::size_t lo = 0, hi = wanted;  // admits(lo), !admits(hi)
  while (hi - lo > 128) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (admits(mid) ? lo : hi) = mid;
  }
  return lo;
}

std::size_t scratch_for(const Options& o, const Point& p, int v) {
  if (o.host) return host_scratch;
  const DeviceLimits& limits = limits_for(o.device.compute_capability);
  const KernelResources k = resources(p, v, 0).kernel;
  if (p.blocks >= occupancy(limits, k).blocks_per_sm) return 0;
  // The most dynamic shared memory Kokkos asks for a team: its own share and the largest
  // scratch it admits. Up to Kokkos 5.1 that stays within the default 48 KB per block; from
  // Kokkos 5.2 it opts in to more on CUDA (scratch_size_max(0) grows); never past the device's opt-in.
  const std::size_t kokkos_most = static_cast<std::size_t>(Policy::scratch_size_max(0)) + kokkos_team_shmem(p.team_size);
  const std::size_t most = std::min(std::max<std::size_t>(limits.smem_per_block, kokkos_most),
                                    std::max(limits.smem_per_block, limits.smem_per_block_optin));
  const std::size_t wanted =
      scratch_bytes_for_blocks(limits, k, std::max(p.blocks, fewest_blocks_by_shared_memory(limits, k, most)), most);
  return accepted_scratch(p, wanted);
}

// ---------------------------------------------------------------------------------------------
// References and calibrations, once per process.

/// The latency model of the one-chain cos loop (cos_calibration.hpp: the latency study's two
/// named points, launched through kps::bench::cos_loop), once per math.
const LatencyModel& cos_model(const Options& o, CosMath math) {
  static std::map<int, LatencyModel> cache;
  const auto it = cache.find(static_cast<int>(math));
  if (it != cache.end()) return it->second;
  const DeviceLimits& limits = limits_for(o.device.compute_capability);
  const LatencyDevice dev{o.device.compute_units, limits.sub_partitions, limits.warp_size};
  return cache[static_cast<int>(math)] = calibrate_cos_model(
             [](const CosLoopConfig& cfg, const Sums& out) { cos_loop(Exec(), cfg, out); }, dev, math, 1, o.iterations);
}

/// The input of a reduction of n elements: the reduction study's values (integers in [0, 8),
/// a pure function of the seed and the index, so the same at every point of one n).
Data reduce_input(std::size_t n) { return random_view<std::int32_t>("kps::bench::occupancy_curve::x", n, 777 + n); }

/// The exact sum of reduce_input(x.extent(0)), once per n.
long double reduce_reference(const Data& x) {
  static std::map<std::size_t, long double> cache;
  const auto it = cache.find(x.extent(0));
  if (it != cache.end()) return it->second;
  const std::vector<std::int32_t> h = to_host(x);
  return cache[x.extent(0)] = static_cast<long double>(std::accumulate(h.begin(), h.end(), std::int64_t{0}));
}

/// Little's law for one reduction curve (team size, N), calibrated on its lowest point (b = 1)
/// and its highest (the most teams the kernel holds per SM, at most the curve's top), each the
/// median of 5 launches in this process.
const BandwidthModel& reduce_model(const Options& o, const Point& p, const Data& x, int v, int highest) {
  static std::map<std::pair<int, std::size_t>, BandwidthModel> cache;
  const auto key = std::make_pair(p.team_size, p.n);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto bandwidth = [&](int blocks) {
    Point at = p;
    at.blocks = blocks;
    const Policy pol = policy(league_of(o, at), at.team_size, scratch_for(o, at, v));
    return static_cast<double>(p.n * sizeof(std::int32_t)) /
           median_seconds(Exec(), [&] { launch_reduce(pol, x, v); }, 5);
  };
  return cache[key] = calibrate_bandwidth_model(1, bandwidth(1), bandwidth(highest));
}

// ---------------------------------------------------------------------------------------------

/// A GPU point's counters of the occupancy model and of the curve's model (the latency model for the
/// cos loop, Little's law for the reduction): what they predict and how far that is from `measured`.
void model_counters(benchmark::State& state, const Options& o, const Point& p, const Data& x, int v, std::size_t scratch,
                    int league, long long iterations, double measured) {
  const DeviceLimits& limits = limits_for(o.device.compute_capability);
  const Resources res = resources(p, v, scratch);
  KernelResources k = res.kernel;
  k.dynamic_smem += scratch;
  const OccupancyResult occ = occupancy(limits, k);
  const int resident = std::min(p.blocks, occ.blocks_per_sm);
  const LatencyDevice dev{o.device.compute_units, limits.sub_partitions, limits.warp_size};
  const int warps_per_block = occ.warps_per_block;
  state.counters["registers"] = k.registers_per_thread;
  state.counters["static_smem_bytes"] = static_cast<double>(k.static_smem);
  state.counters["dynamic_smem_bytes"] = static_cast<double>(k.dynamic_smem);
  state.counters["blocks_per_sm_model"] = occ.blocks_per_sm;
  if (res.runtime_blocks >= 0) state.counters["blocks_per_sm_runtime"] = res.runtime_blocks;
  state.counters["occupancy"] = static_cast<double>(resident * warps_per_block) / limits.max_warps_per_sm;
  state.counters["warps_per_scheduler"] = busiest_scheduler_warps(dev, resident, p.team_size);

  double predicted = 0, plateau_warps_per_scheduler = 0;
  if (p.kernel == Kernel::reduce) {
    const int highest = std::min(p.top, occupancy(limits, res.kernel).blocks_per_sm);
    const BandwidthModel& m = reduce_model(o, p, x, v, highest);
    const double bandwidth = predict_bandwidth(m, resident);
    predicted = static_cast<double>(p.n * sizeof(std::int32_t)) / bandwidth;
    const double plateau_blocks = bandwidth_plateau_blocks(m);
    plateau_warps_per_scheduler = plateau_blocks * warps_per_block / limits.sub_partitions;
    state.counters["calibration_per_block_GBps"] = m.per_block / 1e9;
    state.counters["calibration_ceiling_GBps"] = m.ceiling / 1e9;
    state.counters["predicted_GBps"] = bandwidth / 1e9;
    state.counters["predicted_plateau_blocks_per_sm"] = plateau_blocks;
  } else {
    const LatencyModel& m = cos_model(o, math_of(p.kernel));
    predicted = predict_latency_seconds(m, dev, LatencyLaunch{league, p.team_size, iterations, occ.blocks_per_sm});
    plateau_warps_per_scheduler = latency_knee_warps(m);
    state.counters["calibration_latency_ns"] = m.latency * 1e9;
    state.counters["calibration_issue_ns"] = m.issue * 1e9;
    state.counters["model_sharp_knee"] = m.saturation == Saturation::bound ? 1 : 0;
  }
  state.counters["predicted_plateau_warps_per_scheduler"] = plateau_warps_per_scheduler;
  state.counters["predicted_plateau_occupancy"] =
      occupancy_of_scheduler_warps(plateau_warps_per_scheduler, limits.sub_partitions, limits.max_warps_per_sm);
  state.counters["predicted_ms"] = predicted * 1e3;
  state.counters["prediction_error"] = predicted / measured - 1;
}

void run(benchmark::State& state, const Options& o, const Point& p) {
  const Exec exec;
  try {
    const int league = league_of(o, p);
    const Data x = p.kernel == Kernel::reduce ? reduce_input(p.n) : Data();
    const int v = p.kernel == Kernel::reduce ? vector_width(x, p.team_size) : 1;
    const std::size_t scratch = scratch_for(o, p, v);
    const Policy pol = policy(league, p.team_size, scratch);
    const long long iterations = p.kernel == Kernel::reduce ? 0 : cos_iterations(o, p);
    Sums out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::occupancy_curve::out"),
             p.kernel == Kernel::reduce ? 0 : static_cast<std::size_t>(league) * p.team_size);
    std::int32_t sum = 0;
    auto launch = [&] {
      if (p.kernel == Kernel::reduce)
        sum = launch_reduce(pol, x, v);
      else
        launch_cos(math_of(p.kernel), pol, iterations, out);
    };
    launch();  // warm-up
    const double measured = timed_loop(state, exec, launch);
    if (p.kernel == Kernel::reduce) {
      const std::string error = compare_scalar(sum, reduce_reference(x), p.n);
      if (!error.empty()) return fail(state, "reduce: " + error);
      set_rates(state, p.n, static_cast<double>(p.n * sizeof(std::int32_t)));
    } else {
      const int want = cos_reference(iterations, 1, math_of(p.kernel));
      auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      for (std::size_t t = 0; t < got.extent(0); ++t)
        if (got(t) != want)
          return fail(state, "cos: thread " + std::to_string(t) + " computed " + std::to_string(got(t)) +
                                 ", one thread alone computes " + std::to_string(want));
      state.counters["iterations_per_team"] = static_cast<double>(iterations);
    }
    state.counters["blocks_per_sm"] = p.blocks;
    state.counters["team_size"] = p.team_size;
    state.counters["league"] = league;
    state.counters["scratch_bytes"] = static_cast<double>(scratch);
    state.counters["measured_ms"] = measured * 1e3;
    if (o.host) return;  // the models describe GPUs; host points are reported without them

    model_counters(state, o, p, x, v, scratch, league, iterations, measured);
  } catch (const std::exception& e) {
    fail(state, e.what());
  }
}

void register_occupancy_curve(const Options& o) {
  const std::string prefix = "occupancy_curve/";
  auto blocks_name = [](const Point& p) {
    return "/threads:" + std::to_string(p.team_size) + "/blocks_per_sm:" + std::to_string(p.blocks);
  };
  // The curves go up to 2048 threads per SM (64 warps: Volta, A100, Hopper); on a GPU whose SMs
  // hold fewer, the points past its limit take a second wave, which their counters show.
  constexpr int sm_threads = 2048;
  auto top_of = [&](int team_size) { return o.host ? host_points : sm_threads / team_size; };

  std::vector<CosMath> maths{CosMath::accurate};
  if (has_fast_cos<Exec>) maths.push_back(CosMath::fast);
  const int cos_team = o.host ? std::min(cos_team_size, Policy(1, 1).team_size_max(Cos<CosMath::accurate>{},
                                                                                    Kokkos::ParallelForTag{}))
                              : cos_team_size;
  for (CosMath math : maths)
    for (int b = 1; b <= top_of(cos_team); ++b) {
      const Point p{math == CosMath::fast ? Kernel::cos_fast : Kernel::cos_accurate, cos_team, b, top_of(cos_team)};
      add(prefix + "cos/" + to_string(math) + blocks_name(p), [o, p](benchmark::State& s) { run(s, o, p); })
          ->Unit(benchmark::kMillisecond);
    }

  if (!o.wants("int32")) return;
  std::vector<int> teams{128, 256};
  if (o.host) teams = {std::min(128, impl::reduce_team_size_limit<Exec, std::int32_t>(Exec()))};
  for (std::size_t n : o.sizes) {
    const std::string suffix = "reduce/int32/" + std::to_string(n);
    require_memory(o, prefix + suffix, n, n * sizeof(std::int32_t));
    for (int t : teams)
      for (int b = 1; b <= top_of(t); ++b) {
        const Point p{Kernel::reduce, t, b, top_of(t), n};
        add(prefix + suffix + blocks_name(p), [o, p](benchmark::State& s) { run(s, o, p); })
            ->Unit(benchmark::kMillisecond);
      }
  }
}

}  // namespace occupancy_curve_fixtures
KPS_BENCH_REGISTER(occupancy_curve_fixtures::register_occupancy_curve);
}  // namespace kps::bench
