// Uses kps from its installed package, as another project would: find_package(kps), kps::kps,
// a scan and a sum on Kokkos' default execution space (the library takes any space).
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <kps/reduce.hpp>
#include <kps/scan.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  Kokkos::View<int*> v("v", 1000);
  Kokkos::deep_copy(v, 1);
  const int sum = kps::reduce_sum(Exec(), v);
  kps::exclusive_scan(Exec(), v, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  const bool ok = sum == 1000 && h(999) == 999;
  std::printf("kps consumer (%s): sum=%d last=%d %s\n", Exec::name(), sum, int(h(999)), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
