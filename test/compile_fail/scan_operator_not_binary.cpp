// A scan whose operator takes one value: refused at compile time.
#include <kps/scan.hpp>
struct Negate {
  KOKKOS_FUNCTION int operator()(const int& a) const { return -a; }
};
void f(Kokkos::View<int*, Kokkos::HostSpace> a) {
  kps::inclusive_scan(Kokkos::DefaultHostExecutionSpace(), a, a, Negate{});
}
