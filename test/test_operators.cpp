// test/test_operators.cpp — the scans of every named type and every built-in operator, with and
// without an initial value: every algorithm of every execution space, the single pass's policies
// (direct and staged tiles at the problem's items counts, cached tiles, several lanes, a look-back
// through windows of aggregates), in place and not, on sizes around tiles and warps, against a
// host fold in order (exact for integers, minima, maxima and the user operators; the sums'
// tolerance for floating-point sums and products). Each case is one problem (value type, operator,
// initial value or none), so that the suite compiles each problem's kernels once
// (kps/scan/operation.hpp: ScanProblem). User types and the rest: test_operator_types.cpp.
#include "operator_scans.hpp"

namespace kps::test {
namespace operator_tests {

// One problem per test: every named type and every built-in operator at least once, with and
// without an initial value.
TEST(OperatorScan, Int8PlusInit) { check_scans<std::int8_t>(plus{}, std::int8_t(5)); }
TEST(OperatorScan, Uint8MaxInit) { check_scans<std::uint8_t>(maximum{}, std::uint8_t(7)); }
TEST(OperatorScan, Int16MinInit) { check_scans<std::int16_t>(minimum{}, std::int16_t(9)); }
TEST(OperatorScan, Uint16BitXor) { check_scans<std::uint16_t>(bit_xor{}, std::nullopt); }
TEST(OperatorScan, Uint32BitAndInit) { check_scans<std::uint32_t>(bit_and{}, std::uint32_t(0xfff0fff0u)); }
TEST(OperatorScan, Uint64BitOr) { check_scans<std::uint64_t>(bit_or{}, std::nullopt); }
TEST(OperatorScan, Int64MultipliesInit) { check_scans<std::int64_t>(multiplies{}, std::int64_t(3)); }
TEST(OperatorScan, FloatMaxInit) { check_scans<float>(maximum{}, 0.25f); }
TEST(OperatorScan, DoubleMin) { check_scans<double>(minimum{}, std::nullopt); }
TEST(OperatorScan, Int32PlusInit) { check_scans<std::int32_t>(plus{}, std::int32_t(-11)); }

}  // namespace operator_tests
}  // namespace kps::test
