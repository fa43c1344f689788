// kps/hip/hardware.hpp — kps::hardware(exec) for Kokkos::HIP: the AMD GPU of the instance's device
// (kps/hip/hardware.cpp, hipGetDeviceProperties; every HIP call checked), and why no AMD GPU can run
// a HIP build here (before Kokkos starts, which would stop the process on hipErrorNoDevice).
// kps/tuning/hardware.hpp includes this header on every build; it declares nothing without HIP.
#pragma once

#include <string>

#include <Kokkos_Core.hpp>

#include "kps/tuning/hardware.hpp"

#if defined(KOKKOS_ENABLE_HIP)

namespace kps::impl {

Hardware hip_hardware(int device, int concurrency);
/// Empty where an AMD GPU is visible; else one line saying why none is.
std::string hip_unavailable();

template <>
struct BackendHardware<Kokkos::HIP> {
  static int device_id(const Kokkos::HIP& exec) { return exec.hip_device(); }
  static Hardware describe(const Kokkos::HIP& exec) {
    return hip_hardware(exec.hip_device(), static_cast<int>(exec.concurrency()));
  }
  static std::string unavailable() { return hip_unavailable(); }
};

}  // namespace kps::impl

#endif  // KOKKOS_ENABLE_HIP
