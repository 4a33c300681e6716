#pragma once
// Shared by the test files: fresh random inputs traced with their seed, the edge sizes, timer
// checks, copies to and from arrays on the host or the device, what a temporary file holds,
// and a sample context for the reports.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/common.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/predicate.h>

#include "measure/runner.h"
#include "report/reporters.h"

namespace TestSupport {

/** The op's name as a test name may hold it: "sort_pairs" for "sort-pairs". */
inline std::string testName(Harness::Op op) {
    std::string name = Harness::opName(op);
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

/** A timing of `samples` calls with these median, min and max (mean = median, no spread). */
inline Harness::Timing timingOf(double medianMs, double minMs, double maxMs, int samples) {
    Harness::Timing timing;
    timing.samples = samples;
    timing.meanMs = medianMs;
    timing.medianMs = medianMs;
    timing.minMs = minMs;
    timing.maxMs = maxMs;
    return timing;
}

/**
 * Where a fake back end's compaction puts its count (Backend::compact): in device memory
 * for a fake on the GPU, in host memory for one on the CPU.
 */
inline void storeKept(int count, int *kept, bool onDevice) {
    if (onDevice) {
        StreamCompaction::Common::checkCuda(cudaMemcpy(kept, &count, sizeof count, cudaMemcpyHostToDevice),
                                            "cudaMemcpy", __FILE__, __LINE__);
    } else {
        *kept = count;
    }
}

/**
 * A registry compaction or partition (Backend::compact, Backend::partition) on device
 * arrays, with its count read back from the device: 0 for n = 0, where calls write none.
 */
inline int deviceKept(void (*entry)(int, int *, const int *, StreamCompaction::Predicate, int *), int n, int *dOut,
                      const int *dIn, StreamCompaction::Predicate keep) {
    StreamCompaction::Common::DeviceBuffer<int> kept(1);
    entry(n, dOut, dIn, keep, kept.get());
    return n > 0 ? StreamCompaction::Common::downloadValue(kept.get()) : 0;
}

/** The edge sizes: empty, tiny, around warps and blocks, and large. */
inline const std::vector<int> &edgeSizes() {
    static const std::vector<int> sizes = {0,   1,   2,    3,       31,          32,      33,          127,
                                           128, 129, 1000, 1 << 16, (1 << 20) - 1, 1 << 20, (1 << 20) + 1,
                                           (1 << 24) + 7};
    return sizes;
}

/** A fresh seed per call; tests print it with SCOPED_TRACE so a failure can be replayed. */
inline std::uint64_t freshSeed() {
    static std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) | device();
}

/** n values in [-100, 100) with about a quarter zeros (never all zeros for n >= 8). */
inline std::vector<int> randomInput(int n, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> values(-100, 99);
    std::uniform_int_distribution<int> quarter(0, 3);
    std::vector<int> input(static_cast<std::size_t>(n));
    for (int &v : input) v = quarter(engine) == 0 ? 0 : values(engine);
    return input;
}

/** n values over the whole int range: scans wrap, sorts see both signs. */
inline std::vector<int> wideInput(int n, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> values(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    std::vector<int> input(static_cast<std::size_t>(n));
    for (int &v : input) v = values(engine);
    return input;
}

/**
 * An input made by make(seed) from a fresh seed, which a trace names after `what` for as
 * long as the input lives, so that a failure can be replayed.
 */
class SeededInput {
public:
    template <typename Make>
    SeededInput(const std::string &what, Make make)
        : seed_(freshSeed()),
          trace_(__FILE__, __LINE__, testing::Message() << what << ", seed " << seed_),
          values(make(seed_)) {}
    /** randomInput(n, seed), named "`what`, n = N". */
    SeededInput(const std::string &what, int n)
        : SeededInput(what + ", n = " + std::to_string(n), [n](std::uint64_t seed) { return randomInput(n, seed); }) {}

private:
    std::uint64_t seed_;
    testing::ScopedTrace trace_;

public:
    const std::vector<int> values;
};

/** What was written to `file` (a std::tmpfile() a report or command wrote to), from its start; closes it. */
inline std::string readAndClose(std::FILE *file) {
    std::rewind(file);
    std::string text;
    for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
    std::fclose(file);
    return text;
}

/** Whether `text` holds `part`; a failure names the part and prints the whole text. */
inline testing::AssertionResult contains(const std::string &text, const std::string &part) {
    if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
    return testing::AssertionFailure() << "no \"" << part << "\" in:\n" << text;
}

/**
 * A run's context as the reports write it: a GPU with its build and its state at the
 * start, the copy and launch measurements, five timed calls per cell.
 */
inline Harness::Context sampleContext() {
    Harness::Context context;
    context.runId = "20250131T120000Z-3fa2";
    context.date = "2025-01-31T12:00:00Z";
    context.commandLine = "cis565_stream_compaction --sizes 2^10 --output 'a \"b\".csv'";
    context.version = "0.1.0";
    Harness::DeviceInfo gpu;
    gpu.name = "NVIDIA H200";
    gpu.uuid = "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";
    gpu.l2CacheBytes = 60 << 20;
    gpu.computeMajor = 9;
    gpu.multiprocessors = 132;
    gpu.theoreticalBandwidthGBs = 4800;
    gpu.driverVersion = 13000;
    gpu.runtimeVersion = 12080;
    context.gpu = gpu;
    context.copyBandwidthGBs = 3900.5;
    context.copyBytes = 1 << 30;
    context.copyReps = 15;
    context.launchGapUs = 1.25;
    context.processes = 3;
    context.launchGapMethod = "64 empty kernels";
    context.hostCpu = "AMD EPYC";
    context.hostCpus = "2 (1 CPU)";
    context.buildType = "Release";
    context.gitRevision = "abc1234";
    context.nvccVersion = "13.0.88";
    context.cudaFlags = "-O3 -DNDEBUG";
    context.cudaArchitectures = "75-real,90-real,120";
    context.ccclVersion = "CCCL 3.0.1 (CUB 3.0.1, Thrust 3.0.1)";
    context.gpuStateAtStart.smClockMHz = 1980;
    context.gpuStateAtStart.memoryClockMHz = 2619;
    context.gpuStateAtStart.temperatureC = 34;
    context.gpuStateAtStart.powerW = 75.5;
    context.gpuStateAtStart.throttleReasons = Harness::ThrottleReason::kGpuIdle | Harness::ThrottleReason::kSwPowerCap;
    context.seed = 565;
    context.reps = 5;
    context.warmup = 1;
    context.keep = "nonzero";
    return context;
}

/** An output array filled with 0xCD bytes, so unwritten elements are seen. */
inline std::vector<int> poisoned(int n) { return std::vector<int>(static_cast<std::size_t>(n), static_cast<int>(0xCDCDCDCDu)); }

/**
 * Sets a timer's GPU (or CPU) reading to that of an empty bracket and returns it, so that
 * timedSince() can tell whether the next call set the timer: one that does not leaves this.
 */
inline float primeTimer(StreamCompaction::Common::PerformanceTimer &timer, bool gpu) {
    if (gpu) {
        timer.startGpuTimer();
        timer.endGpuTimer();
        return timer.getGpuElapsedTimeForPreviousOperation();
    }
    timer.startCpuTimer();
    timer.endCpuTimer();
    return timer.getCpuElapsedTimeForPreviousOperation();
}

/** Whether the timer holds a positive time other than the primed one: set by a call since primeTimer(). */
inline testing::AssertionResult timedSince(StreamCompaction::Common::PerformanceTimer &timer, bool gpu, float primed) {
    const float reading =
        gpu ? timer.getGpuElapsedTimeForPreviousOperation() : timer.getCpuElapsedTimeForPreviousOperation();
    if (reading > 0 && reading != primed) return testing::AssertionSuccess();
    return testing::AssertionFailure() << "the timer reads " << reading << " ms; primed with " << primed
                                       << " ms: the call did not set it";
}

/** The n ints at `in`, copied from the device when `onDevice`, else from the host. */
inline std::vector<int> readBack(const int *in, std::size_t n, bool onDevice) {
    std::vector<int> values(n);
    if (onDevice) SC_CUDA_CHECK(cudaMemcpy(values.data(), in, n * sizeof(int), cudaMemcpyDeviceToHost));
    else std::copy(in, in + n, values.begin());
    return values;
}

/** Writes `values` to to[first, first + values.size()), on the device when `onDevice`, else on the host. */
template <typename T>
void writeAt(T *to, std::size_t first, const std::vector<T> &values, bool onDevice) {
    if (values.empty()) return;
    if (onDevice) SC_CUDA_CHECK(cudaMemcpy(to + first, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
    else std::copy(values.begin(), values.end(), to + first);
}

#define SKIP_WITHOUT_GPU()                                                     \
    do {                                                                       \
        if (!StreamCompaction::Common::deviceAvailable()) GTEST_SKIP() << "no CUDA device"; \
    } while (0)

}  // namespace TestSupport
