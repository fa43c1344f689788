// bench/host/openmp_peers.cpp — OpenMP 5's own scan and sum (`openmp`): a `parallel for` with
// reduction(inscan, +) and a `scan exclusive` directive (g++ >= 10), and `parallel for simd` with
// reduction(+) (simd: the compiler may reorder the floating-point adds, as an OpenMP user
// allows it to); float totals in double (host/peers.hpp). Compiled with the compiler's OpenMP flags where CMake finds OpenMP. The threads
// are OpenMP's default team (OMP_NUM_THREADS), the same pool as Kokkos::OpenMP's: in the rounds
// on that backend, left out on the others (host/peers.hpp: host_placement).
#include <cstddef>
#include <cstdint>

#include "host/peers.hpp"

namespace kps::bench::host {
namespace {

template <class T>
void exclusive_scan(const T* in, T* out, std::size_t n) {
  Accumulator<T> acc = 0;
#pragma omp parallel for reduction(inscan, + : acc)
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = T(acc);
#pragma omp scan exclusive(acc)
    acc += in[i];
  }
}

template <class T>
T sum(const T* x, std::size_t n) {
  Accumulator<T> s = 0;
#pragma omp parallel for simd reduction(+ : s)
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return T(s);
}

template <class T>
void add_peers(Peers& all, Placement placement) {
  all.add(ScanPeer<T>{"openmp", [](const Exec&, const T* in, T* out, std::size_t n) { exclusive_scan(in, out, n); },
                      placement, true});
  all.add(SumPeer<T>{"openmp", [](const Exec&, const T* x, std::size_t n) { return sum(x, n); }, {}, placement});
}

[[maybe_unused]] const int registered = add_peer_provider(openmp_rank, [](Peers& all) {
  if constexpr (kps::impl::is_host_space_v<Exec>) {
    std::string why;
    const std::optional<Placement> placement = host_placement("openmp", why);
    if (!placement) return all.note(why);
    add_peers<std::int32_t>(all, *placement);
    add_peers<std::int64_t>(all, *placement);
    add_peers<float>(all, *placement);
    add_peers<double>(all, *placement);
  }
});

}  // namespace
}  // namespace kps::bench::host
