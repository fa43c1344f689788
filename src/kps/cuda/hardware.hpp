// kps/cuda/hardware.hpp — kps::hardware(exec) for Kokkos::Cuda: the GPU of the instance's device
// (kps/cuda/hardware.cpp, cudaGetDeviceProperties; every CUDA call checked), and why no CUDA GPU can
// run a CUDA build here (asked before Kokkos starts).
#pragma once

#include <string>

#include <Kokkos_Core.hpp>

#include "kps/tuning/hardware.hpp"

namespace kps::impl {

Hardware cuda_hardware(int device, int concurrency);
/// Empty where a CUDA GPU is visible; else one line saying why none is.
std::string cuda_unavailable();

template <>
struct BackendHardware<Kokkos::Cuda> {
  static int device_id(const Kokkos::Cuda& exec) { return exec.cuda_device(); }
  static Hardware describe(const Kokkos::Cuda& exec) {
    return cuda_hardware(exec.cuda_device(), static_cast<int>(exec.concurrency()));
  }
  static std::string unavailable() { return cuda_unavailable(); }
};

}  // namespace kps::impl
