// bench/support/environment.cpp — the benchmarks' environment description and pre-flight check.
#include "support/environment.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>
#if defined(__linux__)
#include <sched.h>
#endif

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"
#include "kps/tuning/tuning.hpp"
#include "support/execution_space.hpp"

#include "kps_revision.h"  // KPS_GIT_REVISION, written at build time (cmake/kps_revision.cmake)
#ifndef KPS_VERSION
#define KPS_VERSION "unknown"
#endif

namespace kps::bench {

namespace {
/// `text` with the checkout's folder left out of its paths: a table of the checkout reads
/// src/kps/tuning/tables/..., as the runner writes paths (python/kps_report/runner.py: portable).
std::string source_relative(std::string text) {
#if defined(KPS_SOURCE_DIR)
  const std::string root = std::string(KPS_SOURCE_DIR) + "/";
  for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) text.erase(at, root.size());
#endif
  return text;
}

/// The CPUs the execution space's threads may run on (the union of their affinity masks) and the
/// most any one thread may run on (1 where each is bound to a CPU), read on each thread (Linux;
/// empty and 0 elsewhere). A runtime loaded beside the backend can bind the process's first
/// thread before the backend starts its threads, which then inherit one core: libgomp does where
/// OMP_PROC_BIND is set; the union's count shows it. Kokkos::Threads binds its workers only when
/// built with hwloc; the widest mask shows whether they float.
struct ThreadsCpus {
  std::vector<int> cpus;
  int widest = 0;
};
template <class Space>
ThreadsCpus threads_cpus([[maybe_unused]] const Space& space) {
  ThreadsCpus out;
#if defined(__linux__)
  cpu_set_t all;
  CPU_ZERO(&all);
  std::mutex m;
  const int n = space.concurrency();
  Kokkos::parallel_for(
      "kps::threads_cpus", Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Static>>(space, 0, n), [&](int) {
        cpu_set_t mine;
        CPU_ZERO(&mine);
        if (sched_getaffinity(0, sizeof mine, &mine) != 0) return;
        const std::lock_guard<std::mutex> lock(m);
        CPU_OR(&all, &all, &mine);
        out.widest = std::max(out.widest, CPU_COUNT(&mine));
      });
  space.fence();
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) out.cpus.push_back(c);
#endif
  return out;
}

std::string compiler() {
  std::ostringstream os;
#if defined(__NVCC__)
  os << "nvcc " << __CUDACC_VER_MAJOR__ << "." << __CUDACC_VER_MINOR__ << "." << __CUDACC_VER_BUILD__ << " + ";
#endif
#if defined(__clang__)
  os << "clang " << __clang_major__ << "." << __clang_minor__ << "." << __clang_patchlevel__;
#elif defined(__GNUC__)
  os << "g++ " << __GNUC__ << "." << __GNUC_MINOR__ << "." << __GNUC_PATCHLEVEL__;
#else
  os << "unknown";
#endif
  return os.str();
}

std::string kokkos_backends() {
  std::string s;
  auto add = [&](const char* b) {
    if (!s.empty()) s += ',';
    s += b;
  };
#if defined(KOKKOS_ENABLE_SERIAL)
  add("Serial");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  add("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  add("Threads");
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  add("Cuda");
#endif
#if defined(KOKKOS_ENABLE_HIP)
  add("HIP");
#endif
#if defined(KOKKOS_ENABLE_SYCL)
  add("SYCL");
#endif
  return s;
}
}  // namespace

Hardware device_info() {
  // Asked once: a CUDA device's description costs a properties query.
  static const Hardware h = hardware(ExecutionSpace());
  return h;
}

/// Asked once (Kokkos initialized).
static const ThreadsCpus& backend_threads() {
  static const ThreadsCpus t = [] {
    if constexpr (impl::is_host_space_v<ExecutionSpace>)
      return threads_cpus(ExecutionSpace());
    else
      return ThreadsCpus{};  // a GPU's space: no host threads of its own
  }();
  return t;
}

const std::vector<int>& backend_threads_cpus() { return backend_threads().cpus; }

