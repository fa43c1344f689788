// bench/cuda/native_kernels.cpp — the native CUDA twins (see native_kernels.hpp). Every CUDA
// call is checked; failures throw with CUDA's message.
#include "cuda/native_kernels.hpp"

#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

namespace kps::bench::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("kps native kernel: ") + what + ": " + cudaGetErrorString(e));
}

template <class Kernel>
KernelAttributes attributes_of(Kernel kernel) {
  cudaFuncAttributes a{};
  check(cudaFuncGetAttributes(&a, kernel), "cudaFuncGetAttributes");
  return KernelAttributes{a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock};
}

// ---- cos loop twin: the same arithmetic as kps::bench::kernels::CosLoop, written natively.
template <int Chains, bool Fast>
__global__ void cos_loop_kernel(long long iterations, int* out) {
  float f[Chains];
  int c[Chains];
  for (int k = 0; k < Chains; ++k) {
    f[k] = 0.25f * static_cast<float>(k);
    c[k] = 0;
  }
  for (long long i = 0; i < iterations; ++i) {
    for (int k = 0; k < Chains; ++k) {
      f[k] = Fast ? __cosf(f[k] * 2.0f) : cosf(f[k] * 2.0f);
      c[k] += static_cast<int>(f[k] + 1.0f);
    }
  }
  int sum = 0;
  for (int k = 0; k < Chains; ++k) sum += c[k];
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

using CosKernel = void (*)(long long, int*);

CosKernel cos_kernel_for(int chains, CosMath math) {
  const bool fast = math == CosMath::fast;
  switch (chains) {
    case 1: return fast ? cos_loop_kernel<1, true> : cos_loop_kernel<1, false>;
    case 2: return fast ? cos_loop_kernel<2, true> : cos_loop_kernel<2, false>;
    case 4: return fast ? cos_loop_kernel<4, true> : cos_loop_kernel<4, false>;
    default: throw std::invalid_argument("kps::bench::cuda::cos_loop_native: chains must be 1, 2 or 4, not " + std::to_string(chains));
  }
}

// ---- spin kernel: Registers == 0: no register pressure, the compiler's count; otherwise
// __maxnreg__(Registers) with Registers - 6 values kept live across the spin, which makes
// ptxas use exactly Registers (a few bytes spill, irrelevant: the clock sets the time).
template <int Registers>
struct SpinLive {
  static constexpr int count = Registers > 6 ? Registers - 6 : 1;
};

template <int Registers>
__device__ void spin_body(long long cycles, unsigned smem_words, long long* out) {
  extern __shared__ int dynamic_smem[];
  constexpr int L = SpinLive<Registers>::count;
  float v[L];
#pragma unroll
  for (int i = 0; i < L; ++i) v[i] = static_cast<float>(threadIdx.x) * static_cast<float>(i + 1);
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) {
    if (Registers > 0) {
#pragma unroll
      for (int i = 0; i < L; ++i) v[i] = v[i] * 1.0001f + v[(i + 1) % L];
    }
    now = clock64();
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < L; ++i) s += v[i];
  // Touch the dynamic shared memory (so it is really used) and keep s alive without
  // writing it: s is never NaN for these inputs, so the store never happens.
  if (smem_words > 0) dynamic_smem[threadIdx.x % smem_words] = static_cast<int>(now - start);
  if (s != s) out[blockIdx.x] = -1;  // a failed check, never happens
  if (threadIdx.x == 0) out[blockIdx.x] = now - start;
}

__global__ void spin_kernel_free(long long cycles, unsigned smem_words, long long* out) {
  spin_body<0>(cycles, smem_words, out);
}
// A kernel's own register cap (__maxnreg__) needs nvcc 12.4 or later; before it only the
// compiler's choice is offered (spin_register_variants).
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1204)
#define KPS_HAVE_MAXNREG 1
template <int Registers>
__global__ void __maxnreg__(Registers) spin_kernel_regs(long long cycles, unsigned smem_words, long long* out) {
  spin_body<Registers>(cycles, smem_words, out);
}
#endif

using SpinKernel = void (*)(long long, unsigned, long long*);

