// kps_models/occupancy.hpp — a portable model of how many blocks of a kernel an NVIDIA SM holds at
// once (occupancy) and how many waves a grid takes: per-capability limits, per-resource block
// limits with the arithmetic spelled out. Plain C++17: no Kokkos, no CUDA; the same answers as
// the CUDA runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor and the toolkit's
// cuda_occupancy.h with their default settings (test/test_occupancy_reference.cpp checks that).
//
// Assumptions (what the hardware does, as documented in the CUDA C Programming Guide):
// - Warps are granted whole: a block of t threads takes ceil(t / 32) warp slots.
// - Registers are granted per warp, regs x 32 rounded up to 256, and from the register file of
//   one of the 4 sub-partitions (schedulers) the warps of a block are spread over; a warp cannot
//   straddle two sub-partitions, so each sub-partition holds floor(16384 / per-warp) warps.
// - Shared memory per block is static + dynamic + the driver's reserved 1 KB (cc >= 8.0),
//   rounded up to the allocation unit. A block may use more than the default 48 KB up to the
//   opt-in limit (the kernel calls cudaFuncSetAttribute(MaxDynamicSharedMemorySize)); static
//   shared memory itself cannot exceed 48 KB (ptxas' limit).
// - L1/shared carveout (cc >= 7.0): with no preference (the default) the driver may configure
//   any supported carveout, so the block limit uses the largest; it needs only the smallest one
//   that holds the resulting blocks (reported as `smem_carveout`). An explicit preference (in
//   percent) is rounded up to a supported carveout and honoured unless a single block does not
//   fit, in which case the smallest carveout that holds one block is used.
// - Barriers: a block uses one (__syncthreads); every listed capability has at least one
//   barrier per block slot, so barriers never limit and are not part of the model.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kps::models {

/// Per-SM and per-block limits of one compute capability (CUDA C Programming Guide,
/// "Technical Specifications per Compute Capability"; allocation rules as in cuda_occupancy.h).
struct DeviceLimits {
  int major = 0;
  int minor = 0;
  std::string architecture;           ///< "Pascal", "Hopper", ...
  std::string flagship;               ///< a device of this capability, for --sms' default
  int flagship_sms = 0;               ///< its SM count
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 65536;
  int registers_per_block = 65536;    ///< a block's warps, rounded up to whole sets of sub-partitions
  int max_registers_per_thread = 255;
  int register_allocation_unit = 256; ///< a warp's registers (regs x 32) are rounded up to this
  std::string register_allocation_granularity = "warp";  ///< registers are granted per warp
  int warp_allocation_granularity = 1;  ///< warp slots are granted in multiples of this
  int sub_partitions = 4;             ///< schedulers per SM, each with 1/4 of the register file
  std::size_t smem_per_sm = 0;        ///< largest shared memory capacity per SM (max carveout)
  std::size_t smem_per_block = 48 * 1024;  ///< per block without opt-in (and static's limit)
  std::size_t smem_per_block_optin = 0;    ///< per block with cudaFuncAttributeMaxDynamicSharedMemorySize
  std::size_t smem_allocation_unit = 0;    ///< a block's shared memory is rounded up to this
  std::size_t smem_reserved_per_block = 0; ///< taken by the driver from every block (1 KB from cc 8.0)
  std::vector<std::size_t> smem_carveouts; ///< supported shared capacities per SM; empty: fixed
  int barriers_per_sm = 0;

  /// "6.1"
  std::string capability() const;
};

/// Every capability the model knows, oldest first.
const std::vector<DeviceLimits>& known_devices();

/// "6.1, 7.0, 7.5, 8.0, 8.6, 8.9, 9.0"
std::string known_capabilities();

/// The limits of compute capability major.minor; std::invalid_argument (listing the known
/// ones) for any other.
const DeviceLimits& limits_for(int major, int minor);

/// The same from text: "9.0" (also "sm_90").
const DeviceLimits& limits_for(const std::string& capability);

/// What one block of a kernel asks of an SM.
struct KernelResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;  ///< as ptxas -v or cudaFuncGetAttributes' numRegs report
  std::size_t static_smem = 0;   ///< __shared__ arrays (cudaFuncAttributes::sharedSizeBytes)
  std::size_t dynamic_smem = 0;  ///< the launch's third <<<>>> argument
  int carveout_percent = -1;     ///< cudaFuncAttributePreferredSharedMemoryCarveout; -1: no preference
};

