// bench/reduce_bench.cpp — the reduction study's fixtures: reduce/<variant>/<type>/<N>
// (tuned = kps::reduce_sum; peers: kokkos = Kokkos::parallel_reduce over a RangePolicy,
// kokkos_kernels = KokkosBlas::sum, cub = cub::DeviceReduce::Sum on CUDA) and
// dot/<variant>/<type>/<N> (kps::dot vs KokkosBlas::dot). GB/s counts bytes read once.
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_sum.hpp>

#include "checks.hpp"
#include "common.hpp"
#include "kps/cuda/peers.hpp"
#include "kps/reduce.hpp"

namespace kps::bench {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace reduce_fixtures {

template <class T>
using DeviceView = Kokkos::View<T*, Exec::memory_space>;

template <class T>
long double host_sum(const std::vector<T>& x) {
  long double s = 0, c = 0;  // Kahan-compensated in long double
  for (T v : x) {
    const long double y = (long double)v - c;
    const long double t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return s;
}

/// Times `f` (returns the reduced value), checks its value, sets GB/s and ratio_to_copy.
template <class T, class F>
void run_reduction(benchmark::State& state, std::size_t n, int inputs, const std::string& variant, F&& f) {
  const Exec exec;
  try {
    auto x = random_view<T>("kps::bench::x", n, 777 + n);
    auto y = random_view<T>("kps::bench::y", n, 778 + n);
    T result = T(0);
    timed_loop(state, exec, [&] { result = f(x, y); });
    benchmark::DoNotOptimize(result);
    long double want;
    if (inputs == 1) {
      want = host_sum(to_host(x));
    } else {
      const auto hx = to_host(x), hy = to_host(y);
      want = 0;
      for (std::size_t i = 0; i < n; ++i) want += (long double)hx[i] * hy[i];
    }
    const std::string error = compare_scalar(f(x, y), want, n);
    if (!error.empty()) return fail(state, variant + ": " + error);
    set_rates(state, n, double(inputs) * n * sizeof(T));
    const double t = median_seconds(exec, [&] { result = f(x, y); });
    DeviceView<T> copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::copy"), n);
    const double t_copy = median_seconds(exec, [&] { Kokkos::deep_copy(exec, copy, x); });
    // read bandwidth of this variant over the read bandwidth implied by the copy (it reads and writes)
    state.counters["ratio_to_copy"] = (inputs * t_copy) / (2.0 * t);
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>)
      if (inputs == 1) {
        const double t_cub = median_seconds(exec, [&] { result = kps::cuda::cub_sum(exec, x.data(), n); });
        state.counters["ratio_to_cub"] = t_cub / t;
      }
#endif
  } catch (const std::exception& e) {
    fail(state, variant + ": " + e.what());
  }
}

template <class T>
void register_type(const Options& o, std::size_t n) {
  const std::string suffix = std::string("/") + type_name<T>() + "/" + std::to_string(n);
  require_memory(o, "reduce" + suffix, n, 3 * n * sizeof(T));
  add("reduce/tuned" + suffix, [=](benchmark::State& s) {
    run_reduction<T>(s, n, 1, "tuned", [](const DeviceView<T>& x, const DeviceView<T>&) { return reduce_sum(Exec(), x); });
  });
  add("reduce/kokkos" + suffix, [=](benchmark::State& s) {
    run_reduction<T>(s, n, 1, "kokkos", [](const DeviceView<T>& x, const DeviceView<T>&) {
      T r = T(0);
      Kokkos::parallel_reduce(
          "kps::bench::kokkos_reduce", Kokkos::RangePolicy<Exec>(Exec(), 0, x.extent(0)),
          KOKKOS_LAMBDA(std::size_t i, T & u) { u += x(i); }, r);
      return r;
    });
  });
  add("reduce/kokkos_kernels" + suffix, [=](benchmark::State& s) {
    run_reduction<T>(s, n, 1, "kokkos_kernels", [](const DeviceView<T>& x, const DeviceView<T>&) {
      Kokkos::View<T, Kokkos::HostSpace> r("kps::bench::kk_sum");
      KokkosBlas::sum(r, x);
      return r();
    });
  });
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>)
    add("reduce/cub" + suffix, [=](benchmark::State& s) {
      run_reduction<T>(s, n, 1, "cub", [](const DeviceView<T>& x, const DeviceView<T>&) {
        return kps::cuda::cub_sum(Exec(), x.data(), x.extent(0));
      });
    });
#endif
  add("dot/kps" + suffix, [=](benchmark::State& s) {
    run_reduction<T>(s, n, 2, "kps", [](const DeviceView<T>& x, const DeviceView<T>& y) { return dot(Exec(), x, y); });
  });
  add("dot/kokkos_kernels" + suffix, [=](benchmark::State& s) {
    run_reduction<T>(s, n, 2, "kokkos_kernels",
                     [](const DeviceView<T>& x, const DeviceView<T>& y) { return KokkosBlas::dot(x, y); });
  });
}

void register_reductions(const Options& o) {
  for_each_size_and_type(o, [&](auto t, std::size_t n) { register_type<decltype(t)>(o, n); });
}

}  // namespace reduce_fixtures
}  // namespace kps::bench

KPS_BENCH_REGISTER(kps::bench::reduce_fixtures::register_reductions);
