// test/test_occupancy_curve.cpp — the pieces of seed 003's sweep (studies/occupancy, "time
// against occupancy") that need no GPU: the shared memory that leaves exactly b blocks per SM
// (kps::models::scratch_bytes_for_blocks, checked against the occupancy model itself on every
// capability, team size and b, with Kokkos' own shared memory counted), its limits, and the
// two plateau models of kps_models/occupancy_curve.hpp on hand-checked numbers. No Kokkos.
#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

#include "kps_models/occupancy.hpp"
#include "kps_models/occupancy_curve.hpp"

namespace {

// A Kokkos team kernel as the sweep sees it: 16 bytes of static shared memory and (team size
// + 2) doubles of dynamic shared memory Kokkos asks for itself.
kps::models::KernelResources kokkos_team(int threads, int registers) {
  return kps::models::KernelResources{threads, registers, 16, 8 * (static_cast<std::size_t>(threads) + 2)};
}

kps::models::KernelResources plus(kps::models::KernelResources k, std::size_t bytes) {
  k.dynamic_smem += bytes;
  return k;
}

// Whether any amount of added shared memory (up to the launch's limit, static and dynamic
// within the device's per-block limit) leaves exactly b blocks: the brute-force answer, in
// steps of the allocation unit and at the limit itself.
bool reachable(const kps::models::DeviceLimits& d, const kps::models::KernelResources& k, int b, std::size_t max_dynamic) {
  const std::size_t most = std::min(max_dynamic, d.smem_per_block_optin - k.static_smem) - k.dynamic_smem;
  for (std::size_t extra = 0; extra <= most; extra += d.smem_allocation_unit)
    if (kps::models::occupancy(d, plus(k, extra)).blocks_per_sm == b) return true;
  return kps::models::occupancy(d, plus(k, most)).blocks_per_sm == b;
}

TEST(ScratchForBlocks, GivesExactlyTheBlocksOnEveryCapability) {
  for (const kps::models::DeviceLimits& d : kps::models::known_devices())
    for (int threads : {32, 128, 256, 384})
      for (int registers : {16, 32, 40}) {
        const kps::models::KernelResources k = kokkos_team(threads, registers);
        const int natural = kps::models::occupancy(d, k).blocks_per_sm;
        const int fewest = kps::models::fewest_blocks_by_shared_memory(d, k, d.smem_per_block);
        ASSERT_LE(fewest, natural) << d.capability();
        for (int b = fewest; b <= natural; ++b) {
          if (!reachable(d, k, b, d.smem_per_block)) {  // between two allocation units (Pascal, 23 blocks)
            EXPECT_THROW(kps::models::scratch_bytes_for_blocks(d, k, b, d.smem_per_block), std::invalid_argument);
            continue;
          }
          const std::size_t bytes = kps::models::scratch_bytes_for_blocks(d, k, b, d.smem_per_block);
          const kps::models::OccupancyResult r = kps::models::occupancy(d, plus(k, bytes));
          EXPECT_EQ(r.blocks_per_sm, b) << "cc " << d.capability() << ", " << threads << " threads, " << registers
                                        << " registers, " << bytes << " bytes";
          EXPECT_LE(k.dynamic_smem + bytes, d.smem_per_block);  // within the launch's limit
          if (b == natural) {
            EXPECT_EQ(bytes, 0u);  // nothing to add
          }
        }
      }
}

TEST(ScratchForBlocks, LeavesMarginOnBothSides) {
  // The allocation sits in the middle of the range that holds b: a few bytes more or fewer
  // than counted (b from 5 to 15 on an H100: the range is at least 6 allocation units wide).
  const kps::models::DeviceLimits& h100 = kps::models::limits_for(9, 0);
  const kps::models::KernelResources k = kokkos_team(128, 32);
  for (int b = 5; b <= 15; ++b) {
    const std::size_t bytes = kps::models::scratch_bytes_for_blocks(h100, k, b, h100.smem_per_block);
    EXPECT_EQ(kps::models::occupancy(h100, plus(k, bytes + 256)).blocks_per_sm, b) << b;
    EXPECT_EQ(kps::models::occupancy(h100, plus(k, bytes - 256)).blocks_per_sm, b) << b;
  }
}

TEST(ScratchForBlocks, Hopper) {
  // 228 KB per SM; a Kokkos team of 128 threads brings 16 + 1040 bytes, the driver 1 KB.
  const kps::models::DeviceLimits& h100 = kps::models::limits_for(9, 0);
  const kps::models::KernelResources k = kokkos_team(128, 32);
  EXPECT_EQ(kps::models::occupancy(h100, k).blocks_per_sm, 16);  // 64 warps / 4
  // 48 KB of dynamic shared memory at most (Kokkos does not opt in): 50304-byte blocks, 4 per SM.
  EXPECT_EQ(kps::models::fewest_blocks_by_shared_memory(h100, k, h100.smem_per_block), 4);
  // 6 blocks: allocations in (233472 / 7, 233472 / 6] = (33353, 38912], middle 36096.
  EXPECT_EQ(kps::models::scratch_bytes_for_blocks(h100, k, 6, h100.smem_per_block), 36096u - 1024 - 16 - 1040);
  // 4 blocks: the middle of (46694, 58368] is past the 48 KB a block may ask: the most it may.
  EXPECT_EQ(kps::models::scratch_bytes_for_blocks(h100, k, 4, h100.smem_per_block), h100.smem_per_block - 1040);
  // The seed-004 GTX 1080 Ti has no reserved 1 KB and allocates in units of 256 bytes.
  const kps::models::DeviceLimits& pascal = kps::models::limits_for(6, 1);
  const std::size_t bytes = kps::models::scratch_bytes_for_blocks(pascal, kokkos_team(128, 32), 3, pascal.smem_per_block);
  EXPECT_EQ(kps::models::occupancy(pascal, plus(kokkos_team(128, 32), bytes)).by_shared_memory, 3);
}

TEST(ScratchForBlocks, RejectsWhatSharedMemoryCannotDo) {
  const kps::models::DeviceLimits& h100 = kps::models::limits_for(9, 0);
  const kps::models::KernelResources k = kokkos_team(128, 32);
  // Fewer than 4 blocks need more than 48 KB per block.
  EXPECT_THROW(kps::models::scratch_bytes_for_blocks(h100, k, 3, h100.smem_per_block), std::invalid_argument);
  // With opt-in sizes (227 KB) one block is possible.
  EXPECT_EQ(kps::models::occupancy(h100, plus(k, kps::models::scratch_bytes_for_blocks(h100, k, 1, h100.smem_per_block_optin - 16)))
                .blocks_per_sm,
            1);
  // More blocks than the threads (or registers) allow.
  EXPECT_THROW(kps::models::scratch_bytes_for_blocks(h100, k, 17, h100.smem_per_block), std::invalid_argument);
  EXPECT_THROW(kps::models::scratch_bytes_for_blocks(h100, kokkos_team(128, 64), 9, h100.smem_per_block),
               std::invalid_argument);  // 64 registers: 8 blocks of 4 warps
  EXPECT_THROW(kps::models::scratch_bytes_for_blocks(h100, k, 0, h100.smem_per_block), std::invalid_argument);
  // A launch limit below the kernel's own shared memory, or above the device's.
  EXPECT_THROW(kps::models::scratch_bytes_for_blocks(h100, k, 8, 512), std::invalid_argument);
  EXPECT_THROW(kps::models::fewest_blocks_by_shared_memory(h100, k, 300 * 1024), std::invalid_argument);
}

TEST(OccupancyCurve, LatencyKnee) {
  // The latency study's cosf on the H100: Z + D = 64 ns, D = 19.05 ns -> 3.36 warps per
  // scheduler, 21 % of 64 warps.
  const kps::models::LatencyModel cosf{64.0 - 19.05, 19.05, kps::models::Saturation::queueing};
  EXPECT_NEAR(kps::models::latency_knee_warps(cosf), 64.0 / 19.05, 1e-12);
  EXPECT_NEAR(kps::models::occupancy_of_scheduler_warps(kps::models::latency_knee_warps(cosf), 4, 64), 0.21, 0.001);
  // Seed 003's numbers: 6 cycles of dependent latency, one instruction per cycle -> 6 warps per
  // scheduler, 24 of 64 warps = 37.5 %.
  EXPECT_DOUBLE_EQ(kps::models::latency_knee_warps(kps::models::LatencyModel{5, 1}), 6.0);
  EXPECT_DOUBLE_EQ(kps::models::occupancy_of_scheduler_warps(6, 4, 64), 0.375);
  EXPECT_THROW(kps::models::latency_knee_warps(kps::models::LatencyModel{1, 0}), std::invalid_argument);
  EXPECT_THROW(kps::models::occupancy_of_scheduler_warps(1, 0, 64), std::invalid_argument);
}

TEST(OccupancyCurve, LittlesLaw) {
  // 300 GB/s with one block per SM, 3000 GB/s at most: the plateau at 10 blocks per SM.
  const kps::models::BandwidthModel m = kps::models::calibrate_bandwidth_model(1, 300e9, 3000e9);
  EXPECT_DOUBLE_EQ(m.per_block, 300e9);
  EXPECT_DOUBLE_EQ(kps::models::bandwidth_plateau_blocks(m), 10.0);
  EXPECT_DOUBLE_EQ(kps::models::predict_bandwidth(m, 4), 1200e9);
  EXPECT_DOUBLE_EQ(kps::models::predict_bandwidth(m, 16), 3000e9);
  // The slope from a calibration point at 2 blocks per SM.
  EXPECT_DOUBLE_EQ(kps::models::calibrate_bandwidth_model(2, 600e9, 3000e9).per_block, 300e9);
  // A curve that never rises past its first point: the plateau is there.
  EXPECT_DOUBLE_EQ(kps::models::bandwidth_plateau_blocks(kps::models::calibrate_bandwidth_model(1, 3000e9, 2900e9)), 1.0);
  EXPECT_THROW(kps::models::calibrate_bandwidth_model(0, 1, 1), std::invalid_argument);
  EXPECT_THROW(kps::models::calibrate_bandwidth_model(1, 0, 1), std::invalid_argument);
  EXPECT_THROW(kps::models::predict_bandwidth(m, 0), std::invalid_argument);
}

}  // namespace
