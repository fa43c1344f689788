// test/test_operator_types.cpp — the scans of user types (a segmented scan's 16-byte (flag, value)
// pair, a 32-byte 2x2 matrix product, a 12-byte record), an operator without an identity,
// Kokkos' half_t where the backend has one, LayoutStride Views, transforms, more than 2^31
// elements of a 1-byte type, and the API's errors, as test_operators.cpp checks the named types.
#include "operator_scans.hpp"

namespace kps::test {
namespace operator_tests {

// User types: a non-commutative 16-byte pair (a segmented sum), a non-commutative 32-byte product,
// a 12-byte record, an operator without an identity.
TEST(OperatorScan, SegmentedSum) { check_scans<Segment>(SegmentedPlus{}, std::nullopt); }
TEST(OperatorScan, MatrixProductInit) { check_scans<Matrix2>(MatrixProduct{}, Matrix2{1, 5, 0, 1}); }
TEST(OperatorScan, RecordMax) { check_scans<Record>(RecordMax{}, std::nullopt); }
TEST(OperatorScan, OperatorWithoutIdentity) { check_scans<int>(MaxWithoutIdentity{}, std::nullopt); }

// The segmented scan's look-back through windows of aggregates only (every tile walks back to
// tile 0, waiting on predecessors), lanes of 4 and 32: the ordered reduction of a window, on a CPU.
TEST(OperatorScan, SegmentedSumAggregatesOnly) {
  using T = Segment;
  using P = impl::ScanProblem<T, SegmentedPlus, const T*, T*, impl::NoInit>;
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    for (int lanes : {1, 4, 32})
      for (TileLoad load : {TileLoad::direct, TileLoad::staged, TileLoad::cached}) {
        SinglePassPolicy p{lanes, load == TileLoad::cached ? 64 : 8, load};
        p.lanes = lanes;
        if (!impl::single_pass_launchable<Exec, T, SegmentedPlus>(exec, p)) continue;
        for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(20011)}) {
          SCOPED_TRACE("lanes=" + std::to_string(lanes) + " load=" + to_string(load) + " n=" + std::to_string(n));
          const std::vector<T> x = values_of<T>(n, 5);
          auto in = to_device<T, Space>(x);
          Kokkos::View<T*, Space> out("kps::test::out", n);
          impl::Workspace<Exec> ws;
          for (bool deterministic : {false, true}) {
            impl::single_pass_scan_problem<Exec, P>(exec, in.data(), out.data(), n, false, p, ws, SegmentedPlus{},
                                                    impl::NoInit{}, deterministic, impl::AggregatesOnlyProbe{});
            exec.fence();
            expect_same<T, SegmentedPlus>(to_host(out), fold_scan(x, false, SegmentedPlus{}));
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
  });
}

// LayoutStride Views (every other element of a View twice as long; in and out strided alike and
// apart), in place too.
TEST(OperatorScan, StridedViews) {
  using T = std::int32_t;
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    for (ScanAlgorithm alg : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::blelloch,
                              ScanAlgorithm::single_pass})
      for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1025), std::size_t(100003)}) {
        SCOPED_TRACE(std::string(to_string(alg)) + " n=" + std::to_string(n));
        const std::vector<T> x = values_of<T>(n, 23);
        std::vector<T> wide(2 * n + 1, T(77));
        for (std::size_t i = 0; i < n; ++i) wide[2 * i + 1] = x[i];
        auto a = to_device<T, Space>(wide), b = to_device<T, Space>(wide);
        const Kokkos::View<T*, Kokkos::LayoutStride, Space> in(a.data() + 1, Kokkos::LayoutStride(n, 2));
        const Kokkos::View<T*, Kokkos::LayoutStride, Space> out(b.data() + 1, Kokkos::LayoutStride(n, 2));
        exclusive_scan(exec, in, out, T(4), plus{}, alg);
        exec.fence();
        const std::vector<T> want = fold_scan(x, true, plus{}, std::optional<T>(4));
        const std::vector<T> got = to_host(b);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[2 * i + 1], want[i]) << "at " << i;
        for (std::size_t i = 0; i <= n; ++i) ASSERT_EQ(got[2 * i], T(77)) << "between the elements, at " << 2 * i;
        inclusive_scan(exec, in, in, plus{}, T(4), alg);  // in place
        exec.fence();
        const std::vector<T> inc = fold_scan(x, false, plus{}, std::optional<T>(4));
        const std::vector<T> got_in = to_host(a);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got_in[2 * i + 1], inc[i]) << "in place, at " << i;
      }
  });
}

/// f(x) for the transform scans: int16 to int32, squared.
struct Square {
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const std::int16_t& v) const { return std::int32_t(v) * v; }
};

