// test/cuda/test_occupancy_runtime.cpp — the occupancy model (kps_models/occupancy.hpp) against the CUDA
// runtime on the GPU of this machine: native kernels with different register counts, static and
// dynamic shared memory; their registers and static shared memory come from
// cudaFuncGetAttributes, the device's limits from cudaGetDeviceProperties. For every block size
// 32..1024 and several dynamic shared memory sizes, the model's blocks per SM must equal
// cudaOccupancyMaxActiveBlocksPerMultiprocessor. CUDA builds only; skips without a GPU.
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "kps_models/occupancy.hpp"

namespace {

// Few registers, any block size.
__global__ void __launch_bounds__(1024) light_kernel(float* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<float>(threadIdx.x) * 2.0f;
}

// `width` accumulators live across the loop: the wider, the more registers.
template <int width>
__device__ void accumulate(const float* in, float* out, int n) {
  float acc[width];
#pragma unroll
  for (int j = 0; j < width; ++j) acc[j] = in[j];
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float x = in[i];
#pragma unroll
    for (int j = 0; j < width; ++j) acc[j] = acc[j] * x + acc[(j + 7) % width];
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < width; ++j) s += acc[j] * static_cast<float>(j + 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int width>
__global__ void heavy_kernel(const float* in, float* out, int n) {
  accumulate<width>(in, out, n);
}

// The compiler must fit 4 blocks of 256 threads: at most 64 registers per thread.
__global__ void __launch_bounds__(256, 4) bounded_kernel(const float* in, float* out, int n) {
  accumulate<96>(in, out, n);
}

// 36 KB of static shared memory, as in seed 004.
__global__ void static_smem_kernel(float* out) {
  __shared__ float buffer[36 * 1024 / sizeof(float)];
  for (unsigned i = threadIdx.x; i < sizeof(buffer) / sizeof(float); i += blockDim.x) buffer[i] = static_cast<float>(i);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buffer[(threadIdx.x * 7) % (sizeof(buffer) / sizeof(float))];
}

// Dynamic shared memory (and 4 KB static): the launch decides the size.
__global__ void dynamic_smem_kernel(float* out, int words) {
  extern __shared__ float dynamic[];
  __shared__ float fixed[1024];
  for (int i = threadIdx.x; i < words; i += blockDim.x) dynamic[i] = static_cast<float>(i);
  fixed[threadIdx.x % 1024] = static_cast<float>(threadIdx.x);
  __syncthreads();
  const float d = words > 0 ? dynamic[threadIdx.x % words] : 0.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = d + fixed[threadIdx.x % 1024];
}

struct Kernel {
  const char* name;
  const void* function;
  bool dynamic_smem;
};

class RuntimeOccupancy : public ::testing::Test {
 protected:
  void SetUp() override {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no CUDA GPU visible";
    ASSERT_EQ(cudaGetDeviceProperties(&prop_, 0), cudaSuccess);
    try {
      limits_ = &kps::models::limits_for(prop_.major, prop_.minor);
    } catch (const std::invalid_argument& e) {
      GTEST_SKIP() << prop_.name << ": " << e.what();
    }
  }
  cudaDeviceProp prop_{};
  const kps::models::DeviceLimits* limits_ = nullptr;
};

// The model's table is what the device reports.
TEST_F(RuntimeOccupancy, TableMatchesTheDevice) {
  const kps::models::DeviceLimits& d = *limits_;
  EXPECT_EQ(d.max_threads_per_block, prop_.maxThreadsPerBlock);
  EXPECT_EQ(d.max_threads_per_sm, prop_.maxThreadsPerMultiProcessor);
  EXPECT_EQ(d.max_blocks_per_sm, prop_.maxBlocksPerMultiProcessor);
  EXPECT_EQ(d.registers_per_sm, prop_.regsPerMultiprocessor);
  EXPECT_EQ(d.registers_per_block, prop_.regsPerBlock);
  EXPECT_EQ(d.warp_size, prop_.warpSize);
  EXPECT_EQ(d.smem_per_sm, prop_.sharedMemPerMultiprocessor);
  EXPECT_EQ(d.smem_per_block, prop_.sharedMemPerBlock);
  EXPECT_EQ(d.smem_per_block_optin, prop_.sharedMemPerBlockOptin);
  EXPECT_EQ(d.smem_reserved_per_block, prop_.reservedSharedMemPerBlock);
}

TEST_F(RuntimeOccupancy, ModelMatchesCudaOccupancyMaxActiveBlocksPerMultiprocessor) {
  const kps::models::DeviceLimits& d = *limits_;
  const Kernel kernels[] = {{"light", reinterpret_cast<const void*>(&light_kernel), false},
                            {"heavy<24>", reinterpret_cast<const void*>(&heavy_kernel<24>), false},
                            {"heavy<48>", reinterpret_cast<const void*>(&heavy_kernel<48>), false},
                            {"heavy<120>", reinterpret_cast<const void*>(&heavy_kernel<120>), false},
                            {"bounded", reinterpret_cast<const void*>(&bounded_kernel), false},
                            {"static_smem", reinterpret_cast<const void*>(&static_smem_kernel), false},
                            {"dynamic_smem", reinterpret_cast<const void*>(&dynamic_smem_kernel), true}};
  long long checked = 0, failed = 0;
  for (const Kernel& k : kernels) {
    cudaFuncAttributes attr{};
    ASSERT_EQ(cudaFuncGetAttributes(&attr, k.function), cudaSuccess) << k.name;
    std::vector<std::size_t> dynamic = {0};
    if (k.dynamic_smem) {
      const std::size_t most = d.smem_per_block_optin - attr.sharedSizeBytes;
      ASSERT_EQ(cudaFuncSetAttribute(k.function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(most)),
                cudaSuccess)
          << k.name;
      for (std::size_t s : {std::size_t{1}, std::size_t{1000}, std::size_t{8} << 10, std::size_t{36} << 10,
                            std::size_t{44} << 10, std::size_t{64} << 10, std::size_t{100} << 10,
                            std::size_t{150} << 10, most})
        if (s <= most) dynamic.push_back(s);
    }
    std::printf("%s: %d registers, %zu B static shared memory, up to %d threads\n", k.name, attr.numRegs,
                attr.sharedSizeBytes, attr.maxThreadsPerBlock);
    for (int threads = 32; threads <= attr.maxThreadsPerBlock; ++threads) {
      for (std::size_t dyn : dynamic) {
        // A launch that cannot run gives 0 blocks (or an error: the same answer, no block fits).
        int runtime = 0;
        const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime, k.function, threads, dyn);
        if (err != cudaSuccess) {
          runtime = 0;
          (void)cudaGetLastError();
        }
        kps::models::KernelResources res;
        res.threads_per_block = threads;
        res.registers_per_thread = attr.numRegs;
        res.static_smem = attr.sharedSizeBytes;
        res.dynamic_smem = dyn;
        int model = 0;
        std::string why;
        try {
          const kps::models::OccupancyResult r = kps::models::occupancy(d, res);
          model = r.blocks_per_sm;
          why = r.explanation;
        } catch (const std::invalid_argument& e) {
          why = e.what();
        }
        ++checked;
        if (model != runtime && ++failed <= 20)
          ADD_FAILURE() << k.name << ", " << threads << " threads, " << dyn << " B dynamic: model " << model
                        << ", runtime " << runtime << " blocks per SM"
                        << (err != cudaSuccess ? std::string(" (") + cudaGetErrorString(err) + ")" : std::string())
                        << "; " << why;
      }
    }
  }
  EXPECT_EQ(failed, 0) << "of " << checked;
  std::printf("%lld configurations checked on %s (cc %d.%d)\n", checked, prop_.name, prop_.major, prop_.minor);
}

}  // namespace
