// The course's API: host-pointer calls of every course back end, against independent
// references, at the edge sizes.

#include <gtest/gtest.h>

#include <stream_compaction/cpu.h>
#include <stream_compaction/efficient.h>
#include <stream_compaction/naive.h>
#include <stream_compaction/thrust.h>

#include "reference.hpp"
#include "test_support.h"

namespace {

using namespace StreamCompaction;
using TestSupport::poisoned;
using TestSupport::randomInput;

using ScanFunction = void (*)(int, int *, const int *);
using CompactFunction = int (*)(int, int *, const int *);

struct CourseScan {
    const char *name;
    ScanFunction scan;
    bool gpu;
    Common::PerformanceTimer &(*timer)();
};

struct CourseCompact {
    const char *name;
    CompactFunction compact;
    bool gpu;
};

void PrintTo(const CourseScan &backend, std::ostream *os) { *os << backend.name; }
void PrintTo(const CourseCompact &backend, std::ostream *os) { *os << backend.name; }

int cpuCompactWithoutScan(int n, int *o, const int *i) { return CPU::compactWithoutScan(n, o, i); }
int cpuCompactWithScan(int n, int *o, const int *i) { return CPU::compactWithScan(n, o, i); }
int thrustCompact(int n, int *o, const int *i) { return StreamCompaction::hostCompact(Thrust::backend(), n, o, i); }

class CourseScanTest : public ::testing::TestWithParam<std::tuple<CourseScan, int>> {};
class CourseCompactTest : public ::testing::TestWithParam<std::tuple<CourseCompact, int>> {};

TEST_P(CourseScanTest, MatchesReference) {
    const auto [backend, n] = GetParam();
    if (backend.gpu) SKIP_WITHOUT_GPU();
    const TestSupport::SeededInput input(std::string(backend.name) + " scan", n);
    const std::vector<int> inputCopy = input.values;
    std::vector<int> output = poisoned(n);
    backend.scan(n, output.data(), input.values.data());
    EXPECT_EQ(output, TestingHelpers::referenceScan(input.values));
    EXPECT_EQ(input.values, inputCopy) << "the input was modified";
}

TEST_P(CourseCompactTest, MatchesReference) {
    const auto [backend, n] = GetParam();
    if (backend.gpu) SKIP_WITHOUT_GPU();
    const TestSupport::SeededInput input(std::string(backend.name) + " compact", n);
    const std::vector<int> inputCopy = input.values;
    const std::vector<int> want = TestingHelpers::referenceCompact(input.values, Predicate::nonZero());
    std::vector<int> output = poisoned(n);
    const int kept = backend.compact(n, output.data(), input.values.data());
    ASSERT_EQ(kept, static_cast<int>(want.size()));
    output.resize(static_cast<std::size_t>(kept));
    EXPECT_EQ(output, want);
    EXPECT_EQ(input.values, inputCopy) << "the input was modified";
}

const CourseScan kScans[] = {{"cpu", CPU::scan, false, CPU::timer},
                             {"naive", Naive::scan, true, Naive::timer},
                             {"efficient", Efficient::scan, true, Efficient::timer},
                             {"thrust", Thrust::scan, true, Thrust::timer}};
const CourseCompact kCompacts[] = {{"cpu_without_scan", cpuCompactWithoutScan, false},
                                   {"cpu_with_scan", cpuCompactWithScan, false},
                                   {"efficient", Efficient::compact, true},
                                   {"thrust", thrustCompact, true}};

template <typename Info>
std::string caseName(const testing::TestParamInfo<std::tuple<Info, int>> &info) {
    return std::string(std::get<0>(info.param).name) + "_n" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, CourseScanTest,
                         testing::Combine(testing::ValuesIn(kScans), testing::ValuesIn(TestSupport::edgeSizes())),
                         caseName<CourseScan>);
INSTANTIATE_TEST_SUITE_P(EdgeSizes, CourseCompactTest,
                         testing::Combine(testing::ValuesIn(kCompacts), testing::ValuesIn(TestSupport::edgeSizes())),
                         caseName<CourseCompact>);

// Compaction of arrays with nothing to drop and nothing to keep, every course back end
// (a GPU one is reported skipped without a device).
class CourseCompactExtremes : public ::testing::TestWithParam<CourseCompact> {};

TEST_P(CourseCompactExtremes, AllZeroAndAllNonZero) {
    const CourseCompact &backend = GetParam();
    if (backend.gpu) SKIP_WITHOUT_GPU();
    for (int n : {1, 129, 1000, 1 << 20}) {
        SCOPED_TRACE(testing::Message() << backend.name << ", n = " << n);
        const std::vector<int> zeros(static_cast<std::size_t>(n), 0);
        std::vector<int> output = poisoned(n);
        EXPECT_EQ(backend.compact(n, output.data(), zeros.data()), 0);

        std::vector<int> nonZero = randomInput(n, TestSupport::freshSeed());
        for (int &v : nonZero) v = v == 0 ? 7 : v;
        output = poisoned(n);
        ASSERT_EQ(backend.compact(n, output.data(), nonZero.data()), n);
        EXPECT_EQ(output, nonZero);
    }
}

INSTANTIATE_TEST_SUITE_P(Course, CourseCompactExtremes, testing::ValuesIn(kCompacts),
                         [](const testing::TestParamInfo<CourseCompact> &info) { return info.param.name; });

TEST(CpuCompact, WithAndWithoutScanAgree) {
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const std::vector<int> input = randomInput(100003, seed);
    for (Predicate keep : {Predicate::nonZero(), Predicate::multipleOf(3), Predicate::greaterThan(10)}) {
        std::vector<int> without = poisoned(100003), with = poisoned(100003);
        const int keptWithout = CPU::compactWithoutScan(100003, without.data(), input.data(), keep);
        const int keptWith = CPU::compactWithScan(100003, with.data(), input.data(), keep);
        ASSERT_EQ(keptWithout, keptWith) << keep.name();
        without.resize(keptWithout);
        with.resize(keptWith);
        EXPECT_EQ(without, with) << keep.name();
        EXPECT_EQ(without, TestingHelpers::referenceCompact(input, keep)) << keep.name();
    }
}

// Each course scan sets its own back end's timer (GPU or CPU): primed with an empty
// bracket first, the timer must then read a positive time that this call left.
class CourseTimers : public ::testing::TestWithParam<CourseScan> {};

TEST_P(CourseTimers, ScanSetsItsOwnTimer) {
    const CourseScan &backend = GetParam();
    if (backend.gpu) SKIP_WITHOUT_GPU();
    const std::vector<int> input = randomInput(1 << 20, TestSupport::freshSeed());
    std::vector<int> output = poisoned(1 << 20);
    const float primed = TestSupport::primeTimer(backend.timer(), backend.gpu);
    backend.scan(1 << 20, output.data(), input.data());
    EXPECT_TRUE(TestSupport::timedSince(backend.timer(), backend.gpu, primed));
    EXPECT_EQ(output, TestingHelpers::referenceScan(input));
}

INSTANTIATE_TEST_SUITE_P(Course, CourseTimers, testing::ValuesIn(kScans),
                         [](const testing::TestParamInfo<CourseScan> &info) { return info.param.name; });

}  // namespace
