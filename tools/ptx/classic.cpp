// Instantiates every kernel of today's sums and scans (the four types, every algorithm and policy
// kind the dispatch compiles) on Kokkos::Cuda, for a PTX comparison between two trees.
#include <kps/reduce.hpp>
#include <kps/scan.hpp>
template <class T>
void all(const Kokkos::Cuda& e, Kokkos::View<T*, Kokkos::CudaSpace> a, Kokkos::View<T*, Kokkos::CudaSpace> b,
         Kokkos::View<T, Kokkos::CudaSpace> r) {
  kps::exclusive_scan(e, a, b, kps::ScanAlgorithm::automatic);
  kps::inclusive_scan(e, a, b, kps::ScanAlgorithm::automatic);
  (void)kps::reduce_sum(e, a);
  kps::reduce_sum(e, a, r);
  (void)kps::dot(e, a, b);
  kps::dot(e, a, b, r);
}
template void all<int>(const Kokkos::Cuda&, Kokkos::View<int*, Kokkos::CudaSpace>, Kokkos::View<int*, Kokkos::CudaSpace>, Kokkos::View<int, Kokkos::CudaSpace>);
template void all<long>(const Kokkos::Cuda&, Kokkos::View<long*, Kokkos::CudaSpace>, Kokkos::View<long*, Kokkos::CudaSpace>, Kokkos::View<long, Kokkos::CudaSpace>);
template void all<float>(const Kokkos::Cuda&, Kokkos::View<float*, Kokkos::CudaSpace>, Kokkos::View<float*, Kokkos::CudaSpace>, Kokkos::View<float, Kokkos::CudaSpace>);
template void all<double>(const Kokkos::Cuda&, Kokkos::View<double*, Kokkos::CudaSpace>, Kokkos::View<double*, Kokkos::CudaSpace>, Kokkos::View<double, Kokkos::CudaSpace>);
