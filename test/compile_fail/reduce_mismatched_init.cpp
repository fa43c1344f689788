// A reduction of floats from a double: refused at compile time.
#include <kps/reduce.hpp>
float f(Kokkos::View<float*, Kokkos::HostSpace> a) {
  return kps::reduce(Kokkos::DefaultHostExecutionSpace(), a, 0.0, kps::maximum{});
}
