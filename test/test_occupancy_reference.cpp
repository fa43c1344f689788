// test/test_occupancy_reference.cpp — the occupancy model against the CUDA toolkit's host-side
// calculator (cuda_occupancy.h, plain C++, no GPU) for every capability kps knows: every block
// size 1..1024 with every register count 1..255, then random shared memory (static 0..48 KB,
// dynamic up to past the opt-in limit) and carveout preferences. Blocks per SM and each
// resource's limit must agree; where the toolkit says 0 blocks the model must refuse the launch.
// Built only where cuda_occupancy.h is found (test/CMakeLists.txt).
#include <algorithm>
#include <climits>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include <cuda_occupancy.h>

#include "kps_models/occupancy.hpp"

namespace {

// The toolkit's description of a device of this capability, filled from the model's table.
cudaOccDeviceProp device_prop(const kps::models::DeviceLimits& d) {
  cudaOccDeviceProp p;
  p.computeMajor = d.major;
  p.computeMinor = d.minor;
  p.maxThreadsPerBlock = d.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  p.regsPerBlock = d.registers_per_block;
  p.regsPerMultiprocessor = d.registers_per_sm;
  p.warpSize = d.warp_size;
  p.sharedMemPerBlock = d.smem_per_block;
  p.sharedMemPerMultiprocessor = d.smem_per_sm;
  p.numSms = d.flagship_sms;
  p.sharedMemPerBlockOptin = d.smem_per_block_optin;
  p.reservedSharedMemPerBlock = d.smem_reserved_per_block;
  return p;
}

// A kernel as the runtime describes it (cudaOccFuncAttributes(cudaFuncAttributes)): one barrier,
// and opted in to the largest dynamic shared memory its static part leaves.
cudaOccFuncAttributes function_attributes(const kps::models::DeviceLimits& d, int regs, std::size_t static_smem) {
  cudaOccFuncAttributes a;
  a.maxThreadsPerBlock = d.max_threads_per_block;
  a.numRegs = regs;
  a.sharedSizeBytes = static_smem;
  a.partitionedGCConfig = PARTITIONED_GC_OFF;
  a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  a.maxDynamicSharedSizeBytes = d.smem_per_block_optin - static_smem;
  a.numBlockBarriers = 1;
  return a;
}

struct Mismatches {
  long long checked = 0;
  long long failed = 0;
  void report(const std::string& what) {
    if (++failed <= 20) ADD_FAILURE() << what;
  }
};

// One configuration: the model and the toolkit agree on blocks per SM and on every limit.
void compare(const kps::models::DeviceLimits& d, int threads, int regs, std::size_t static_smem, std::size_t dynamic_smem,
             int carveout, Mismatches& m) {
  const cudaOccDeviceProp prop = device_prop(d);
  const cudaOccFuncAttributes attr = function_attributes(d, regs, static_smem);
  cudaOccDeviceState state;
  state.carveoutConfig = carveout;
  cudaOccResult ref{};
  const cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&ref, &prop, &attr, &state, threads, dynamic_smem);
  const std::string what = "cc " + d.capability() + ", " + std::to_string(threads) + " threads, " +
                           std::to_string(regs) + " regs, static " + std::to_string(static_smem) + " B, dynamic " +
                           std::to_string(dynamic_smem) + " B, carveout " + std::to_string(carveout) + ": ";
  ++m.checked;
  if (err != CUDA_OCC_SUCCESS) return m.report(what + "cuda_occupancy.h error " + std::to_string(err));

  const kps::models::KernelResources k{threads, regs, static_smem, dynamic_smem, carveout};
  kps::models::OccupancyResult r;
  try {
    r = kps::models::occupancy(d, k);
  } catch (const std::invalid_argument& e) {
    if (ref.activeBlocksPerMultiprocessor != 0)
      m.report(what + "the model refuses (" + e.what() + ") but cuda_occupancy.h gives " +
               std::to_string(ref.activeBlocksPerMultiprocessor) + " blocks per SM");
    return;
  }
  const auto same = [](int model, int toolkit) {
    return model == (toolkit == INT_MAX ? kps::models::unlimited_blocks : toolkit);
  };
  const auto limits = [&r](const char* name) {
    return std::find(r.limiters.begin(), r.limiters.end(), name) != r.limiters.end();
  };
  const unsigned factors = ref.limitingFactors;
  const bool limiters_agree = limits("warps") == ((factors & OCC_LIMIT_WARPS) != 0) &&
                              limits("registers") == ((factors & OCC_LIMIT_REGISTERS) != 0) &&
                              limits("shared_memory") == ((factors & OCC_LIMIT_SHARED_MEMORY) != 0) &&
                              limits("blocks") == ((factors & OCC_LIMIT_BLOCKS) != 0);
  if (r.blocks_per_sm != ref.activeBlocksPerMultiprocessor || !same(r.by_warps, ref.blockLimitWarps) ||
      !same(r.by_registers, ref.blockLimitRegs) || !same(r.by_shared_memory, ref.blockLimitSharedMem) ||
      !same(r.by_blocks, ref.blockLimitBlocks) || r.smem_per_block != ref.allocatedSharedMemPerBlock ||
      r.registers_per_block != ref.allocatedRegistersPerBlock || !limiters_agree)
    m.report(what + "model " + std::to_string(r.blocks_per_sm) + " blocks (warps " + std::to_string(r.by_warps) +
             ", regs " + std::to_string(r.by_registers) + ", smem " + std::to_string(r.by_shared_memory) +
             ", blocks " + std::to_string(r.by_blocks) + "), cuda_occupancy.h " +
             std::to_string(ref.activeBlocksPerMultiprocessor) + " (warps " + std::to_string(ref.blockLimitWarps) +
             ", regs " + std::to_string(ref.blockLimitRegs) + ", smem " + std::to_string(ref.blockLimitSharedMem) +
             ", blocks " + std::to_string(ref.blockLimitBlocks) + ", factors " +
             std::to_string(ref.limitingFactors) + ")");
}

