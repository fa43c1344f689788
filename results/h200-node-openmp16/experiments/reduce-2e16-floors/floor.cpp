// Where a 2^16-element host sum's microseconds go: interleaved rounds, medians.
#include <Kokkos_Core.hpp>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#include "kps/reduce.hpp"
using Exec = Kokkos::OpenMP;
using Member = Kokkos::TeamPolicy<Exec>::member_type;
template <class T>
struct Share {
  const T* x; std::size_t n;
  KOKKOS_INLINE_FUNCTION T part(const Member& m) const {
    std::size_t G = m.league_size(), g = m.league_rank();
    std::size_t b = g * n / G, e = (g + 1) * n / G; T s = 0;
    for (std::size_t i = b; i < e; ++i) s += x[i];
    return s;
  }
};
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const std::size_t n = argc > 1 ? std::stoul(argv[1]) : 65536;
    const int rounds = argc > 2 ? std::stoi(argv[2]) : 2000;
    using T = int;
    Kokkos::View<T*, Kokkos::HostSpace> v("x", n);
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(std::size_t i) { v(i) = T(i % 7); });
    Kokkos::fence();
    const T want = [&] { long long s = 0; for (std::size_t i = 0; i < n; ++i) s += i % 7; return T(s); }();
    const T* x = v.data();
    const int P = Exec().concurrency();
    volatile T sink = 0;
    std::vector<std::string> names;
    std::vector<std::function<T()>> calls;
    auto add = [&](const char* name, std::function<T()> f) { names.push_back(name); calls.push_back(f); };
    add("omp empty region", [&] { T r = 0;
#pragma omp parallel
      { if (omp_get_thread_num() < 0) r = 1; }
      return want + r; });
    add("omp reduction(+) sum", [&] { T s = 0;
#pragma omp parallel for simd reduction(+ : s)
      for (std::size_t i = 0; i < n; ++i) s += x[i];
      return s; });
    add("kokkos empty parallel_for team", [&] {
      Kokkos::parallel_for(Kokkos::TeamPolicy<Exec>(P, 1), KOKKOS_LAMBDA(const Member&) {}); Kokkos::fence(); return want; });
    add("kokkos empty parallel_for range", [&] {
      Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(int) {}); Kokkos::fence(); return want; });
    add("kokkos empty parallel_reduce team", [&] { T r = 0;
      Kokkos::parallel_reduce(Kokkos::TeamPolicy<Exec>(P, 1), KOKKOS_LAMBDA(const Member&, T&) {}, r); return want + r; });
    add("kokkos team parallel_reduce sum", [&] { T r = 0; Share<T> s{x, n};
      Kokkos::parallel_reduce(Kokkos::TeamPolicy<Exec>(P, 1), KOKKOS_LAMBDA(const Member& m, T& u) { u += s.part(m); }, r); return r; });
    add("kokkos team parallel_for sum, atomic add", [&] { T r = 0; T* rp = &r; Share<T> s{x, n};
      Kokkos::parallel_for(Kokkos::TeamPolicy<Exec>(P, 1), KOKKOS_LAMBDA(const Member& m) { Kokkos::atomic_add(rp, s.part(m)); }); Kokkos::fence(); return r; });
    add("kokkos team parallel_for sum, slots then host adds", [&] { static T slot[64 * 16]; Share<T> s{x, n}; T* sp = slot;
      Kokkos::parallel_for(Kokkos::TeamPolicy<Exec>(P, 1), KOKKOS_LAMBDA(const Member& m) { sp[16 * m.league_rank()] = s.part(m); }); Kokkos::fence();
      T r = 0; for (int g = 0; g < P; ++g) r += slot[16 * g]; return r; });
    add("kokkos range parallel_reduce sum", [&] { T r = 0;
      Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(std::size_t i, T& u) { u += x[i]; }, r); return r; });
    add("kps::reduce_sum team 1 items 128 league P", [&] {
      kps::ReducePolicy p; p.team_size = 1; p.items_per_thread = 128; p.league_size = P; return kps::reduce_sum(Exec(), v, p); });
    add("kps::reduce_sum (table)", [&] { return kps::reduce_sum(Exec(), v); });
    std::vector<std::vector<double>> t(calls.size());
    for (int r = 0; r < rounds + 50; ++r)
      for (std::size_t k = 0; k < calls.size(); ++k) {
        auto a = std::chrono::steady_clock::now();
        T got = calls[k]();
        auto b = std::chrono::steady_clock::now();
        if (got != want) { std::fprintf(stderr, "%s: wrong %lld != %lld\n", names[k].c_str(), (long long)got, (long long)want); return 1; }
        sink = got;
        if (r >= 50) t[k].push_back(std::chrono::duration<double, std::micro>(b - a).count());
      }
    std::printf("n=%zu threads=%d rounds=%d (median, p10, p90 us)\n", n, P, rounds);
    for (std::size_t k = 0; k < calls.size(); ++k) {
      auto& s = t[k]; std::sort(s.begin(), s.end());
      std::printf("%-52s %7.2f %7.2f %7.2f\n", names[k].c_str(), s[s.size() / 2], s[s.size() / 10], s[s.size() * 9 / 10]);
    }
  }
  Kokkos::finalize();
}