/// Marks a resource that does not limit the block count at all (a kernel without shared memory).
constexpr int unlimited_blocks = 1 << 30;

/// Blocks per SM, limited by each resource separately, and the result.
struct OccupancyResult {
  std::string capability;         ///< "6.1"
  int threads_per_block = 0;
  int warps_per_block = 0;        ///< ceil(threads / 32)
  int registers_per_warp = 0;     ///< allocated: regs x 32 rounded up to the allocation unit
  int registers_per_block = 0;    ///< allocated: per warp x warps per block
  int register_warps_per_sm = 0;  ///< warps the register file holds: per sub-partition x sub-partitions
  std::size_t smem_per_block = 0; ///< allocated: static + dynamic + reserved, rounded up
  std::size_t smem_capacity = 0;  ///< shared memory per SM the block limit is computed with
  std::size_t smem_carveout = 0;  ///< the smallest carveout holding blocks_per_sm blocks (cc >= 7.0)

  int by_threads = 0;             ///< max threads per SM / threads per block
  int by_warps = 0;               ///< max warps per SM / warps per block
  int by_blocks = 0;              ///< max blocks per SM
  int by_registers = 0;           ///< register warps per SM / warps per block
  int by_shared_memory = 0;       ///< capacity / allocated per block; unlimited_blocks without shared memory

  int blocks_per_sm = 0;          ///< the smallest of the above
  std::vector<std::string> limiters;  ///< those equal to it: "threads", "warps", "blocks", "registers", "shared_memory"
  int active_warps = 0;           ///< blocks_per_sm x warps per block
  int max_warps = 0;              ///< max warps per SM
  double occupancy = 0;           ///< active_warps / max_warps, 0..1
  std::string explanation;        ///< the arithmetic, in words
};

/// How many blocks of a kernel with these resources one SM of `device` holds, and why.
/// std::invalid_argument for out-of-range inputs and for a block that cannot launch at all
/// (too many threads, registers or shared memory, or no block fitting an SM).
OccupancyResult occupancy(const DeviceLimits& device, const KernelResources& kernel);

/// Waves a grid of `blocks` blocks takes on `sms` SMs: ceil(blocks / (sms x blocks_per_sm)).
long long waves(const OccupancyResult& result, long long blocks, int sms);

/// "29 blocks on 28 SMs x 1 block per SM = 28 per wave -> 2 waves"
std::string explain_waves(const OccupancyResult& result, long long blocks, int sms);

/// Shared memory to add to a block of `kernel` (whose own static and dynamic shared memory
/// count) so that exactly `blocks` blocks fit an SM: how a portable program lowers its
/// occupancy (Kokkos team scratch, seed 003's sweep in studies/occupancy). The block's
/// allocation lands in the middle of the range where `blocks` fit and `blocks + 1` do not, so
/// that a few bytes the caller did not count cannot move the count. 0 where the kernel already
/// holds exactly `blocks` per SM. `max_dynamic_smem`: the most dynamic shared memory a block of
/// the launch may ask for, the kernel's own included (Kokkos asks for at most the default
/// per-block limit, 48 KB: it does not opt in to more); static and dynamic together stay within
/// the device's per-block limit. std::invalid_argument when the other
/// resources hold fewer than `blocks` blocks, or when blocks of at most `max_dynamic_smem` are
/// too small to leave as few as `blocks` (see fewest_blocks_by_shared_memory).
std::size_t scratch_bytes_for_blocks(const DeviceLimits& device, const KernelResources& kernel, int blocks,
                                     std::size_t max_dynamic_smem);

/// The fewest blocks per SM that shared memory can leave: the kernel's blocks with their
/// dynamic shared memory raised to `max_dynamic_smem`.
int fewest_blocks_by_shared_memory(const DeviceLimits& device, const KernelResources& kernel,
                                   std::size_t max_dynamic_smem);

/// "36 KB" for whole kibibytes, else "36865 B".
std::string format_bytes(std::size_t bytes);

}  // namespace kps::models
