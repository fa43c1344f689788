// kps/cuda/cuda_device.cpp — device description and pre-flight check when kps' execution
// space (kps::ExecutionSpace) is Kokkos::Cuda. Every CUDA call is checked.
#include <string>

#include <cuda_runtime.h>

#include <Kokkos_Core.hpp>

#include "kps/device.hpp"
#include "kps/execution_space.hpp"

namespace kps {

DeviceInfo device_info() {
  DeviceInfo d;
  d.backend = ExecutionSpace::name();
  const int dev = ExecutionSpace().cuda_device();
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    d.name = "unknown CUDA device";
    return d;
  }
  d.name = p.name;
  d.compute_units = p.multiProcessorCount;
  d.memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) == cudaSuccess) d.clock_mhz = khz / 1000.0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess) d.memory_clock_mhz = khz / 1000.0;
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    d.driver = "CUDA driver " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) +
               ", runtime " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  return d;
}

std::string preflight() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess)
    return std::string("this is a CUDA build of kps and no usable CUDA GPU is visible (cudaGetDeviceCount: ") +
           cudaGetErrorString(err) + "); run it on a GPU node, or build the host preset";
  if (count == 0)
    return "this is a CUDA build of kps and no CUDA GPU is visible; run it on a GPU node, or build the host preset";
  return {};
}

}  // namespace kps
