// kps/tuning/hardware.hpp — what kps knows of the hardware an execution space runs on: the key of
// its tuning table (kps/tuning/table.hpp), and what benchmark results carry beside them. Each
// backend folder describes its own (kps/host/hardware.cpp, kps/cuda/hardware.cpp), reached
// through the BackendHardware trait; kps::hardware(exec) is the one entry point.
#pragma once

#include <cstddef>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

namespace kps {

/// The hardware behind an execution space instance.
struct Hardware {
  std::string backend;             ///< Kokkos' name of the execution space ("Cuda", "OpenMP", "Serial", ...)
  std::string name;                ///< GPU or CPU model
  int compute_units = 0;           ///< SMs on a GPU, hardware threads on a CPU
  int concurrency = 0;             ///< Kokkos' concurrency of the space (threads it runs at once)
  std::size_t memory_bytes = 0;    ///< device memory (GPU) or physical memory (CPU)
  std::size_t l2_bytes = 0;        ///< last-level cache of the device, 0 where unknown
  double clock_mhz = 0;            ///< peak core clock, 0 where unknown
  double memory_clock_mhz = 0;     ///< peak memory clock, 0 where unknown
  std::string compute_capability;  ///< "9.0" on an H100; empty on a CPU
  std::string driver;              ///< CUDA driver and runtime versions; empty on a CPU
  int device_id = 0;               ///< the device's index among the backend's (0 on a host)
};

namespace impl {

/// The CPU this process runs on (/proc on Linux), for a host space of Kokkos name `backend`.
Hardware host_hardware(const std::string& backend, int concurrency);

/// How a backend describes its hardware; host spaces by default, a device backend specializes it
/// in its folder (kps/cuda/hardware.hpp, kps/hip/hardware.hpp). device_id: which of the backend's
/// devices exec runs on; unavailable(): empty where the backend can run here (callable before
/// Kokkos starts), else one line saying why not.
template <class Exec, class Enable = void>
struct BackendHardware {
  static int device_id(const Exec&) { return 0; }
  static std::string unavailable() { return {}; }
  static Hardware describe(const Exec& exec) {
    Hardware h = host_hardware(Exec::name(), static_cast<int>(exec.concurrency()));
    if constexpr (!is_host_space_v<Exec>) {
      h.name = std::string(Exec::name()) + " device";  // a device backend without a description of its own
      h.compute_units = 0;
      h.memory_bytes = 0;
    }
    return h;
  }
};

}  // namespace impl

/// The hardware exec runs on (Kokkos must be initialized).
template <class Exec>
Hardware hardware(const Exec& exec) {
  return impl::BackendHardware<Exec>::describe(exec);
}

}  // namespace kps

#if defined(KOKKOS_ENABLE_CUDA)
#include "kps/cuda/hardware.hpp"
#endif
#include "kps/hip/hardware.hpp"  // empty without HIP