class ToolkitCalculator : public ::testing::TestWithParam<std::string> {};

// Every block size with every register count, without shared memory.
TEST_P(ToolkitCalculator, EveryBlockSizeAndRegisterCount) {
  const kps::models::DeviceLimits& d = kps::models::limits_for(GetParam());
  Mismatches m;
  for (int threads = 1; threads <= d.max_threads_per_block; ++threads)
    for (int regs = 1; regs <= d.max_registers_per_thread; ++regs) compare(d, threads, regs, 0, 0, -1, m);
  EXPECT_EQ(m.failed, 0) << "of " << m.checked;
  EXPECT_EQ(m.checked, 1024LL * 255);
}

// Random block sizes, registers, static and dynamic shared memory (dynamic up to 4 KB past
// the opt-in limit, so some launches must be refused) and carveout preferences; fixed seed.
TEST_P(ToolkitCalculator, RandomSharedMemoryAndCarveouts) {
  const kps::models::DeviceLimits& d = kps::models::limits_for(GetParam());
  std::mt19937_64 rng(0x5eed0004u + static_cast<unsigned>(d.major * 10 + d.minor));
  std::uniform_int_distribution<int> threads(1, d.max_threads_per_block), regs(1, d.max_registers_per_thread);
  std::uniform_int_distribution<std::size_t> static_smem(0, d.smem_per_block);
  const int carveouts[] = {-1, -1, -1, 0, 10, 25, 33, 50, 66, 75, 90, 100};
  std::uniform_int_distribution<std::size_t> carveout(0, std::size(carveouts) - 1);
  Mismatches m;
  for (int i = 0; i < 50000; ++i) {
    const std::size_t s = i % 4 == 0 ? 0 : static_smem(rng);
    std::uniform_int_distribution<std::size_t> dynamic(0, d.smem_per_block_optin - s + 4096);
    // Round sizes (whole KB) half the time: they sit exactly on allocation units and carveouts.
    std::size_t dyn = i % 3 == 0 ? 0 : dynamic(rng);
    if (i % 2 == 0) dyn = dyn / 1024 * 1024;
    compare(d, threads(rng), regs(rng), s, dyn, carveouts[carveout(rng)], m);
  }
  EXPECT_EQ(m.failed, 0) << "of " << m.checked;
}

// Shared memory right at the limits: every static+dynamic split in 1 KB steps at 256 threads.
TEST_P(ToolkitCalculator, SharedMemoryInKilobyteSteps) {
  const kps::models::DeviceLimits& d = kps::models::limits_for(GetParam());
  Mismatches m;
  for (std::size_t s = 0; s <= d.smem_per_block; s += 4096)
    for (std::size_t dyn = 0; s + dyn <= d.smem_per_block_optin + 2048; dyn += 1024)
      for (std::size_t delta : {std::size_t{0}, std::size_t{1}})
        for (int carveout : {-1, 0, 50, 100}) compare(d, 256, 32, s, dyn + delta, carveout, m);
  EXPECT_EQ(m.failed, 0) << "of " << m.checked;
}

INSTANTIATE_TEST_SUITE_P(Capabilities, ToolkitCalculator,
                         ::testing::Values("6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = "cc" + info.param;
                           name.erase(name.find('.'), 1);
                           return name;
                         });

TEST(ToolkitCalculatorCoverage, EveryKnownCapabilityIsChecked) {
  EXPECT_EQ(kps::models::known_capabilities(), "6.1, 7.0, 7.5, 8.0, 8.6, 8.9, 9.0");
}

}  // namespace