TEST(OperatorScan, TransformScans) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    for (ScanAlgorithm alg : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::hillis_steele,
                              ScanAlgorithm::single_pass})
      for (std::size_t n : sizes) {
        SCOPED_TRACE(std::string(to_string(alg)) + " n=" + std::to_string(n));
        const std::vector<std::int16_t> x = values_of<std::int16_t>(n, 31);
        std::vector<std::int32_t> squares(n);
        for (std::size_t i = 0; i < n; ++i) squares[i] = std::int32_t(x[i]) * x[i];
        auto in = to_device<std::int16_t, Space>(x);
        Kokkos::View<std::int32_t*, Space> out("kps::test::out", n);
        transform_exclusive_scan(exec, in, out, std::int32_t(1), plus{}, Square{}, alg);
        exec.fence();
        expect_same<std::int32_t, plus>(to_host(out), fold_scan(squares, true, plus{}, std::optional<std::int32_t>(1)));
        transform_inclusive_scan(exec, in, out, plus{}, Square{}, std::int32_t(1), alg);
        exec.fence();
        expect_same<std::int32_t, plus>(to_host(out), fold_scan(squares, false, plus{}, std::optional<std::int32_t>(1)));
        if (::testing::Test::HasFatalFailure()) return;
      }
  });
}


/// Values in [-3, 3] from their index, made by exec (no host array of billions to fill), and 100
/// at the last.
template <class Exec, class V>
void fill_bytes(const V& v) {
  using T = typename V::value_type;
  const std::int64_t n = std::int64_t(v.extent(0));
  Kokkos::parallel_for("kps::test::fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
                       KOKKOS_LAMBDA(std::int64_t i) { v(i) = i == n - 1 ? T(100) : T((i * 2654435761ll >> 7) % 7 - 3); });
  Exec().fence();
}

// More than 2^31 elements of a 1-byte type: every index and tile id past 32 bits, on the
// benchmarks' execution space where it is a host's (4 GiB in and out of the host's memory; a
// GPU's: test/test_hard_inputs.cpp), the scan, the sum and the maximum's index (64 bits).
TEST(OperatorScan, MoreThan2To31Bytes) {
  using T = std::int8_t;
  using Exec = ExecutionSpace;
  if constexpr (!impl::is_host_space_v<Exec>) {
    GTEST_SKIP() << "the host's test: test/test_hard_inputs.cpp runs 2^31 elements on a GPU";
  } else {
    const std::size_t n = (std::size_t(1) << 31) + 1;
    Kokkos::View<T*, Exec::memory_space> in(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("in")), n);
    Kokkos::View<T*, Exec::memory_space> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("out")), n);
    fill_bytes<Exec>(in);
    exclusive_scan(Exec(), in, out, T(1), plus{});
    Exec().fence();
    T acc = T(1), total = T(0);
    std::size_t wrong = 0, first = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (out(i) != acc && wrong++ == 0) first = i;
      acc = T(acc + in(i));
      total = T(total + in(i));
    }
    EXPECT_EQ(wrong, 0u) << "first wrong element: " << first;
    EXPECT_EQ(reduce(Exec(), in, T(0), plus{}), total);
    const ValueIndex<T> m = argmax(Exec(), in);
    EXPECT_EQ(m.value, T(100));
    EXPECT_EQ(m.index, std::int64_t(n - 1));
  }
}

// The API's errors of today, on the new forms: mismatched lengths, an output that overlaps the
// input without being it (strided Views too), unknown items counts of a problem.
TEST(OperatorScanApi, Errors) {
  using T = std::uint8_t;
  Kokkos::View<T*, DeviceType> a("a", 10), b("b", 11), buffer("buffer", 101);
  EXPECT_THROW(exclusive_scan(ExecutionSpace(), a, b, T(0), maximum{}), std::invalid_argument);
  EXPECT_THROW(inclusive_scan(ExecutionSpace(), a, b, maximum{}), std::invalid_argument);
  const Kokkos::View<T*, Kokkos::LayoutStride, DeviceType> evens(buffer.data(), Kokkos::LayoutStride(50, 2));
  const Kokkos::View<T*, Kokkos::LayoutStride, DeviceType> odds(buffer.data() + 1, Kokkos::LayoutStride(50, 2));
  EXPECT_THROW(inclusive_scan(ExecutionSpace(), evens, odds, maximum{}), std::invalid_argument);
  EXPECT_NO_THROW(inclusive_scan(ExecutionSpace(), evens, evens, maximum{}));
  ScanOptions o;
  o.single_pass = {1, 24, TileLoad::direct};  // 24 of 1-byte values: not a count this problem compiles
  Kokkos::View<T*, DeviceType> c("c", 100);
  try {
    inclusive_scan(ExecutionSpace(), c, c, maximum{}, ScanAlgorithm::single_pass, o);
    ADD_FAILURE() << "24 items of a 1-byte value were taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("take"), std::string::npos) << e.what();
  }
}

#if defined(KPS_HAS_HALF)
// Kokkos' half_t, where the backend has a 16-bit one: its maximum (exact).
TEST(OperatorScan, HalfMaxInit) {
  using H = Kokkos::Experimental::half_t;
  check_scans<H>(maximum{}, H(-2.0f));
}
#endif

}  // namespace operator_tests
}  // namespace kps::test
