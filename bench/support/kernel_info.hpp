// bench/support/kernel_info.hpp — what the studies read of a compiled kernel and of a launch, in
// any build: the values of Native<Exec>'s queries (support/native.hpp), filled in by a backend
// folder (bench/cuda/).
#pragma once

#include <cstddef>
#include <vector>

namespace kps::bench {

/// What a backend's compiler made of a kernel (cudaFuncGetAttributes on CUDA).
struct KernelAttributes {
  int registers = 0;              ///< per thread
  std::size_t static_smem = 0;    ///< bytes per block
  std::size_t local_bytes = 0;    ///< per thread (spills, stack)
  int max_threads_per_block = 0;  ///< the most this kernel can launch with
};

/// A kernel's attributes and the runtime's resident blocks per SM for a launch of it (-1: unknown).
struct LaunchResources {
  KernelAttributes attributes;
  int runtime_blocks = -1;
};

/// Where the hardware puts a grid: the SM of every block and the warp slot of every warp on its
/// SM (slot % schedulers is the sub-partition that issues for it).
struct BlockPlacement {
  int sms = 0;
  int warps_per_block = 0;
  std::vector<int> sm;         ///< sm[b]: the SM block b ran on
  std::vector<int> warp_slot;  ///< warp_slot[b * warps_per_block + w]: warp w of block b
};

}  // namespace kps::bench
