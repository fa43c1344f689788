// Uses kps from its installed package: an exclusive scan and a sum on the default space.
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <kps/reduce.hpp>
#include <kps/scan.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Kokkos::View<int*> v("v", 1000);
  Kokkos::deep_copy(v, 1);
  const int sum = kps::reduce_sum(Kokkos::DefaultExecutionSpace(), v);
  kps::exclusive_scan(Kokkos::DefaultExecutionSpace(), v, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  const bool ok = sum == 1000 && h(999) == 999;
  std::printf("kps consumer: sum=%d last=%d %s\n", sum, int(h(999)), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
