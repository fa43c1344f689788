// bench/support/execution_space.hpp — the one Kokkos execution space that kps' executables
// (kps-bench, the tests) run on: kps::bench::ExecutionSpace. The library itself (kps::kps) takes any.
//
// Chosen at configure time, not by Kokkos: the CMake option KPS_EXECUTION_SPACE (Default,
// Serial, OpenMP, Threads, Cuda, HIP; cmake/kps_kokkos.cmake checks it against the Kokkos found) becomes one
// compile definition of the executables' target kps_space (bench/CMakeLists.txt), read here. Default (no definition) is
// Kokkos::DefaultExecutionSpace, which Kokkos fixes when it is built (CUDA if enabled, else
// OpenMP, ..., Serial last); naming a space lets one Kokkos install run the same studies on each
// of its backends, for example Serial and OpenMP from the host Kokkos of scripts/setup.sh.
// The library (scan.hpp, reduce.hpp) stays templates on the space; only executables choose.
#pragma once

#include <string>

#include <Kokkos_Core.hpp>

#include "kps/tuning/hardware.hpp"

#if defined(KPS_EXECUTION_SPACE_SERIAL) + defined(KPS_EXECUTION_SPACE_OPENMP) + defined(KPS_EXECUTION_SPACE_THREADS) + \
        defined(KPS_EXECUTION_SPACE_CUDA) + defined(KPS_EXECUTION_SPACE_HIP) >                                 \
    1
#error "kps: more than one KPS_EXECUTION_SPACE_* is defined; KPS_EXECUTION_SPACE (CMake) sets exactly one"
#endif

namespace kps::bench {

#if defined(KPS_EXECUTION_SPACE_SERIAL)
#if !defined(KOKKOS_ENABLE_SERIAL)
#error "kps: built for KPS_EXECUTION_SPACE=Serial, but this Kokkos has no Serial backend (use the Kokkos kps was configured with)"
#endif
using ExecutionSpace = Kokkos::Serial;
#elif defined(KPS_EXECUTION_SPACE_OPENMP)
#if !defined(KOKKOS_ENABLE_OPENMP)
#error "kps: built for KPS_EXECUTION_SPACE=OpenMP, but this Kokkos has no OpenMP backend (use the Kokkos kps was configured with)"
#endif
using ExecutionSpace = Kokkos::OpenMP;
#elif defined(KPS_EXECUTION_SPACE_THREADS)
#if !defined(KOKKOS_ENABLE_THREADS)
#error "kps: built for KPS_EXECUTION_SPACE=Threads, but this Kokkos has no Threads backend (use the Kokkos kps was configured with)"
#endif
using ExecutionSpace = Kokkos::Threads;
#elif defined(KPS_EXECUTION_SPACE_CUDA)
#if !defined(KOKKOS_ENABLE_CUDA)
#error "kps: built for KPS_EXECUTION_SPACE=Cuda, but this Kokkos has no CUDA backend (use the Kokkos kps was configured with)"
#endif
using ExecutionSpace = Kokkos::Cuda;
#elif defined(KPS_EXECUTION_SPACE_HIP)
#if !defined(KOKKOS_ENABLE_HIP)
#error "kps: built for KPS_EXECUTION_SPACE=HIP, but this Kokkos has no HIP backend (use the Kokkos kps was configured with)"
#endif
using ExecutionSpace = Kokkos::HIP;
#else
using ExecutionSpace = Kokkos::DefaultExecutionSpace;
#endif

/// ExecutionSpace's memory space, with ExecutionSpace as the execution space of the Views made
/// with it. Kokkos operations that take their execution space from a View rather than from an
/// argument (deep_copy of a scalar, Kokkos Kernels' BLAS) then run on ExecutionSpace too; a
/// View<T*, Kokkos::HostSpace> would run them on the host's default space instead, which is
/// OpenMP in a Serial build of the host Kokkos.
using DeviceType = Kokkos::Device<ExecutionSpace, ExecutionSpace::memory_space>;

/// Before Kokkos::initialize: an empty string when ExecutionSpace can run on this machine, else a
/// one-line reason (for example: a CUDA build and no GPU visible).
inline std::string preflight() { return kps::impl::BackendHardware<ExecutionSpace>::unavailable(); }

}  // namespace kps::bench
