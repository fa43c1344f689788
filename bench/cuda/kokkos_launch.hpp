// bench/cuda/kokkos_launch.hpp — the one place where kps reaches into Kokkos' CUDA launch layer
// (Kokkos::Impl), for the occupancy and latency studies: the kernel Kokkos launches for a
// parallel_for or parallel_reduce over a TeamPolicy, its cudaFuncGetAttributes (registers,
// static shared memory, local memory) and the runtime's occupancy for it. Kokkos has no
// public API for either. What changed between the versions kps supports:
//   CudaParallelLaunch<Driver, LaunchBounds>::get_cuda_func_attributes
//     ()                             Kokkos 3.x to 4.1
//     (int cuda_device)              Kokkos 4.2 to 4.6
//     (const CudaInternal*)          Kokkos 4.7 and later (exec.impl_internal_space_instance())
//   the reduce driver: ParallelReduce<CombinedFunctorReducer<Functor, Reducer>, Policy, Cuda>
//     from Kokkos 4.1 (TeamReduceLaunch is not defined before)
//   get_kernel_func(): the __global__ function behind the launch, in every version kps
//     supports (max_active_blocks answers -1 where a Kokkos lacks it)
// Every use is tested on the GPU by test/test_kokkos_compat.cpp, built against each
// Kokkos of the support matrix (README).
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "cuda/native_kernels.hpp"

namespace kps::bench::cuda {

/// Kokkos' launch of parallel_for(Policy, Functor) on Cuda.
template <class Functor, class Policy>
using TeamForLaunch = Kokkos::Impl::CudaParallelLaunch<Kokkos::Impl::ParallelFor<Functor, Policy, Kokkos::Cuda>,
                                                       typename Policy::launch_bounds>;

#if KOKKOS_VERSION >= 40100
/// Kokkos' launch of parallel_reduce(Policy, Functor, Value&) on Cuda (Kokkos_Parallel_Reduce.hpp,
/// ParallelReduceAdaptor::execute_impl builds this driver).
template <class Functor, class Policy, class Value>
using TeamReduceLaunch = Kokkos::Impl::CudaParallelLaunch<
    Kokkos::Impl::ParallelReduce<
        Kokkos::Impl::CombinedFunctorReducer<
            Functor, typename Kokkos::Impl::FunctorAnalysis<Kokkos::Impl::FunctorPatternInterface::REDUCE, Policy,
                                                            Functor, Value>::Reducer>,
        Policy, Kokkos::Cuda>,
    typename Policy::launch_bounds>;
#endif

namespace detail {
// Overloads ranked by the last argument (int beats long beats ...): the newest signature first.
template <class Launch>
auto func_attributes(const Kokkos::Cuda& exec, int)
    -> decltype(Launch::get_cuda_func_attributes(exec.impl_internal_space_instance())) {
  return Launch::get_cuda_func_attributes(exec.impl_internal_space_instance());
}
template <class Launch>
auto func_attributes(const Kokkos::Cuda& exec, long) -> decltype(Launch::get_cuda_func_attributes(exec.cuda_device())) {
  return Launch::get_cuda_func_attributes(exec.cuda_device());
}
template <class Launch>
auto func_attributes(const Kokkos::Cuda&, ...) -> decltype(Launch::get_cuda_func_attributes()) {
  return Launch::get_cuda_func_attributes();
}

template <class Launch>
auto max_active_blocks(int threads, std::size_t dynamic_smem, int) -> decltype(Launch::get_kernel_func(), int()) {
  int blocks = 0;
  const cudaError_t e =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Launch::get_kernel_func(), threads, dynamic_smem);
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("cudaOccupancyMaxActiveBlocksPerMultiprocessor: ") + cudaGetErrorString(e));
  return blocks;
}
template <class Launch>
int max_active_blocks(int, std::size_t, long) {
  return -1;
}
}  // namespace detail

/// cudaFuncGetAttributes of the kernel behind Launch, as Kokkos launches it (local-, constant-
/// or global-memory launch, with the policy's LaunchBounds).
template <class Launch>
KernelAttributes launch_attributes(const Kokkos::Cuda& exec) {
  const cudaFuncAttributes a = detail::func_attributes<Launch>(exec, 0);
  return KernelAttributes{a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock};
}

/// The runtime's resident blocks per SM for the kernel behind Launch with `threads` per block
/// and `dynamic_smem` bytes of dynamic shared memory; -1 where this Kokkos does not expose the kernel.
template <class Launch>
int launch_max_active_blocks(int threads, std::size_t dynamic_smem) {
  return detail::max_active_blocks<Launch>(threads, dynamic_smem, 0);
}

/// Attributes of the kernel behind Kokkos::parallel_for(policy, functor) for a TeamPolicy on Cuda.
template <class Functor, class Policy>
KernelAttributes kokkos_team_for_attributes(const Kokkos::Cuda& exec) {
  return launch_attributes<TeamForLaunch<Functor, Policy>>(exec);
}

}  // namespace kps::bench::cuda
#endif
