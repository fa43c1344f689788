// kps/hip/hardware.cpp — the description of an AMD GPU (hipGetDeviceProperties and the driver's
// and runtime's versions), and the check that one is visible. Every HIP call is checked: a failed
// query leaves the field unknown, never a wrong value.
#include "kps/hip/hardware.hpp"

#include <string>

#include <hip/hip_runtime.h>

namespace kps::impl {

Hardware hip_hardware(int device, int concurrency) {
  Hardware h;
  h.backend = "HIP";
  h.concurrency = concurrency;
  h.device_id = device;
  hipDeviceProp_t p{};
  if (hipGetDeviceProperties(&p, device) != hipSuccess) {
    h.name = "unknown HIP device";
    return h;
  }
  h.name = p.name;
  h.compute_units = p.multiProcessorCount;
  h.memory_bytes = p.totalGlobalMem;
  h.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  h.compute_capability = p.gcnArchName;
  if (p.clockRate > 0) h.clock_mhz = p.clockRate / 1000.0;
  if (p.memoryClockRate > 0) h.memory_clock_mhz = p.memoryClockRate / 1000.0;
  int driver = 0, runtime = 0;
  if (hipDriverGetVersion(&driver) == hipSuccess && hipRuntimeGetVersion(&runtime) == hipSuccess)
    h.driver = "HIP driver " + std::to_string(driver) + ", runtime " + std::to_string(runtime);
  return h;
}

std::string hip_unavailable() {
  int count = 0;
  const hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess)
    return std::string("this is a HIP build of kps and no usable AMD GPU is visible (hipGetDeviceCount: ") +
           hipGetErrorString(err) + "); run it on an AMD GPU node, or build the host preset";
  if (count == 0)
    return "this is a HIP build of kps and no AMD GPU is visible; run it on an AMD GPU node, or build the host preset";
  return {};
}

}  // namespace kps::impl
