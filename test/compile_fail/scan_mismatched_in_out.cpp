// A scan of int into double: refused at compile time (a transform scan maps types).
#include <kps/scan.hpp>
void f(Kokkos::View<int*, Kokkos::HostSpace> a, Kokkos::View<double*, Kokkos::HostSpace> b) {
  kps::inclusive_scan(Kokkos::DefaultHostExecutionSpace(), a, b, kps::plus{});
}
