// kps/device.hpp — what kps knows of the machine it runs on, through one small interface
// that each backend folder implements (host/ and cuda/): benchmark context, reports, the
// reduction's lookup tables and the sweeps' size limits use it.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace kps {

/// The device kps::ExecutionSpace (kps/execution_space.hpp) runs on.
struct DeviceInfo {
  std::string backend;             ///< Kokkos' name of kps::ExecutionSpace ("Cuda", "OpenMP", "Serial", ...)
  std::string name;                ///< GPU or CPU model
  int compute_units = 0;           ///< SMs on a GPU, hardware threads on a CPU
  std::size_t memory_bytes = 0;    ///< device memory (GPU) or physical memory (CPU)
  double clock_mhz = 0;            ///< peak core clock, 0 where unknown
  double memory_clock_mhz = 0;     ///< peak memory clock, 0 where unknown
  std::string compute_capability;  ///< "9.0" on an H100, empty on a CPU
  std::string driver;              ///< CUDA driver version, empty on a CPU
  std::size_t l2_bytes = 0;        ///< last-level cache visible to the device, 0 where unknown
};

/// Describes kps::ExecutionSpace's device (Kokkos must be initialized).
DeviceInfo device_info();

/// Before Kokkos::initialize: an empty string when kps::ExecutionSpace can run on
/// this machine, else a one-line reason (for example: a CUDA build and no GPU visible).
std::string preflight();

/// Everything a result needs next to it: Kokkos version and backends, compiler, device,
/// kps version and git revision. Keys are stable (used as benchmark context).
std::map<std::string, std::string> environment();

}  // namespace kps
