// test/test_occupancy.cpp — the occupancy model (kps_models/occupancy.hpp) on the GTX 1080 Ti rows of
// seed 004 (registers and shared memory set the waves), the capability table, the arithmetic of
// a few hand-checked cases, and its rejection of blocks that cannot launch. No Kokkos.
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kps_models/occupancy.hpp"

namespace {

using Limiters = std::vector<std::string>;

// Seed 004 ran on a GTX 1080 Ti: cc 6.1, 28 SMs. Its kernels spin for one second; a second
// wave shows as ~1840 ms instead of ~1000 ms.
constexpr int gtx1080ti_sms = 28;
long long waves_from_ms(int ms) { return ms > 1400 ? 2 : 1; }

struct SeedRow {
  long long blocks;
  int threads;
  int ms;
};

kps::models::OccupancyResult seed_kernel(int threads, int registers, std::size_t static_smem) {
  kps::models::KernelResources k;
  k.threads_per_block = threads;
  k.registers_per_thread = registers;
  k.static_smem = static_smem;
  return kps::models::occupancy(kps::models::limits_for(6, 1), k);
}

// Registers table: 48 registers per thread.
TEST(Seed004, RegistersTableWaves) {
  const SeedRow rows[] = {{1, 1024, 905},  {28, 1024, 1011}, {29, 1024, 1841}, {29, 641, 1829},
                          {29, 640, 996},  {56, 640, 1000},  {57, 640, 1839},  {57, 417, 1834},
                          {57, 416, 996},  {84, 416, 1002},  {85, 416, 1832}};
  for (const SeedRow& row : rows) {
    const kps::models::OccupancyResult r = seed_kernel(row.threads, 48, 0);
    EXPECT_EQ(kps::models::waves(r, row.blocks, gtx1080ti_sms), waves_from_ms(row.ms))
        << row.blocks << " x " << row.threads << ": " << r.explanation;
    EXPECT_EQ(r.limiters, Limiters{"registers"}) << row.blocks << " x " << row.threads;
  }
}

// The two rows the seed's author could not explain: 48 x threads x blocks fits 65536, yet a
// second wave runs. Registers come per sub-partition: 16384 / 1536 = 10 warps each, 40 per SM.
TEST(Seed004, RowsTheAuthorCouldNotExplain) {
  const kps::models::OccupancyResult r641 = seed_kernel(641, 48, 0);
  EXPECT_LT(48 * 641 * 2, 65536);  // the author's arithmetic says 2 blocks fit
  EXPECT_EQ(r641.warps_per_block, 21);
  EXPECT_EQ(r641.registers_per_warp, 1536);
  EXPECT_EQ(r641.register_warps_per_sm, 40);
  EXPECT_EQ(r641.by_warps, 3);
  EXPECT_EQ(r641.by_registers, 1);
  EXPECT_EQ(r641.blocks_per_sm, 1);
  EXPECT_EQ(r641.limiters, Limiters{"registers"});
  EXPECT_EQ(kps::models::waves(r641, 29, gtx1080ti_sms), 2);
  for (const char* step : {"48 per thread x 32 = 1536 per warp", "4 sub-partitions", "16384 registers",
                           "10 warps per sub-partition", "40 warps per SM", "21 warps", "40/21 = 1 block"})
    EXPECT_NE(r641.explanation.find(step), std::string::npos) << step << " missing from: " << r641.explanation;

  const kps::models::OccupancyResult r640 = seed_kernel(640, 48, 0);
  EXPECT_EQ(r640.warps_per_block, 20);
  EXPECT_EQ(r640.blocks_per_sm, 2);

  const kps::models::OccupancyResult r417 = seed_kernel(417, 48, 0);
  EXPECT_LT(48 * 417 * 3, 65536);
  EXPECT_EQ(r417.warps_per_block, 14);
  EXPECT_EQ(r417.by_warps, 4);
  EXPECT_EQ(r417.blocks_per_sm, 2);
  EXPECT_EQ(r417.limiters, Limiters{"registers"});
  EXPECT_EQ(kps::models::waves(r417, 57, gtx1080ti_sms), 2);
  EXPECT_EQ(seed_kernel(416, 48, 0).blocks_per_sm, 3);
}

// Shared memory table: 36 KB static shared memory per block, 96 KB per SM. The seed does not
// give this kernel's register count; 16 per thread (a spin loop and an index) never limits.
TEST(Seed004, SharedMemoryTableWaves) {
  const SeedRow rows[] = {{1, 1024, 902}, {56, 1024, 976}, {57, 1024, 1811}, {57, 1, 1735}};
  for (const SeedRow& row : rows) {
    const kps::models::OccupancyResult r = seed_kernel(row.threads, 16, 36 * 1024);
    EXPECT_EQ(r.blocks_per_sm, 2) << row.threads;
    EXPECT_EQ(kps::models::waves(r, row.blocks, gtx1080ti_sms), waves_from_ms(row.ms))
        << row.blocks << " x " << row.threads << ": " << r.explanation;
  }
  // 57 x 1024: a third block would pass the thread limit (and the shared memory too).
  EXPECT_EQ(seed_kernel(1024, 16, 36 * 1024).limiters, (Limiters{"threads", "warps", "shared_memory"}));
  // 57 x 1: only the shared memory stops a third block (3 x 36 KB > 96 KB).
  EXPECT_EQ(seed_kernel(1, 16, 36 * 1024).limiters, Limiters{"shared_memory"});
}

TEST(Capabilities, TableIsConsistent) {
  ASSERT_GE(kps::models::known_devices().size(), 7u);
  for (const kps::models::DeviceLimits& d : kps::models::known_devices()) {
    SCOPED_TRACE(d.capability());
    EXPECT_EQ(d.max_warps_per_sm * d.warp_size, d.max_threads_per_sm);
    EXPECT_GE(d.barriers_per_sm, d.max_blocks_per_sm);  // one barrier per block never limits
    EXPECT_LE(d.smem_per_block_optin + d.smem_reserved_per_block, d.smem_per_sm);
    EXPECT_GE(d.smem_per_block_optin, d.smem_per_block);
    EXPECT_EQ(d.smem_reserved_per_block, d.major >= 8 ? 1024u : 0u);
    EXPECT_EQ(d.sub_partitions, 4);
    EXPECT_GT(d.flagship_sms, 0);
    if (!d.smem_carveouts.empty()) {
      EXPECT_EQ(d.smem_carveouts.back(), d.smem_per_sm);
      for (std::size_t i = 1; i < d.smem_carveouts.size(); ++i) EXPECT_LT(d.smem_carveouts[i - 1], d.smem_carveouts[i]);
    }
    EXPECT_EQ(&kps::models::limits_for(d.capability()), &d);
    EXPECT_EQ(&kps::models::limits_for(d.major, d.minor), &d);
  }
  EXPECT_EQ(kps::models::known_capabilities(), "6.1, 7.0, 7.5, 8.0, 8.6, 8.9, 9.0");
  EXPECT_EQ(kps::models::limits_for("sm_90").flagship_sms, 132);
  EXPECT_EQ(kps::models::limits_for("6.1").flagship_sms, gtx1080ti_sms);
}

TEST(Capabilities, UnknownOnesAreRejectedWithTheKnownList) {
  for (const char* cc : {"5.9", "6.0", "10.0", "9", "9.0.1", "", "abc", "sm_5"}) {
    try {
      kps::models::limits_for(std::string(cc));
      ADD_FAILURE() << "accepted '" << cc << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("known: 6.1, 7.0"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(kps::models::limits_for(5, 9), std::invalid_argument);
}

kps::models::OccupancyResult run(const char* cc, int threads, int regs, std::size_t static_smem = 0,
                         std::size_t dynamic_smem = 0, int carveout = -1) {
  const kps::models::KernelResources k{threads, regs, static_smem, dynamic_smem, carveout};
  return kps::models::occupancy(kps::models::limits_for(cc), k);
}

TEST(Occupancy, FullOccupancyOnHopper) {
  const kps::models::OccupancyResult r = run("9.0", 256, 32);
  EXPECT_EQ(r.blocks_per_sm, 8);
  EXPECT_EQ(r.limiters, (Limiters{"threads", "warps", "registers"}));
  EXPECT_EQ(r.active_warps, 64);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  // The driver keeps 1 KB of every block from cc 8.0 on: even a kernel without shared memory uses some.
  EXPECT_EQ(r.smem_per_block, 1024u);
  EXPECT_EQ(r.by_shared_memory, 228);
  EXPECT_EQ(r.smem_carveout, 8u * 1024);  // 8 blocks x 1 KB fit the 8 KB carveout
}

TEST(Occupancy, RegistersRoundUpToTheAllocationUnit) {
  // 33 x 32 = 1056 -> 1280 per warp; 16384 / 1280 = 12 warps per sub-partition, 48 per SM.
  const kps::models::OccupancyResult r = run("8.0", 128, 33);
  EXPECT_EQ(r.registers_per_warp, 1280);
  EXPECT_EQ(r.register_warps_per_sm, 48);
  EXPECT_EQ(r.by_registers, 12);
  EXPECT_EQ(r.blocks_per_sm, 12);
  EXPECT_DOUBLE_EQ(r.occupancy, 48.0 / 64.0);
  EXPECT_NE(r.explanation.find("allocated in units of 256 -> 1280"), std::string::npos) << r.explanation;
}

TEST(Occupancy, BlockSlotsLimitSmallBlocks) {
  const kps::models::OccupancyResult r = run("8.6", 32, 16);
  EXPECT_EQ(r.blocks_per_sm, 16);
  EXPECT_EQ(r.limiters, Limiters{"blocks"});
  EXPECT_DOUBLE_EQ(r.occupancy, 16.0 / 48.0);
}

TEST(Occupancy, SharedMemoryAndCarveout) {
  // 100 KB dynamic + 1 KB reserved on Hopper: 228 KB / 101 KB = 2 blocks with no preference,
  // and the driver needs the 228 KB carveout for them.
  const kps::models::OccupancyResult none = run("9.0", 256, 32, 0, 100 * 1024);
  EXPECT_EQ(none.smem_per_block, 101u * 1024);
  EXPECT_EQ(none.by_shared_memory, 2);
  EXPECT_EQ(none.smem_carveout, 228u * 1024);
  // A 50 % preference (114 KB) rounds up to the 132 KB carveout: 1 block.
  const kps::models::OccupancyResult half = run("9.0", 256, 32, 0, 100 * 1024, 50);
  EXPECT_EQ(half.smem_capacity, 132u * 1024);
  EXPECT_EQ(half.blocks_per_sm, 1);
  // A 0 % preference is overridden by the smallest carveout holding one block.
  const kps::models::OccupancyResult l1 = run("9.0", 256, 32, 0, 100 * 1024, 0);
  EXPECT_EQ(l1.smem_capacity, 132u * 1024);
  EXPECT_EQ(l1.blocks_per_sm, 1);
  // Allocation units: 1 byte takes 256 bytes on Volta, 128 (+ 1 KB reserved) on Ampere.
  EXPECT_EQ(run("7.0", 32, 16, 1).smem_per_block, 256u);
  EXPECT_EQ(run("8.0", 32, 16, 1).smem_per_block, 1024u + 128u);
  // Pascal has no carveout: a preference changes nothing.
  EXPECT_EQ(run("6.1", 32, 16, 36 * 1024, 0, 0).blocks_per_sm, 2);
  // The largest block each capability allows (all of the opt-in, 48 KB of it static) launches;
  // one byte more does not.
  for (const kps::models::DeviceLimits& d : kps::models::known_devices()) {
    const std::size_t dynamic = d.smem_per_block_optin - d.smem_per_block;
    EXPECT_GE(run(d.capability().c_str(), 1024, 32, d.smem_per_block, dynamic).blocks_per_sm, 1) << d.capability();
    EXPECT_THROW(run(d.capability().c_str(), 1024, 32, d.smem_per_block, dynamic + 1), std::invalid_argument)
        << d.capability();
  }
}

void expect_rejected(const char* cc, int threads, int regs, std::size_t static_smem, std::size_t dynamic_smem,
                     int carveout, const std::string& reason) {
  try {
    run(cc, threads, regs, static_smem, dynamic_smem, carveout);
    ADD_FAILURE() << "accepted " << threads << " threads, " << regs << " registers";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

TEST(Occupancy, RejectsBlocksThatCannotLaunch) {
  expect_rejected("6.1", 0, 32, 0, 0, -1, "at least 1");
  expect_rejected("6.1", -5, 32, 0, 0, -1, "at least 1");
  expect_rejected("6.1", 1025, 32, 0, 0, -1, "at most 1024 threads per block");
  expect_rejected("6.1", 2048, 32, 0, 0, -1, "at most 1024 threads per block");
  expect_rejected("6.1", 32, 0, 0, 0, -1, "registers per thread must be at least 1");
  expect_rejected("9.0", 32, 256, 0, 0, -1, "at most 255 registers per thread");
  expect_rejected("6.1", 32, 300, 0, 0, -1, "at most 255 registers per thread");
  expect_rejected("6.1", 32, 32, 0, 48 * 1024 + 1, -1, "at most 48 KB per block");
  expect_rejected("6.1", 32, 32, 200 * 1024, 0, -1, "statically");
  expect_rejected("9.0", 32, 32, 48 * 1024, 180 * 1024, -1, "at most 227 KB per block (with opt-in)");
  expect_rejected("9.0", 32, 32, 0, 0, 101, "percentage");
  // 255 registers: 8192 per warp, 2 warps per sub-partition, 8 per SM; 9 warps never fit.
  expect_rejected("6.1", 1024, 255, 0, 0, -1, "not one fits an SM (registers)");
  expect_rejected("9.0", 257, 255, 0, 0, -1, "not one fits an SM (registers)");
  EXPECT_EQ(run("9.0", 256, 255).blocks_per_sm, 1);

  const kps::models::OccupancyResult r = run("6.1", 32, 32);
  EXPECT_THROW(kps::models::waves(r, 0, 28), std::invalid_argument);
  EXPECT_THROW(kps::models::waves(r, 10, 0), std::invalid_argument);
  EXPECT_EQ(kps::models::waves(r, 1LL << 40, 28), ((1LL << 40) + 28 * 32 - 1) / (28 * 32));
}

TEST(Occupancy, ExplainsWaves) {
  const kps::models::OccupancyResult r = seed_kernel(641, 48, 0);
  EXPECT_EQ(kps::models::explain_waves(r, 29, 28),
            "29 blocks on 28 SMs x 1 block per SM = 28 per wave -> 2 waves (29/28 rounded up).");
  EXPECT_EQ(kps::models::format_bytes(36 * 1024), "36 KB");
  EXPECT_EQ(kps::models::format_bytes(1000), "1000 B");
}

}  // namespace
