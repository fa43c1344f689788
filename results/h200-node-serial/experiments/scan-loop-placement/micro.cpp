// Serial int32/int64 exclusive scan: kps' cached_scan against the plain loop, same buffers,
// alternating, for several relative offsets of out against in (4K aliasing).
#include "kps/scan/single_pass_cached.hpp"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
template <class T>
__attribute__((noinline)) T kscan(const T* in, T* out, std::size_t n, T off) {
  return kps::impl::cached_scan<Kokkos::Serial, true, false, T>(in, out, n, off);
}
template <class T>
__attribute__((noinline)) void lscan(const T* in, T* out, std::size_t n) {
  T acc = 0;
  for (std::size_t i = 0; i < n; ++i) { const T x = in[i]; out[i] = acc; acc += x; }
}
template <class T>
void run(std::size_t n, std::size_t shift) {
  char* a = static_cast<char*>(std::aligned_alloc(4096, n * sizeof(T) + 8192));
  char* b = static_cast<char*>(std::aligned_alloc(4096, n * sizeof(T) + 8192));
  T* in = reinterpret_cast<T*>(a + 128);
  T* out = reinterpret_cast<T*>(b + 128 + shift);
  for (std::size_t i = 0; i < n; ++i) in[i] = T(i % 7);
  std::vector<double> tk, tl, tt;
  using C = std::chrono::steady_clock;
  const std::size_t tile = 65536 / sizeof(T);
  for (int r = 0; r < 200; ++r) {
    auto t0 = C::now(); kscan<T>(in, out, n, T(0));
    auto t1 = C::now(); lscan<T>(in, out, n);
    auto t2 = C::now(); T p = 0; for (std::size_t f = 0; f < n; f += tile) p = kscan<T>(in + f, out + f, std::min(tile, n - f), p);
    auto t3 = C::now();
    tk.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
    tl.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / n);
    tt.push_back(std::chrono::duration<double, std::nano>(t3 - t2).count() / n);
  }
  for (auto* v : {&tk, &tl, &tt}) std::nth_element(v->begin(), v->begin() + 100, v->end());
  std::printf("%zu-byte n=%zu shift=%zu: kps %.3f ns/elem, loop %.3f, kps tiles %.3f\n", sizeof(T), n, shift, tk[100], tl[100], tt[100]);
  std::free(a); std::free(b);
}
int main() {
  for (std::size_t n : {std::size_t(1) << 16, std::size_t(1) << 20})
    for (std::size_t s : {0, 16, 64, 256, 4032})
      { run<int>(n, s); run<long>(n, s); }
}
