// bench/cuda/native_reduce.cpp — kps::reduce_sum's kernel as a native CUDA twin (see
// native_kernels.hpp). Every CUDA call is checked; failures throw with CUDA's message.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "cuda/native_kernels.hpp"

namespace kps::bench::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("kps native reduce: ") + what + ": " + cudaGetErrorString(e));
}

/// The block's sum, valid in thread 0: shuffles within each warp, then warp 0 adds the warps'.
template <class T>
__device__ T block_sum(T v) {
  __shared__ T warp_sums[32];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  v = T(0);
  if (threadIdx.x < 32) {
    if (threadIdx.x < (blockDim.x + 31) / 32) v = warp_sums[threadIdx.x];
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  }
  __syncthreads();  // warp_sums is reused by the next call
  return v;
}

template <class T, int V, class Index>
__global__ void __launch_bounds__(1024, 2)
    reduce_kernel(const T* x, unsigned long long n, unsigned long long head, T* partials, unsigned int* counter,
                  T* out) {
  // The share, tail and loop of kps::impl::ReduceKernel (the same function): only the launch
  // and the adding of the blocks' sums differ.
  T sum = T(0);
  impl::add_share<V, Index>(impl::SumLoad<T>{x}, n, head, blockDim.x, gridDim.x, blockIdx.x, threadIdx.x, sum);
  sum = block_sum(sum);
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    *static_cast<volatile T*>(partials + blockIdx.x) = sum;
    __threadfence();  // the partial is visible before the count
    is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();  // partials counted before are read after the count
  T total = T(0);
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += *static_cast<volatile T*>(partials + b);
  total = block_sum(total);
  if (threadIdx.x == 0) {
    *out = total;
    *counter = 0;  // for the next launch on this stream
  }
}

template <class T>
using Kernel = void (*)(const T*, unsigned long long, unsigned long long, T*, unsigned int*, T*);

template <class T, class Index>
Kernel<T> kernel_for(int v) {
  switch (v) {
    case 4: return reduce_kernel<T, 4, Index>;
    case 2: return reduce_kernel<T, 2, Index>;
    default: return reduce_kernel<T, 1, Index>;
  }
}

/// Block partials and the done-counter, kept between calls (freed when Kokkos finalizes);
/// the counter is 0 between launches.
struct Scratch {
  Kokkos::View<unsigned char*, Kokkos::CudaSpace> partials;
  Kokkos::View<unsigned int, Kokkos::CudaSpace> counter{"kps::native_reduce::counter"};
};

Scratch& scratch() {
  static Scratch* s = nullptr;
  if (!s) {
    s = new Scratch;
    Kokkos::push_finalize_hook([] {
      delete s;
      s = nullptr;
    });
  }
  return *s;
}

}  // namespace

template <class T>
void reduce_native(const Kokkos::Cuda& exec, const T* x, std::size_t n, const ReducePolicy& p, T* out) {
  if (p.team_size <= 0 || p.team_size > 1024 || p.team_size % 32 != 0 || p.items_per_thread <= 0 || p.league_size <= 0 ||
      (p.vector_width != 1 && p.vector_width != 2 && p.vector_width != 4) || p.items_per_thread % p.vector_width != 0)
    throw std::invalid_argument("kps::bench::cuda::reduce_native: the policy must be resolved, with whole warps (" + to_string(p) + ")");
  if (n == 0) {
    check(cudaMemsetAsync(out, 0, sizeof(T), exec.cuda_stream()), "cudaMemsetAsync");
    return;
  }
  Scratch& s = scratch();
  const std::size_t bytes = std::size_t(p.league_size) * sizeof(T);
  if (s.partials.extent(0) < bytes) {
    exec.fence();  // the old buffer may still be read by a launch in flight
    s.partials = {};
    s.partials = Kokkos::View<unsigned char*, Kokkos::CudaSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::native_reduce::partials"), bytes);
  }
  T* partials = reinterpret_cast<T*>(s.partials.data());
  const std::size_t head = impl::head_elements(x, n);
  if (impl::narrow_index(n, p))
    kernel_for<T, std::uint32_t>(p.vector_width)<<<p.league_size, p.team_size, 0, exec.cuda_stream()>>>(
        x, n, head, partials, s.counter.data(), out);
  else
    kernel_for<T, std::uint64_t>(p.vector_width)<<<p.league_size, p.team_size, 0, exec.cuda_stream()>>>(
        x, n, head, partials, s.counter.data(), out);
  check(cudaGetLastError(), "launch");
}

#define KPS_NATIVE_REDUCE_INSTANTIATE(T) \
  template void reduce_native<T>(const Kokkos::Cuda&, const T*, std::size_t, const ReducePolicy&, T*);
KPS_NATIVE_REDUCE_INSTANTIATE(std::int32_t)
KPS_NATIVE_REDUCE_INSTANTIATE(std::int64_t)
KPS_NATIVE_REDUCE_INSTANTIATE(float)
KPS_NATIVE_REDUCE_INSTANTIATE(double)

}  // namespace kps::bench::cuda
