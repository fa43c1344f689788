// kps/host/host_device.cpp — device description when kps' execution space (kps::ExecutionSpace)
// is a host backend (Serial, OpenMP, Threads): the CPU model and memory from /proc on Linux.
#include <fstream>
#include <string>
#include <thread>

#include <Kokkos_Core.hpp>

#include "kps/device.hpp"
#include "kps/execution_space.hpp"

namespace kps {

namespace {
std::string proc_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const auto start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  return "";
}
}  // namespace

DeviceInfo device_info() {
  DeviceInfo d;
  d.backend = ExecutionSpace::name();
  d.name = proc_field("/proc/cpuinfo", "model name");
  if (d.name.empty()) d.name = "unknown CPU";
  d.compute_units = static_cast<int>(std::thread::hardware_concurrency());
  const std::string mem = proc_field("/proc/meminfo", "MemTotal");  // "24576000 kB"
  if (!mem.empty()) d.memory_bytes = std::stoull(mem) * 1024ull;
  const std::string mhz = proc_field("/proc/cpuinfo", "cpu MHz");
  if (!mhz.empty()) d.clock_mhz = std::stod(mhz);
  return d;
}

std::string preflight() { return {}; }

}  // namespace kps
