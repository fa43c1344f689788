// kps/cuda/hardware.cpp — the description of a CUDA device (cudaGetDeviceProperties and the
// driver's and runtime's versions). Every CUDA call is checked: a failed query leaves the field
// unknown, never a wrong value.
#include <string>

#include <cuda_runtime.h>

#include "kps/cuda/hardware.hpp"

namespace kps::impl {

Hardware cuda_hardware(int device, int concurrency) {
  Hardware h;
  h.backend = "Cuda";
  h.concurrency = concurrency;
  h.device_id = device;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    h.name = "unknown CUDA device";
    return h;
  }
  h.name = p.name;
  h.compute_units = p.multiProcessorCount;
  h.memory_bytes = p.totalGlobalMem;
  h.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  h.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess) h.clock_mhz = khz / 1000.0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess) h.memory_clock_mhz = khz / 1000.0;
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    h.driver = "CUDA driver " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) +
               ", runtime " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  return h;
}

std::string cuda_unavailable() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess)
    return std::string("this is a CUDA build of kps and no usable CUDA GPU is visible (cudaGetDeviceCount: ") +
           cudaGetErrorString(err) + "); run it on a GPU node, or build the host preset";
  if (count == 0)
    return "this is a CUDA build of kps and no CUDA GPU is visible; run it on a GPU node, or build the host preset";
  return {};
}

}  // namespace kps::impl
