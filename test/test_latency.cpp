// test/test_latency.cpp — the latency study's kernels and model: the cos loop computes what a
// CPU reference computes (host backends; every thread, every chain count), the device's threads
// all agree with one thread alone, bad configurations throw, the spin kernel spins at least its
// ticks, and the model's arithmetic on known inputs (the seed's GTX 1080 Ti: 28 SMs, 4
// schedulers, 128 FP32 lanes per SM).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kps/impl/kokkos_compat.hpp"
#include "kernels/cos_loop.hpp"
#include "kps_models/latency_model.hpp"
#include "kernels/spin.hpp"
#include "test_support.hpp"

namespace kps::test {
namespace {

using namespace kps::bench;   // the cos loop and the spin (bench/kernels/)
using namespace kps::models;  // the latency model

/// One thread of the loop on the CPU: std::cos(float), what host backends' cos is.
int cpu_cos_chain(long long iterations, int chains) {
  int sum = 0;
  for (int k = 0; k < chains; ++k) {
    float f = 0.25f * static_cast<float>(k);
    int c = 0;
    for (long long i = 0; i < iterations; ++i) {
      f = std::cos(f * 2.0f);
      c += static_cast<int>(f + 1.0f);
    }
    sum += c;
  }
  return sum;
}

template <class Exec>
std::vector<int> run_cos_loop(const CosLoopConfig& cfg) {
  Kokkos::View<int*, typename Exec::memory_space> out("out", cos_loop_threads(cfg));
  cos_loop(Exec(), cfg, out);
  Exec().fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return std::vector<int>(h.data(), h.data() + h.extent(0));
}

}  // namespace

TEST(CosLoop, HostBackendsComputeTheCpuReference) {
  for_each_exec([](auto exec) {
    using Exec = decltype(exec);
    if constexpr (impl::is_host_space_v<Exec>) {
      for (int chains : {1, 2, 4})
        for (long long iterations : {0ll, 1ll, 7ll, 1000ll}) {
          const int want = cpu_cos_chain(iterations, chains);
          for (int t : run_cos_loop<Exec>(CosLoopConfig{3, 1, iterations, chains, CosMath::accurate}))
            ASSERT_EQ(t, want) << "chains " << chains << ", iterations " << iterations;
        }
      // the loop really depends on the iteration count (the check could fail)
      EXPECT_NE(cpu_cos_chain(1000, 1), cpu_cos_chain(999, 1));
      EXPECT_FALSE(has_fast_cos<Exec>);
      EXPECT_THROW(run_cos_loop<Exec>(CosLoopConfig{1, 1, 10, 1, CosMath::fast}), std::invalid_argument);
    }
  });
}

TEST(CosLoop, EveryThreadAgreesWithOneThreadAlone) {
  for_each_exec([](auto exec) {
    using Exec = decltype(exec);
    const int team = impl::is_host_space_v<Exec> ? 1 : 64;
    for (int chains : {1, 2, 4}) {
      const int want = cos_chain_reference(exec, 500, chains, CosMath::accurate);
      for (int t : run_cos_loop<Exec>(CosLoopConfig{5, team, 500, chains, CosMath::accurate})) ASSERT_EQ(t, want);
    }
  });
}

TEST(CosLoop, BadConfigurationsThrow) {
  using Exec = ExecutionSpace;
  Kokkos::View<int*, Exec::memory_space> out("out", 64);
  EXPECT_THROW(cos_loop(Exec(), CosLoopConfig{0, 1, 10, 1}, out), std::invalid_argument);
  EXPECT_THROW(cos_loop(Exec(), CosLoopConfig{1, 0, 10, 1}, out), std::invalid_argument);
  EXPECT_THROW(cos_loop(Exec(), CosLoopConfig{1, 1, -1, 1}, out), std::invalid_argument);
  EXPECT_THROW(cos_loop(Exec(), CosLoopConfig{1, 1, 10, 3}, out), std::invalid_argument);
  EXPECT_THROW(cos_loop(Exec(), CosLoopConfig{65, 1, 10, 1}, out), std::invalid_argument);  // out too small
  EXPECT_THROW(cos_loop(Exec(), CosLoopConfig{1, 1 << 20, 10, 1}, out), std::invalid_argument);
}

TEST(Spin, EveryTeamSpinsItsTicks) {
  for_each_exec([](auto exec) {
    using Exec = decltype(exec);
    const long long ticks = impl::BackendClock<Exec>::ticks_are_cycles ? 100000 : 200000;  // 0.2 ms on hosts
    Kokkos::View<long long*, typename Exec::memory_space> out("out", 4);
    spin_teams(exec, SpinConfig{4, 1, ticks, 256}, out);
    exec.fence();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (int t = 0; t < 4; ++t) EXPECT_GE(h(t), ticks) << "team " << t;
    EXPECT_THROW(spin_teams(exec, SpinConfig{5, 1, ticks, 0}, out), std::invalid_argument);  // out too short
    EXPECT_THROW(spin_teams(exec, SpinConfig{1, 1, ticks, std::size_t(1) << 40}, out), std::invalid_argument);
  });
}

// ---- the model

TEST(LatencyModel, MeanValueAnalysisByHand) {
  const LatencyModel m{3.0, 1.0};  // Z = 3, D = 1
  EXPECT_DOUBLE_EQ(mva_iteration_time(m, 1), 4.0);
  // n = 2: R = D (1 + Q1) with Q1 = X1 R1 = (1/4) 1 -> R = 1.25, C = 4.25
  EXPECT_DOUBLE_EQ(mva_iteration_time(m, 2), 4.25);
  // both bounds hold and the issue bound takes over
  for (int n = 1; n <= 64; ++n) {
    EXPECT_GE(mva_iteration_time(m, n), 4.0 - 1e-12);
    EXPECT_GE(mva_iteration_time(m, n), n * 1.0 - 1e-12);
  }
  EXPECT_NEAR(mva_iteration_time(m, 64), 64.0, 0.01);
  EXPECT_THROW(mva_iteration_time(m, 0), std::invalid_argument);
}

TEST(LatencyModel, SharpKneeIsTheMaxOfBothBounds) {
  const LatencyModel m{12.0, 8.0, Saturation::bound};
  EXPECT_DOUBLE_EQ(mva_iteration_time(m, 1), 20.0);
  EXPECT_DOUBLE_EQ(mva_iteration_time(m, 2), 20.0);  // latency still hidden
  EXPECT_DOUBLE_EQ(mva_iteration_time(m, 3), 24.0);  // throughput-bound
  const LatencyModel fit = calibrate_latency_model(20.0, 8, 64.0, Saturation::bound);
  EXPECT_DOUBLE_EQ(fit.issue, 8.0);
  EXPECT_DOUBLE_EQ(fit.latency, 12.0);
  // the smooth form is never below the sharp one with the same constants
  const LatencyModel q{12.0, 8.0, Saturation::queueing};
  for (int n = 1; n <= 32; ++n) EXPECT_GE(mva_iteration_time(q, n), mva_iteration_time(m, n) - 1e-12);
  EXPECT_EQ(expected_saturation(CosMath::fast), Saturation::bound);
  EXPECT_EQ(expected_saturation(CosMath::accurate), Saturation::queueing);
}

TEST(LatencyModel, CalibrationRecoversItsConstants) {
  const LatencyModel m{46.4, 19.9};
  const LatencyModel fit = calibrate_latency_model(mva_iteration_time(m, 1), 8, mva_iteration_time(m, 8));
  EXPECT_NEAR(fit.latency, m.latency, 1e-6);
  EXPECT_NEAR(fit.issue, m.issue, 1e-6);
  EXPECT_THROW(calibrate_latency_model(10, 8, 5), std::invalid_argument);   // tn < t1
  EXPECT_THROW(calibrate_latency_model(10, 8, 90), std::invalid_argument);  // beyond n x t1
  EXPECT_THROW(calibrate_latency_model(10, 1, 12), std::invalid_argument);
}

// The seed's GTX 1080 Ti: 28 SMs, 4 schedulers of 32 FP32 lanes (128 per SM), 10 x 2^20
// iterations; calibrated on two of the seed's points (128 and 1024 threads, one block).
TEST(LatencyModel, SeedGtx1080Ti) {
  const LatencyDevice gtx{28, 4, 32};
  const long long iterations = 10ll << 20;
  const int lanes_per_sm = 128;
  EXPECT_EQ(lanes_per_sm / gtx.schedulers_per_sm, gtx.warp_size);  // one warp instruction per cycle per scheduler
  const double t1 = 0.897 / iterations, t8 = 1.494 / iterations;
  const LatencyModel m = calibrate_latency_model(t1, 8, t8);
  auto ms = [&](long long league, int threads, int blocks_per_sm = 2) {
    return 1e3 * predict_latency_seconds(m, gtx, LatencyLaunch{league, threads, iterations, blocks_per_sm});
  };
  EXPECT_NEAR(ms(1, 128), 897, 1e-6);
  EXPECT_NEAR(ms(1, 1024), 1494, 1e-6);
  EXPECT_EQ(busiest_scheduler_warps(gtx, 1, 128), 1);
  EXPECT_EQ(busiest_scheduler_warps(gtx, 1, 160), 2);   // 5 warps over 4 schedulers
  EXPECT_EQ(busiest_scheduler_warps(gtx, 2, 640), 10);  // 40 warps
  // observation 2: 1 block and 28 blocks take the same time
  for (int t = 128; t <= 1024; t += 128) EXPECT_DOUBLE_EQ(ms(1, t), ms(28, t));
  // observation 3: 56 blocks of t threads = 28 blocks of 2t threads
  for (int t = 128; t <= 512; t += 128) EXPECT_DOUBLE_EQ(ms(56, t), ms(28, 2 * t));
  // the seed's one-block column within 5 % (latency hidden at first, then issue-bound)
  const double seed[] = {897, 926, 968, 1022, 1084, 1171, 1337, 1494};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(ms(1, 128 * (i + 1)), seed[i], 0.05 * seed[i]) << 128 * (i + 1) << " threads";
  // a second wave: 57 blocks of 1024 threads with 2 blocks per SM
  EXPECT_EQ(latency_waves(gtx, LatencyLaunch{57, 1024, iterations, 2}), 2);
  EXPECT_DOUBLE_EQ(ms(57, 1024), ms(56, 1024) + ms(1, 1024));
  // a partial last wave is timed by its busiest SM: 29 blocks = 28 + 1
  EXPECT_DOUBLE_EQ(ms(29, 1024, 1), 2 * ms(1, 1024));
}

// ---- co-resident blocks: the oldest block first (BlockArbitration::oldest_first)

TEST(LatencyModel, OldestFirstByHand) {
  // sharp knee, Z = 12, D = 8: one warp alone 20, the pipe saturates at 2.5 warps
  const LatencyModel b{12.0, 8.0, Saturation::bound};
  EXPECT_DOUBLE_EQ(shadow_iteration_time(b, 1, 1.0), 20.0);
  EXPECT_DOUBLE_EQ(shadow_iteration_time(b, 1, 0.2), 40.0);  // max(Z + D, n D / a) = max(20, 8 / 0.2)
  EXPECT_DOUBLE_EQ(shadow_iteration_time(b, 1, 0.6), 20.0);  // fits in the older block's idle slots
  // one block: its C(n)
  for (int n = 1; n <= 8; ++n) EXPECT_DOUBLE_EQ(oldest_first_iteration_time(b, {n}), mva_iteration_time(b, n));
  // [1, 1]: the older warp uses 8 / 20 = 0.4 of the pipe, the younger one needs 0.4 of the
  // remaining 0.6: both hide their latency, 20 (as one pool of 2 warps)
  EXPECT_DOUBLE_EQ(oldest_first_iteration_time(b, {1, 1}), 20.0);
  // [2, 1]: the older block takes 16 / 20 = 0.8 and runs at 20; the younger warp gets 0.2, so
  // 8 / 0.2 = 40 per iteration: half its loop done when the older block ends at 20, the other
  // half alone at 20 per iteration: 30 in all (one pool of 3: max(20, 24) = 24)
  EXPECT_DOUBLE_EQ(oldest_first_iteration_time(b, {2, 1}), 30.0);
  EXPECT_DOUBLE_EQ(oldest_first_iteration_time(b, {0, 2, 0, 1}), 30.0);  // empty blocks change nothing
  EXPECT_DOUBLE_EQ(oldest_first_iteration_time(b, {}), 0.0);
  // [3, 3]: the older block saturates the pipe (24 per iteration, utilization 1) and the younger
  // waits, then runs alone: 24 + 24 = 48 = 6 D, the same as one pool: no tail at saturation
  EXPECT_DOUBLE_EQ(oldest_first_iteration_time(b, {3, 3}), 48.0);

  // queueing, Z = 3, D = 1: [1, 1]. The older warp alone: 4, utilization 1/4; the younger sees
  // D / (3/4) = 4/3: 3 + 4/3 = 13/3 per iteration, 12/13 of its loop done at 4, the last 1/13
  // alone at 4: 4 + 4/13 = 56/13 (one pool of 2: 4.25)
  const LatencyModel q{3.0, 1.0};
  EXPECT_DOUBLE_EQ(shadow_iteration_time(q, 1, 0.75), 3.0 + 4.0 / 3.0);
  EXPECT_NEAR(oldest_first_iteration_time(q, {1, 1}), 56.0 / 13.0, 1e-12);
  EXPECT_DOUBLE_EQ(mva_iteration_time(q, 2), 4.25);

  // never faster than one pool of the same warps (the same work, plus a tail)
  for (const LatencyModel& m : {b, q, LatencyModel{45.0, 19.0}, LatencyModel{11.3, 8.4, Saturation::bound}})
    for (int x = 1; x <= 6; ++x)
      for (int y = 1; y <= 6; ++y)
        for (int z = 0; z <= 6; ++z)
          EXPECT_GE(oldest_first_iteration_time(m, {x, y, z}), mva_iteration_time(m, x + y + z) * (1 - 1e-12))
              << x << " " << y << " " << z;
  EXPECT_THROW(shadow_iteration_time(b, 1, 0.0), std::invalid_argument);
  EXPECT_THROW(shadow_iteration_time(b, 0, 1.0), std::invalid_argument);
  EXPECT_THROW(oldest_first_iteration_time(b, {1, -1}), std::invalid_argument);
}

// The warps of co-resident blocks on each scheduler, against the H100 placement probe (%warpid
// mod 4 is a warp's scheduler): 3 blocks of 160 threads took slots 3,0,1,2,7 | 4,5,6,11,8 |
// 9,10,15,12,13 and 2 blocks of 192 threads 1,2,3,0,5,6 | 7,4,9,10,11,8: the same warps per
// block on each scheduler as the model's round robin, up to the schedulers' names.
TEST(LatencyModel, WarpsOfCoResidentBlocksPerScheduler) {
  const LatencyDevice h100{132, 4, 32, BlockArbitration::oldest_first};
  auto per_scheduler = [&](int blocks, int threads) {
    std::vector<std::vector<int>> out;
    for (int s = 0; s < 4; ++s) out.push_back(scheduler_block_warps(h100, blocks, threads, s));
    std::sort(out.begin(), out.end());
    return out;
  };
  auto from_slots = [](const std::vector<std::vector<int>>& slots) {
    std::vector<std::vector<int>> out(4, std::vector<int>(slots.size(), 0));
    for (std::size_t k = 0; k < slots.size(); ++k)
      for (int slot : slots[k]) ++out[static_cast<std::size_t>(slot % 4)][k];
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(per_scheduler(3, 160), from_slots({{3, 0, 1, 2, 7}, {4, 5, 6, 11, 8}, {9, 10, 15, 12, 13}}));
  EXPECT_EQ(per_scheduler(2, 192), from_slots({{1, 2, 3, 0, 5, 6}, {7, 4, 9, 10, 11, 8}}));
  EXPECT_EQ(scheduler_block_warps(h100, 3, 160, 0), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(scheduler_block_warps(h100, 3, 160, 3), (std::vector<int>{1, 1, 1}));
  // every block's warps are all somewhere; the busiest scheduler as busiest_scheduler_warps counts it
  for (int blocks = 1; blocks <= 4; ++blocks)
    for (int threads = 32; threads <= 512; threads += 32) {
      int most = 0;
      std::vector<int> per_block(static_cast<std::size_t>(blocks), 0);
      for (int s = 0; s < 4; ++s) {
        const std::vector<int> w = scheduler_block_warps(h100, blocks, threads, s);
        int sum = 0;
        for (std::size_t k = 0; k < w.size(); ++k) {
          sum += w[k];
          per_block[k] += w[k];
        }
        most = std::max(most, sum);
      }
      EXPECT_EQ(most, busiest_scheduler_warps(h100, blocks, threads));
      for (int w : per_block) EXPECT_EQ(w, threads / 32);
    }
  EXPECT_THROW(scheduler_block_warps(h100, 2, 64, 4), std::invalid_argument);
  EXPECT_THROW(scheduler_block_warps(h100, 0, 64, 0), std::invalid_argument);
  // 3 blocks of 5 warps, __cosf-like sharp knee (Z = 11.34, D = 8.41 ns, the H100's cuda
  // fast_cosf x1): one pool of 4 warps would take 4 D = 33.6 ns; the oldest block first leaves
  // the youngest block's warp behind: 43.7 ns (measured: 44.7 native, 40.3 Kokkos)
  const LatencyModel fast{11.34, 8.41, Saturation::bound};
  EXPECT_NEAR(sm_iteration_time(fast, h100, 3, 160), 43.7, 0.05);
  LatencyDevice pool = h100;
  pool.arbitration = BlockArbitration::equal;
  EXPECT_NEAR(sm_iteration_time(fast, pool, 3, 160), 33.64, 1e-9);
  // one block per SM: the arbitration changes nothing
  for (int t = 32; t <= 1024; t += 32)
    EXPECT_DOUBLE_EQ(sm_iteration_time(fast, h100, 1, t), sm_iteration_time(fast, pool, 1, t));
}

// The seed's GTX 1080 Ti with the oldest block first: 56 blocks (2 per SM) of 128..512 threads,
// the seed's third column, within 2 % (one pool of warps: up to 9 % under, 1494 against 1644 ms
// at 512 threads). One block per SM is unchanged. (The seed's 28-block column, one block per SM,
// is itself 0..10 % above its 1-block column, which neither arbitration describes.)
TEST(LatencyModel, SeedGtx1080TiOldestFirst) {
  const LatencyDevice gtx{28, 4, 32, BlockArbitration::oldest_first};
  const LatencyDevice pool{28, 4, 32};
  const long long iterations = 10ll << 20;
  const LatencyModel m = calibrate_latency_model(0.897 / iterations, 8, 1.494 / iterations);
  auto ms = [&](const LatencyDevice& dev, long long league, int threads) {
    return 1e3 * predict_latency_seconds(m, dev, LatencyLaunch{league, threads, iterations, 2});
  };
  const double seed56[] = {929, 1093, 1293, 1644};
  for (int i = 0; i < 4; ++i) {
    const int t = 128 * (i + 1);
    EXPECT_NEAR(ms(gtx, 56, t), seed56[i], 0.02 * seed56[i]) << t << " threads";
    EXPECT_GE(ms(gtx, 56, t), ms(pool, 56, t) * (1 - 1e-12));
  }
  EXPECT_LT(ms(pool, 56, 512), 0.92 * 1644);
  for (int t = 128; t <= 1024; t += 128) {
    EXPECT_DOUBLE_EQ(ms(gtx, 28, t), ms(pool, 28, t));
    EXPECT_DOUBLE_EQ(ms(gtx, 1, t), ms(gtx, 28, t));
  }
  // waves still add up: 57 blocks of 1024 threads, 2 per SM = a wave of 56 and one of 1
  EXPECT_DOUBLE_EQ(ms(gtx, 57, 1024), ms(gtx, 56, 1024) + ms(gtx, 1, 1024));
}

}  // namespace kps::test
