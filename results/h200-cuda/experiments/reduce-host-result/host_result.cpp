// host_result.cpp — what a reduction returned to the host costs on CUDA, layer by layer: kps'
// host code (table lookup, policy check), the enqueue of a launch (raw CUDA, Kokkos, kps), and
// the round trip to the value (launch, kernel, fence) with the value written to device memory,
// to Kokkos' host scalar (Kokkos' own path), or to a View in shared pinned memory, against an
// empty launch, the streaming read of kps-bench and the toolkit's CUB (DeviceReduce::Sum) in
// the same forms. Host wall time of each form, median and
// 10th / 90th percentiles of interleaved repetitions (2001 at 2^10, 61 at 2^28), int32.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include "kps/reduce.hpp"
#include "kernels/stream_read.hpp"

using Exec = Kokkos::Cuda;
using clk = std::chrono::steady_clock;

__global__ void empty_kernel() {}

struct Empty {
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type&) const {}
};

static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double pct(std::vector<double> v, double p) { std::sort(v.begin(), v.end()); return v[size_t(p * (v.size() - 1))]; }

struct Case { std::string name; std::function<void()> call; bool round_trip; };

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Exec exec;
  for (std::size_t n : {std::size_t(1) << 10, std::size_t(1) << 28}) {
    Kokkos::View<int*, Kokkos::CudaSpace> x("x", n);
    Kokkos::deep_copy(x, 1);
    Kokkos::View<int, Kokkos::CudaSpace> r("r");
    Kokkos::View<int, Kokkos::CudaSpace> flag("flag");
    Kokkos::View<int, Kokkos::SharedHostPinnedSpace> pinned("pinned");
    // The toolkit's CUB: DeviceReduce::Sum into device memory, then to the host by a copy into
    // pageable memory (which returns once done), with or without a synchronize after it; or
    // straight into pinned host memory and one synchronize.
    const cudaStream_t s = exec.cuda_stream();
    std::size_t temp_bytes = 0;
    cub::DeviceReduce::Sum(nullptr, temp_bytes, x.data(), r.data(), int(n), s);
    Kokkos::View<char*, Kokkos::CudaSpace> temp("temp", temp_bytes);
    const auto cub_to = [&](int* out) { cub::DeviceReduce::Sum(temp.data(), temp_bytes, x.data(), out, int(n), s); };
    const auto tp = kps::impl::tuned_policy<int>(exec, n);
    const kps::ReducePolicy pv = kps::impl::validate<Exec, int>(exec, tp.policy, n, kps::impl::SumLoad<int>{x.data()});
    std::printf("n=%zu policy team %d items %d league %d v %d -> league %d v %d\n", n, tp.policy.team_size,
                tp.policy.items_per_thread, tp.policy.league_size, tp.policy.vector_width, pv.league_size, pv.vector_width);
    int sink = 0;
    const auto direct = [&](auto&& result) {
      kps::impl::ReduceTeamPolicy<Exec> policy(exec, pv.league_size, pv.team_size);
      kps::impl::ReduceKernel<Exec, int, 4, kps::impl::SumLoad<int>, std::uint32_t> k{kps::impl::SumLoad<int>{x.data()}, n};
      Kokkos::parallel_reduce("direct", policy, k, result);
    };
    std::vector<Case> cases = {
        {"host: tuned_policy", [&] { sink += kps::impl::tuned_policy<int>(exec, n).policy.team_size; }, false},
        {"host: validate", [&] { sink += kps::impl::validate<Exec, int>(exec, tp.policy, n, kps::impl::SumLoad<int>{x.data()}).league_size; }, false},
        {"host: team_size_max (v4)", [&] { sink += kps::impl::kernel_team_size_limit<Exec, int, kps::impl::SumLoad<int>>(exec, 4); }, false},
        {"enqueue: raw empty kernel", [&] { empty_kernel<<<1, 32, 0, exec.cuda_stream()>>>(); }, false},
        {"enqueue: Kokkos empty parallel_for", [&] { Kokkos::parallel_for("e", Kokkos::TeamPolicy<Exec>(exec, 1, 32), Empty{}); }, false},
        {"enqueue: stream_read", [&] { kps::bench::stream_read(exec, x.data(), n, flag.data()); }, false},
        {"enqueue: Kokkos parallel_reduce direct -> View", [&] { direct(r); }, false},
        {"enqueue: kps reduce_sum -> View", [&] { kps::reduce_sum(exec, x, r); }, false},
        {"round trip: idle cudaStreamSynchronize", [&] { cudaStreamSynchronize(exec.cuda_stream()); }, true},
        {"round trip: idle exec.fence", [&] { exec.fence(); }, true},
        {"round trip: raw empty kernel + sync", [&] { empty_kernel<<<1, 32, 0, exec.cuda_stream()>>>(); cudaStreamSynchronize(exec.cuda_stream()); }, true},
        {"round trip: Kokkos empty parallel_for + fence", [&] { Kokkos::parallel_for("e", Kokkos::TeamPolicy<Exec>(exec, 1, 32), Empty{}); exec.fence(); }, true},
        {"round trip: stream_read + fence", [&] { kps::bench::stream_read(exec, x.data(), n, flag.data()); exec.fence(); }, true},
        {"round trip: direct -> View + fence", [&] { direct(r); exec.fence(); }, true},
        {"round trip: direct -> host int", [&] { int h = 0; direct(h); sink += h; }, true},
        {"round trip: direct -> host int + fence", [&] { int h = 0; direct(h); sink += h; exec.fence(); }, true},
        {"round trip: kps reduce_sum -> View + fence", [&] { kps::reduce_sum(exec, x, r); exec.fence(); }, true},
        {"round trip: direct -> pinned View + fence", [&] { direct(pinned); exec.fence(); sink += pinned(); }, true},
        {"round trip: kps reduce_sum -> pinned View + fence", [&] { kps::reduce_sum(exec, x, pinned); exec.fence(); sink += pinned(); }, true},
        {"round trip: CUB -> device + copy", [&] { int h = 0; cub_to(r.data()); cudaMemcpyAsync(&h, r.data(), sizeof(int), cudaMemcpyDeviceToHost, s); sink += h; }, true},
        {"round trip: CUB -> device + copy + sync", [&] { int h = 0; cub_to(r.data()); cudaMemcpyAsync(&h, r.data(), sizeof(int), cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); sink += h; }, true},
        {"round trip: CUB -> pinned + sync", [&] { cub_to(pinned.data()); cudaStreamSynchronize(s); sink += pinned(); }, true},
        {"round trip: kps reduce_sum sync", [&] { sink += kps::reduce_sum(exec, x); }, true},
        {"round trip: kps reduce_sum sync + fence", [&] { sink += kps::reduce_sum(exec, x); exec.fence(); }, true},
    };
    {  // every form's value, once: x holds ones
      int h = 0;
      cub_to(r.data());
      cudaMemcpyAsync(&h, r.data(), sizeof(int), cudaMemcpyDeviceToHost, s);
      cub_to(pinned.data());
      cudaStreamSynchronize(s);
      const int kps_sync = kps::reduce_sum(exec, x);
      if (h != int(n) || pinned() != int(n) || kps_sync != int(n)) {
        std::fprintf(stderr, "n=%zu: wrong sums: CUB copy %d, CUB pinned %d, kps %d\n", n, h, pinned(), kps_sync);
        return 1;
      }
    }
    const int reps = n < (1u << 20) ? 2001 : 61;
    std::vector<std::vector<double>> t(cases.size());
    for (auto& c : cases) c.call();
    exec.fence();
    for (int rep = 0; rep < reps; ++rep)
      for (std::size_t k = 0; k < cases.size(); ++k) {
        auto& c = cases[(k + rep) % cases.size()];
        const auto t0 = clk::now();
        c.call();
        const auto t1 = clk::now();
        if (!c.round_trip) exec.fence();
        t[(k + rep) % cases.size()].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
    for (std::size_t k = 0; k < cases.size(); ++k)
      std::printf("n=%-10zu %-48s median %9.2f us  p10 %9.2f  p90 %9.2f\n", n, cases[k].name.c_str(), med(t[k]), pct(t[k], 0.1), pct(t[k], 0.9));
    std::printf("sink %d\n", sink);
  }
  return 0;
}
