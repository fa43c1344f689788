// kps/cuda/kokkos_attributes.hpp — what cudaFuncGetAttributes says of the kernel Kokkos
// launches for a parallel_for over a TeamPolicy: registers per thread, static shared memory,
// local memory. Kokkos has no public API for it; its CUDA launch layer has one:
//   Kokkos::Impl::CudaParallelLaunch<ParallelFor<Functor, Policy, Cuda>, Policy::launch_bounds>
//     ::get_cuda_func_attributes()      Kokkos 3.x and 4.0 / 4.1
//     ::get_cuda_func_attributes(int)   Kokkos 4.2 and later (the CUDA device ordinal)
// Both return the attributes of the exact kernel Kokkos launches (local-, constant- or
// global-memory launch, with the policy's LaunchBounds). This header calls whichever exists.
// The other way, for any version: `cuobjdump --dump-resource-usage` on the binary.
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <utility>

#include <cuda_runtime.h>

#include "kps/cuda/native_kernels.hpp"

namespace kps::cuda {

namespace impl {
template <class Launch>
auto func_attributes(int device, int) -> decltype(Launch::get_cuda_func_attributes(device)) {
  return Launch::get_cuda_func_attributes(device);
}
template <class Launch>
auto func_attributes(int, long) -> decltype(Launch::get_cuda_func_attributes()) {
  return Launch::get_cuda_func_attributes();
}
}  // namespace impl

/// Attributes of the kernel behind Kokkos::parallel_for(policy, functor) for a TeamPolicy on Cuda.
template <class Functor, class Policy>
KernelAttributes kokkos_team_for_attributes(const Kokkos::Cuda& exec) {
  using Driver = Kokkos::Impl::ParallelFor<Functor, Policy, Kokkos::Cuda>;
  using Launch = Kokkos::Impl::CudaParallelLaunch<Driver, typename Policy::launch_bounds>;
  const cudaFuncAttributes a = impl::func_attributes<Launch>(exec.cuda_device(), 0);
  return KernelAttributes{a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock};
}

}  // namespace kps::cuda
#endif
