// bench/host/openmp_peers.cpp — OpenMP 5's own scan and sum (`openmp`): a `parallel for` with
// reduction(inscan, +) and a `scan exclusive` directive (g++ >= 10), and `parallel for simd` with
// reduction(+) (simd: the compiler may reorder the floating-point adds, as an OpenMP user
// allows it to); float totals in double (host/peers.hpp). Compiled with the compiler's OpenMP flags where CMake finds OpenMP. The threads
// are OpenMP's default team (OMP_NUM_THREADS), the same pool as Kokkos::OpenMP's: in the rounds
// on that backend, left out on the others (host/peers.hpp: host_placement).
#include <cstddef>
#include <cstdint>
#include <limits>

#include <omp.h>

#include "host/peers.hpp"

namespace kps::bench::host {
namespace {

template <class T>
struct OpenMPCalls {
  static constexpr const char* name = "openmp";
  static void scan(const T* in, T* out, std::size_t n) {
    Accumulator<T> acc = 0;
#pragma omp parallel for reduction(inscan, + : acc)
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = T(acc);
#pragma omp scan exclusive(acc)
      acc += in[i];
    }
  }
  static T sum(const T* x, std::size_t n) {
    Accumulator<T> s = 0;
#pragma omp parallel for simd reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += x[i];
    return T(s);
  }
};

/// OpenMP's forms of the operators-and-types problems: a `declare reduction` of the operator (its
/// identity as each thread's start) in a `parallel for` reduction, and in an inscan reduction with
/// an exclusive `scan` directive; argmin and argmax a declare reduction of (value, index) pairs.
/// OpenMP does not promise the order a reduction combines its threads' values in: a
/// non-commutative operator (the segmented pair) may come out wrong, and is then marked so.
struct OpenMPOps {
  template <class Op, class T>
  static void scan(const T* in, T* out, std::size_t n, T init) {
    const Op op{};
#pragma omp declare reduction(kps_op:T : omp_out = Op{}(omp_out, omp_in)) \
    initializer(omp_priv = kps::operator_traits<Op, T>::identity(Op{}))
    T acc = init;
#pragma omp parallel for reduction(inscan, kps_op : acc)
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = acc;
#pragma omp scan exclusive(acc)
      acc = op(acc, in[i]);
    }
  }
  template <class Op, class T>
  static T reduce(const T* x, std::size_t n, T init) {
    const Op op{};
#pragma omp declare reduction(kps_op:T : omp_out = Op{}(omp_out, omp_in)) \
    initializer(omp_priv = kps::operator_traits<Op, T>::identity(Op{}))
    T acc = init;
#pragma omp parallel for simd reduction(kps_op : acc)
    for (std::size_t i = 0; i < n; ++i) acc = op(acc, x[i]);
    return acc;
  }
  template <bool Max, class T>
  static ValueIndex<T> arg(const T* x, std::size_t n) {
    using A = ValueIndex<T>;
#pragma omp declare reduction(kps_arg:A : omp_out = better<Max>(omp_out, omp_in)) \
    initializer(omp_priv = A{omp_orig.value, std::numeric_limits<std::int64_t>::max()})
    if (n == 0) return {T{}, -1};
    A best{x[0], 0};
#pragma omp parallel for reduction(kps_arg : best)
    for (std::size_t i = 0; i < n; ++i) best = better<Max>(best, A{x[i], std::int64_t(i)});
    return best;
  }
};

/// A parallel region of OpenMP's default team that does nothing: the floor of the peer's calls
/// (openmp_floor), as an empty Kokkos launch (launch_floor) is kps'. Its body writes a variable
/// no thread reaches (g++ -O3 drops a region whose body is empty: 0.1 us on two cores, where
/// this one takes 0.7).
volatile int region_reached = 0;
void empty_region() {
#pragma omp parallel
  {
    if (omp_get_thread_num() < 0) region_reached = region_reached + 1;
  }
}

[[maybe_unused]] const int registered = add_peer_provider(openmp_rank, [](Peers& all) {
  const std::size_t had = all.sums<std::int32_t>().size();
  add_host_peer<OpenMPCalls>(all, "openmp", "openmp");
  add_host_op_peers<OpenMPOps>(all, "openmp", "openmp");
  const auto& sums = all.sums<std::int32_t>();
  if (sums.size() > had && sums.back().placement == Placement::rounds) all.add_floor("openmp_floor", empty_region);
});

}  // namespace
}  // namespace kps::bench::host
