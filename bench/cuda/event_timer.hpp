// bench/cuda/event_timer.hpp — GPU-side time of work on a Kokkos::Cuda instance's stream, from
// two CUDA events: what the GPU spent between the markers, without the host's launch and
// wake-up costs that a host timer around a fence also counts. Declared for any build,
// defined only where Kokkos has CUDA.
#pragma once

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
namespace kps::bench::cuda {

/// Records a start and a stop event on an instance's stream; seconds() waits for the stop
/// event and returns the time between them. Every CUDA call is checked (std::runtime_error).
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(const Kokkos::Cuda& exec);
  void stop(const Kokkos::Cuda& exec);
  double seconds() const;

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace kps::bench::cuda
#endif
