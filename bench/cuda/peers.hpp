// bench/cuda/peers.hpp — CUB, the CUDA peer every kps GPU figure is compared with. The only
// place kps uses CUB; declared for any build, defined only where Kokkos has CUDA. kps::bench::cuda is the
// toolkit's CUB; cuda/peers_cccl.cpp compiles the same functions in kps::bench::cuda::cccl against a
// newer CCCL where the build has one (KPS_CCCL_ROOT). The benchmarks reach both through the peer
// registry (support/peers.hpp), as `cub` and `cub_cccl`.
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cstddef>
#include <string>

namespace kps::bench::cuda {

/// The CUB of the toolkit's CCCL ("CCCL 3.0.1").
std::string cub_version();

/// out[i] = in[0] + ... + in[i-1] with cub::DeviceScan::ExclusiveSum on exec's stream.
/// Temporary storage is kept between calls (released when Kokkos finalizes).
template <class T>
void cub_exclusive_sum(const Kokkos::Cuda& exec, const T* in, T* out, std::size_t n);

/// in[0] + ... + in[n-1] with cub::DeviceReduce::Sum on exec's stream; waits for the result.
template <class T>
T cub_sum(const Kokkos::Cuda& exec, const T* in, std::size_t n);

/// The same sum written to *out (device memory) without waiting: CUB's own interface.
template <class T>
void cub_sum(const Kokkos::Cuda& exec, const T* in, T* out, std::size_t n);

}  // namespace kps::bench::cuda
#endif
