// bench/cuda/event_timer.cpp — see event_timer.hpp.
#include "cuda/event_timer.hpp"

#include <stdexcept>
#include <string>

namespace kps::bench::cuda {

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("kps event timer: ") + what + ": " + cudaGetErrorString(e));
}
}  // namespace

EventTimer::EventTimer() {
  check(cudaEventCreate(&start_), "cudaEventCreate");
  check(cudaEventCreate(&stop_), "cudaEventCreate");
}

EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void EventTimer::start(const Kokkos::Cuda& exec) { check(cudaEventRecord(start_, exec.cuda_stream()), "cudaEventRecord"); }

void EventTimer::stop(const Kokkos::Cuda& exec) { check(cudaEventRecord(stop_, exec.cuda_stream()), "cudaEventRecord"); }

double EventTimer::seconds() const {
  check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return 1e-3 * ms;
}

}  // namespace kps::bench::cuda
