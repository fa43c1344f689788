// bench/cuda/peers.hpp — CUB, the CUDA peer every kps GPU figure is compared with. The only
// place kps uses CUB; declared for any build, defined only where Kokkos has CUDA.
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cstddef>

namespace kps::cuda {

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

}  // namespace kps::cuda
#endif