std::map<std::string, std::string> environment() {
  const Hardware d = device_info();
  std::map<std::string, std::string> env{
      {"kps_version", KPS_VERSION},
      {"kps_git_revision", KPS_GIT_REVISION},
      {"kokkos_version", impl::kokkos_version_string()},
      {"kokkos_backends", kokkos_backends()},
      // Kokkos' default and the space kps runs (support/execution_space.hpp), which differ in a
      // build with KPS_EXECUTION_SPACE set; the backend, concurrency and device are kps' space's.
      {"kokkos_default_execution_space", Kokkos::DefaultExecutionSpace::name()},
      {"kps_execution_space", ExecutionSpace::name()},
      {"kokkos_concurrency", std::to_string(ExecutionSpace().concurrency())},
      {"compiler", compiler()},
      {"backend", d.backend},
      {"device", d.name},
      {"device_compute_units", std::to_string(d.compute_units)},
      {"device_memory_bytes", std::to_string(d.memory_bytes)},
      {"device_l2_bytes", std::to_string(d.l2_bytes)},
  };
  if (d.clock_mhz > 0) env["device_clock_mhz"] = std::to_string(static_cast<long>(d.clock_mhz));
  if (d.memory_clock_mhz > 0) env["device_memory_clock_mhz"] = std::to_string(static_cast<long>(d.memory_clock_mhz));
  if (!d.compute_capability.empty()) env["device_compute_capability"] = d.compute_capability;
  if (!d.driver.empty()) env["device_driver"] = d.driver;
  const ExecutionSpace space;
  const TuningSelection& tuning = tuning_table(space);
  env["kps_tuning_table"] = source_relative(tuning.note);
  if constexpr (impl::is_host_space_v<ExecutionSpace>) {
    // How the host's threads ran: the OpenMP settings (any host backend's process may run OpenMP
    // peers), the cores this machine has, and what makes its figures suspect.
    const auto var = [](const char* name) {
      const char* v = std::getenv(name);
      return std::string(v && *v ? v : "unset");
    };
    for (const char* name :
         {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME"}) {
      std::string key = name;
      for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      env[key] = var(name);
    }
    const unsigned cores = std::thread::hardware_concurrency();
    env["host_hardware_threads"] = std::to_string(cores);
    std::string note;
    const long threads = ExecutionSpace().concurrency();
    const int cpus = static_cast<int>(backend_threads_cpus().size());
    const int widest = backend_threads().widest;
    if (cpus > 0) env["host_threads_cpus"] = std::to_string(cpus);
    if (widest > 0) env["host_threads_widest_cpus"] = std::to_string(widest);
    if (cores > 0 && threads > long(cores))
      note = std::to_string(threads) + " threads on " + std::to_string(cores) + " hardware threads: oversubscribed";
    if (cpus > 0 && cpus < threads && cpus < long(cores))
      note += std::string(note.empty() ? "" : "; ") + "the " + std::to_string(threads) + " threads may run on " +
              std::to_string(cpus) + " of the " + std::to_string(cores) + " hardware threads (their affinity)";
    if (threads > 1 && std::string(ExecutionSpace::name()) == "OpenMP" &&
        (var("OMP_PROC_BIND") == "unset" || var("OMP_PROC_BIND") == "false"))
      note += std::string(note.empty() ? "" : "; ") + "OMP_PROC_BIND " + var("OMP_PROC_BIND") + ": threads may move between cores";
    // OpenMP's binding is OMP_PROC_BIND's and OMP_PLACES' (a place may hold a core's hardware
    // threads); another backend's threads that may each run on several CPUs are not bound.
    else if (threads > 1 && widest > 1 && std::string(ExecutionSpace::name()) != "OpenMP")
      note += std::string(note.empty() ? "" : "; ") + "threads not bound: each may run on any of " +
              std::to_string(widest) + " CPUs" +
              (std::string(ExecutionSpace::name()) == "Threads"
                   ? " (Kokkos::Threads binds its workers only in a Kokkos built with hwloc)"
                   : "");
    if (!note.empty()) env["kps_threads_note"] = note;
  }
  return env;
}

}  // namespace kps::bench
