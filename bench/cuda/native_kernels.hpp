// bench/cuda/native_kernels.hpp — native CUDA twins of the portable study kernels, to measure
// what Kokkos costs and to set what Kokkos cannot (an exact register count, __launch_bounds__,
// the occupancy API). Declared for any build, defined only where Kokkos has CUDA.
//   - cos_loop_native: kps::bench::cos_loop (latency study) as a plain __global__ kernel.
//   - spin_native: the seed-004 kernel, every thread spins a fixed number of clock64() cycles;
//     `registers` = 0 lets the compiler choose, otherwise __maxnreg__ fixes the count and a
//     set of live values makes the kernel use all of it; dynamic shared memory per block.
//   - reduce_native: kps::reduce_sum's kernel (kps/reduce/kernel.hpp) as a plain __global__
//     kernel that adds its own teams' sums (native_reduce.cpp).
#pragma once

#include <Kokkos_Core.hpp>

#include "kps/reduce/dispatch.hpp"
#include "kernels/cos_loop.hpp"
#include "support/kernel_info.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cstddef>
#include <vector>

namespace kps::bench::cuda {

/// Launches the native cos loop on exec's stream; out receives league x team_size sums.
void cos_loop_native(const Kokkos::Cuda& exec, const CosLoopConfig& cfg, int* out);
KernelAttributes cos_loop_native_attributes(int chains, CosMath math);

/// Register counts spin_native offers (0 = the compiler's choice).
const std::vector<int>& spin_register_variants();

/// Launches `blocks` x `threads` spinning `cycles` clock64() cycles each, with `dynamic_smem`
/// bytes of dynamic shared memory per block (any size up to the opt-in limit). out[b] receives
/// the cycles block b's first thread spun. Throws std::invalid_argument for an unknown
/// register variant, std::runtime_error with CUDA's message when the launch fails.
void spin_native(const Kokkos::Cuda& exec, int registers, int blocks, int threads, long long cycles,
                 std::size_t dynamic_smem, long long* out);
KernelAttributes spin_native_attributes(int registers);

/// Launches `blocks` x `threads` blocks that spin `cycles` (so that they are resident
/// together) and reads where each block and warp ran.
BlockPlacement block_placement(const Kokkos::Cuda& exec, int blocks, int threads, long long cycles);

/// kps::reduce_sum's kernel written natively, to measure what Kokkos' TeamPolicy costs it:
/// the same grid-stride share over `policy.league_size` blocks of `policy.team_size`
/// threads (impl::add_share, from x's first 256-byte boundary on), the same loop (four loads
/// of policy.vector_width elements in flight, 32-bit indices where they fit), the same 32
/// registers (__launch_bounds__(1024, 2)); then the blocks' sums as a single-pass CUB-style
/// kernel adds them: warp shuffles within a block, one partial per block, and the last block to finish (a counter after __threadfence) adds
/// the partials in block order, so the result does not depend on timing. `policy` must be
/// resolved (kps::impl::validate: league and vector width filled in, x past its head aligned
/// for its vectors) and its teams whole warps. Writes the sum to *out (device memory) on exec's
/// stream without waiting. Throws std::invalid_argument for another policy,
/// std::runtime_error with CUDA's message when a CUDA call fails.
template <class T>
void reduce_native(const Kokkos::Cuda& exec, const T* x, std::size_t n, const ReducePolicy& policy, T* out);

/// cudaOccupancyMaxActiveBlocksPerMultiprocessor for spin_native's kernel.
int spin_native_max_active_blocks(int registers, int threads, std::size_t dynamic_smem);

}  // namespace kps::bench::cuda
#endif