SpinKernel spin_kernel_for(int registers) {
  switch (registers) {
    case 0: return spin_kernel_free;
#if defined(KPS_HAVE_MAXNREG)
    case 32: return spin_kernel_regs<32>;
    case 48: return spin_kernel_regs<48>;
    case 64: return spin_kernel_regs<64>;
    case 96: return spin_kernel_regs<96>;
    case 128: return spin_kernel_regs<128>;
#endif
    default:
      throw std::invalid_argument("kps::bench::cuda::spin_native: no kernel with " + std::to_string(registers) +
                                  " registers in this build (registers fixed per kernel need nvcc 12.4 or later)");
  }
}

void allow_dynamic_smem(SpinKernel kernel, std::size_t bytes) {
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
        "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
}

__global__ void placement_kernel(long long cycles, int* smid, int* warp_slot) {
  if (threadIdx.x % 32 == 0) {  // read while every block of the grid is resident (they all spin)
    unsigned sm, slot;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
    const unsigned warps = (blockDim.x + 31) / 32;
    if (threadIdx.x == 0) smid[blockIdx.x] = static_cast<int>(sm);
    warp_slot[blockIdx.x * warps + threadIdx.x / 32] = static_cast<int>(slot);
  }
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

BlockPlacement block_placement(const Kokkos::Cuda& exec, int blocks, int threads, long long cycles) {
  if (blocks < 1 || threads < 1 || threads > 1024)
    throw std::invalid_argument("kps::bench::cuda::block_placement: blocks >= 1 and 1 <= threads <= 1024");
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const int warps = (threads + 31) / 32;
  Kokkos::View<int*, Kokkos::CudaSpace> smid("kps::bench::cuda::block_placement", blocks);
  Kokkos::View<int*, Kokkos::CudaSpace> slot("kps::bench::cuda::block_placement::warps", std::size_t(blocks) * warps);
  placement_kernel<<<blocks, threads, 0, exec.cuda_stream()>>>(cycles, smid.data(), slot.data());
  check(cudaGetLastError(), "placement_kernel launch");
  auto host_sm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), smid);
  auto host_slot = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), slot);
  BlockPlacement p;
  p.sms = sms;
  p.warps_per_block = warps;
  p.sm.assign(host_sm.data(), host_sm.data() + blocks);
  p.warp_slot.assign(host_slot.data(), host_slot.data() + host_slot.extent(0));
  for (int s : p.sm)
    if (s < 0 || s >= sms) throw std::runtime_error("kps::bench::cuda::block_placement: %smid out of range");
  return p;
}

void cos_loop_native(const Kokkos::Cuda& exec, const CosLoopConfig& cfg, int* out) {
  if (cfg.league < 1 || cfg.team_size < 1 || cfg.team_size > 1024 || cfg.iterations < 0)
    throw std::invalid_argument("kps::bench::cuda::cos_loop_native: league >= 1, 1 <= team size <= 1024, iterations >= 0");
  cos_kernel_for(cfg.chains, cfg.math)<<<cfg.league, cfg.team_size, 0, exec.cuda_stream()>>>(cfg.iterations, out);
  check(cudaGetLastError(), "cos_loop_kernel launch");
}

KernelAttributes cos_loop_native_attributes(int chains, CosMath math) { return attributes_of(cos_kernel_for(chains, math)); }

const std::vector<int>& spin_register_variants() {
#if defined(KPS_HAVE_MAXNREG)
  static const std::vector<int> variants{0, 32, 48, 64, 96, 128};
#else
  static const std::vector<int> variants{0};
#endif
  return variants;
}

void spin_native(const Kokkos::Cuda& exec, int registers, int blocks, int threads, long long cycles,
                 std::size_t dynamic_smem, long long* out) {
  if (blocks < 1 || threads < 1 || cycles < 0)
    throw std::invalid_argument("kps::bench::cuda::spin_native: blocks and threads must be >= 1, cycles >= 0");
  const SpinKernel kernel = spin_kernel_for(registers);
  allow_dynamic_smem(kernel, dynamic_smem);
  kernel<<<blocks, threads, dynamic_smem, exec.cuda_stream()>>>(cycles, static_cast<unsigned>(dynamic_smem / sizeof(int)), out);
  check(cudaGetLastError(), "spin_kernel launch");
}

KernelAttributes spin_native_attributes(int registers) { return attributes_of(spin_kernel_for(registers)); }

int spin_native_max_active_blocks(int registers, int threads, std::size_t dynamic_smem) {
  const SpinKernel kernel = spin_kernel_for(registers);
  allow_dynamic_smem(kernel, dynamic_smem);
  int blocks = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return blocks;
}

}  // namespace kps::bench::cuda
