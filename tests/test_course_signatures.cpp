// The course's functions have the course's exact types in the project's headers: code
// written for the course that takes their addresses, or passes them where a function
// pointer of the course's type is expected, compiles and calls them unchanged. A
// predicate form is an overload, never a default argument that would change the type.

#include <gtest/gtest.h>

#include <stream_compaction/common.h>
#include <stream_compaction/cpu.h>
#include <stream_compaction/efficient.h>
#include <stream_compaction/naive.h>
#include <stream_compaction/thrust.h>

namespace {

namespace SC = StreamCompaction;

using ScanType = void (*)(int, int *, const int *);
using CompactType = int (*)(int, int *, const int *);
using TimerType = SC::Common::PerformanceTimer &(*)();

TEST(CourseSignatures, EveryCourseFunctionConvertsToTheCourseType) {
    // Each line is the course's own spelling of the function's type.
    ScanType cpuScan = &SC::CPU::scan;
    CompactType cpuCompactWithoutScan = &SC::CPU::compactWithoutScan;
    CompactType cpuCompactWithScan = &SC::CPU::compactWithScan;
    ScanType naiveScan = &SC::Naive::scan;
    ScanType efficientScan = &SC::Efficient::scan;
    CompactType efficientCompact = &SC::Efficient::compact;
    ScanType thrustScan = &SC::Thrust::scan;
    TimerType timers[] = {&SC::CPU::timer, &SC::Naive::timer, &SC::Efficient::timer, &SC::Thrust::timer};
    int (*log2Floor)(int) = &ilog2;
    int (*log2Ceil)(int) = &ilog2ceil;

    for (const void *f : {reinterpret_cast<const void *>(cpuScan), reinterpret_cast<const void *>(naiveScan),
                          reinterpret_cast<const void *>(efficientScan), reinterpret_cast<const void *>(thrustScan),
                          reinterpret_cast<const void *>(cpuCompactWithoutScan),
                          reinterpret_cast<const void *>(cpuCompactWithScan),
                          reinterpret_cast<const void *>(efficientCompact)}) {
        EXPECT_NE(f, nullptr);
    }
    for (TimerType timer : timers) EXPECT_NE(timer, nullptr);
    EXPECT_EQ(log2Floor(8), 3);
    EXPECT_EQ(log2Ceil(9), 4);
}

TEST(CourseSignatures, CpuFunctionsCallThroughTheCourseTypes) {
    ScanType scan = &SC::CPU::scan;
    CompactType withoutScan = &SC::CPU::compactWithoutScan;
    CompactType withScan = &SC::CPU::compactWithScan;
    const int input[] = {3, 0, 1, 0, 2};
    int output[5] = {};
    scan(5, output, input);
    EXPECT_EQ(output[4], 4);
    EXPECT_EQ(withoutScan(5, output, input), 3);
    EXPECT_EQ(output[2], 2);
    EXPECT_EQ(withScan(5, output, input), 3);
    EXPECT_EQ(output[1], 1);
}

// The predicate forms are still there, as overloads.
TEST(CourseSignatures, PredicateFormsAreOverloads) {
    int (*withoutScan)(int, int *, const int *, SC::Predicate) = &SC::CPU::compactWithoutScan;
    int (*withScan)(int, int *, const int *, SC::Predicate) = &SC::CPU::compactWithScan;
    const int input[] = {3, 0, 6, 4, 9};
    int output[5] = {};
    EXPECT_EQ(withoutScan(5, output, input, SC::Predicate::multipleOf(3)), 4);
    EXPECT_EQ(withScan(5, output, input, SC::Predicate::greaterThan(4)), 2);
    EXPECT_EQ(output[0], 6);
}

}  // namespace
