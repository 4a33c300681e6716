// A course student's main.cpp, in the course's style: a plain C++ file that uses only the
// course's headers and helper functions, plus the independent references of
// reference.hpp. Every result is compared with its reference, on an output poisoned with
// 0xCD bytes before each call, so that a call that writes nothing cannot pass on what an
// earlier call left. The CPU tests run on any machine; the GPU tests only where there is
// a CUDA device ("GPU tests skipped: no CUDA device" otherwise). run_course_main.sh fails
// on any FAIL line.

#include <cstdio>
#include <vector>

#include <stream_compaction/cpu.h>
#include <stream_compaction/efficient.h>
#include <stream_compaction/naive.h>
#include <stream_compaction/thrust.h>

#include "reference.hpp"
#include "testing_helpers.hpp"

const int SIZE = 1 << 12;
const int NPOT = SIZE - 3;
int *a = new int[SIZE];
int *c = new int[SIZE];

// The reference's result for the first n elements of `a`, in a vector and as a pointer
// for the course's comparison helpers.
std::vector<int> scanned(int n) { return TestingHelpers::referenceScan(std::vector<int>(a, a + n)); }
std::vector<int> compacted(int n) {
    return TestingHelpers::referenceCompact(std::vector<int>(a, a + n), StreamCompaction::Predicate::nonZero());
}

void scanTest(const char *desc, void (*scan)(int, int *, const int *), int n) {
    std::vector<int> want = scanned(n);
    poisonArray(SIZE, c);
    printDesc(desc);
    scan(n, c, a);
    printCmpResult(n, want.data(), c);
}

void compactTest(const char *desc, int (*compact)(int, int *, const int *), int n) {
    std::vector<int> want = compacted(n);
    poisonArray(SIZE, c);
    printDesc(desc);
    int count = compact(n, c, a);
    printCmpLenResult(count, static_cast<int>(want.size()), want.data(), c);
}

int cpuCompactWithoutScan(int n, int *odata, const int *idata) {
    return StreamCompaction::CPU::compactWithoutScan(n, odata, idata);
}
int cpuCompactWithScan(int n, int *odata, const int *idata) {
    return StreamCompaction::CPU::compactWithScan(n, odata, idata);
}

int main(int argc, char *argv[]) {
    (void)argc;
    (void)argv;
    const bool gpu = StreamCompaction::Common::deviceAvailable();

    printf("\n** SCAN TESTS **\n");
    genArray(SIZE - 1, a, 50);
    a[SIZE - 1] = 0;
    printArray(SIZE, a, true);

    scanTest("cpu scan, power-of-two", StreamCompaction::CPU::scan, SIZE);
    printElapsedTime(StreamCompaction::CPU::timer().getCpuElapsedTimeForPreviousOperation(), "(std::chrono Measured)");
    printArray(SIZE, c, true);
    scanTest("cpu scan, non-power-of-two", StreamCompaction::CPU::scan, NPOT);
    printArray(NPOT, c, true);
    if (gpu) {
        scanTest("naive scan, power-of-two", StreamCompaction::Naive::scan, SIZE);
        printElapsedTime(StreamCompaction::Naive::timer().getGpuElapsedTimeForPreviousOperation(), "(CUDA Measured)");
        scanTest("naive scan, non-power-of-two", StreamCompaction::Naive::scan, NPOT);
        scanTest("work-efficient scan, power-of-two", StreamCompaction::Efficient::scan, SIZE);
        printElapsedTime(StreamCompaction::Efficient::timer().getGpuElapsedTimeForPreviousOperation(),
                         "(CUDA Measured)");
        scanTest("work-efficient scan, non-power-of-two", StreamCompaction::Efficient::scan, NPOT);
        scanTest("thrust scan, power-of-two", StreamCompaction::Thrust::scan, SIZE);
        printElapsedTime(StreamCompaction::Thrust::timer().getGpuElapsedTimeForPreviousOperation(), "(CUDA Measured)");
        scanTest("thrust scan, non-power-of-two", StreamCompaction::Thrust::scan, NPOT);
    }

    printf("\n** STREAM COMPACTION TESTS **\n");
    genArray(SIZE - 1, a, 4);
    a[SIZE - 1] = 0;
    printArray(SIZE, a, true);

    compactTest("cpu compact without scan, power-of-two", cpuCompactWithoutScan, SIZE);
    printArray(static_cast<int>(compacted(SIZE).size()), c, true);
    compactTest("cpu compact without scan, non-power-of-two", cpuCompactWithoutScan, NPOT);
    compactTest("cpu compact with scan, power-of-two", cpuCompactWithScan, SIZE);
    compactTest("cpu compact with scan, non-power-of-two", cpuCompactWithScan, NPOT);
    if (gpu) {
        compactTest("work-efficient compact, power-of-two", StreamCompaction::Efficient::compact, SIZE);
        printElapsedTime(StreamCompaction::Efficient::timer().getGpuElapsedTimeForPreviousOperation(),
                         "(CUDA Measured)");
        compactTest("work-efficient compact, non-power-of-two", StreamCompaction::Efficient::compact, NPOT);
    } else {
        printf("\nGPU tests skipped: no CUDA device\n");
    }

    delete[] a;
    delete[] c;
}
