// Common pieces: log helpers, the timer's rules, block-size validation, error messages.

#include <chrono>
#include <functional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/cccl_version.h>
#include <stream_compaction/common.h>
#include <stream_compaction/cpu.h>
#include <stream_compaction/cub.h>
#include <stream_compaction/decoupled.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/efficient.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>
#include <stream_compaction/naive.h>
#include <stream_compaction/onesweep.h>
#include <stream_compaction/radix.h>
#include <stream_compaction/selection.h>
#include <stream_compaction/shared.h>
#include <stream_compaction/textbook.h>
#include <stream_compaction/thrust.h>

#include "measure/runner.h"
#include "test_support.h"

namespace {

using StreamCompaction::Common::PerformanceTimer;
namespace Common = StreamCompaction::Common;

TEST(Log2, FloorAndCeiling) {
    EXPECT_EQ(ilog2(1), 0);
    EXPECT_EQ(ilog2(2), 1);
    EXPECT_EQ(ilog2(3), 1);
    EXPECT_EQ(ilog2(1 << 20), 20);
    EXPECT_EQ(ilog2ceil(1), 0);
    EXPECT_EQ(ilog2ceil(2), 1);
    EXPECT_EQ(ilog2ceil(3), 2);
    EXPECT_EQ(ilog2ceil((1 << 20) + 1), 21);
    EXPECT_EQ(ilog2ceil(0x7fffffff), 31);
}

// The chunked compaction that the 64-bit API runs Thrust's and CUB's selects through:
// a host model of a chunk's select (keep the even values) shows every chunk reading
// its own elements and writing right after the previous chunk's output.
TEST(SelectInChunks, ChunksWriteOneAfterAnother) {
    for (std::size_t n : {0, 1, 6, 7, 8, 100}) {
        std::vector<int> input(n);
        for (std::size_t i = 0; i < n; ++i) input[i] = static_cast<int>(i * 7 % 11);
        std::vector<int> want;
        for (int v : input) {
            if (v % 2 == 0) want.push_back(v);
        }
        std::vector<int> output(n, -1);
        std::size_t calls = 0;
        const std::size_t kept =
            StreamCompaction::Common::selectInChunks(n, 3, [&](std::size_t first, std::size_t count, std::size_t written) {
                EXPECT_LE(count, 3u);
                EXPECT_EQ(first, 3 * calls++);
                std::size_t chunkKept = 0;
                for (std::size_t i = first; i < first + count; ++i) {
                    if (input[i] % 2 == 0) output[written + chunkKept++] = input[i];
                }
                return chunkKept;
            });
        EXPECT_EQ(calls, (n + 2) / 3) << "n = " << n;
        ASSERT_EQ(kept, want.size()) << "n = " << n;
        output.resize(kept);
        EXPECT_EQ(output, want) << "n = " << n;
    }
}

// Misuse throws; a proper bracket reads in milliseconds. The bracket is timed again
// around it and inside it with a steady clock, and its reading must lie between the two
// (with room for the clocks' own resolution): a reading in seconds or microseconds would
// be a thousand times off, however slow or loaded the machine.
TEST(PerformanceTimer, CpuMisuseThrowsAndABracketReadsMilliseconds) {
    using Steady = std::chrono::steady_clock;
    const auto ms = [](Steady::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    PerformanceTimer timer;
    EXPECT_THROW(timer.endCpuTimer(), std::runtime_error);
    const Steady::time_point outerStart = Steady::now();
    timer.startCpuTimer();
    const Steady::time_point innerStart = Steady::now();
    EXPECT_THROW(timer.startCpuTimer(), std::runtime_error);
    while (Steady::now() - innerStart < std::chrono::milliseconds(2)) {
    }
    const double inner = ms(Steady::now() - innerStart);
    timer.endCpuTimer();
    const double outer = ms(Steady::now() - outerStart);
    const double reading = timer.getCpuElapsedTimeForPreviousOperation();
    EXPECT_GE(reading, inner - 0.01) << "inside the bracket " << inner << " ms passed";
    EXPECT_LE(reading, outer + 0.01) << "around the bracket " << outer << " ms passed";
    EXPECT_THROW(timer.endCpuTimer(), std::runtime_error);
}

TEST(PerformanceTimer, GpuEndWithoutStartThrows) {
    PerformanceTimer timer;
    EXPECT_THROW(timer.endGpuTimer(), std::runtime_error);
}

TEST(PerformanceTimer, GpuMisuseThrows) {
    SKIP_WITHOUT_GPU();
    PerformanceTimer timer;
    timer.startGpuTimer();
    EXPECT_THROW(timer.startGpuTimer(), std::runtime_error);
    timer.endGpuTimer();
    EXPECT_THROW(timer.endGpuTimer(), std::runtime_error);
}

TEST(PerformanceTimer, IsNeitherCopyableNorMovable) {
    EXPECT_FALSE(std::is_copy_constructible_v<PerformanceTimer>);
    EXPECT_FALSE(std::is_move_constructible_v<PerformanceTimer>);
    EXPECT_FALSE(std::is_copy_assignable_v<PerformanceTimer>);
    EXPECT_FALSE(std::is_move_assignable_v<PerformanceTimer>);
}

TEST(BlockSize, AcceptsMultiplesOf32From32To1024) {
    for (int ok : {32, 64, 128, 256, 992, 1024}) EXPECT_TRUE(Common::validBlockSize(ok)) << ok;
    for (int bad : {-32, 0, 1, 31, 33, 100, 1056, 2048}) EXPECT_FALSE(Common::validBlockSize(bad)) << bad;
    EXPECT_THROW(Common::setBlockSize(100), std::invalid_argument);
    const int before = Common::blockSize();
    Common::setBlockSize(256);
    EXPECT_EQ(Common::blockSize(), 256);
    Common::setBlockSize(before);
}

TEST(Errors, NegativeSizeIsRejectedWithTheOperationsName) {
    try {
        StreamCompaction::Naive::backend().scan(-5, nullptr, nullptr);
        FAIL() << "no exception";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("naive scan: n = -5"), std::string::npos) << e.what();
    }
}

// A negative n throws std::invalid_argument from every course function (host arrays),
// from the host-array form of every registered back end's operations and from every
// registry entry (device pointers), before any device is touched, so this runs without a
// GPU too.
TEST(Errors, NegativeSizeThrowsInvalidArgumentEverywhere) {
    namespace SC = StreamCompaction;
    std::vector<int> in = TestSupport::randomInput(8, TestSupport::freshSeed());
    std::vector<int> out = TestSupport::poisoned(8);
    int *o = out.data();
    const int *i = in.data();
    struct Call {
        const char *backend;
        const char *function;
        std::function<void()> call;
    };
    const std::vector<Call> courseFunctions = {
        {"cpu", "scan", [=] { SC::CPU::scan(-1, o, i); }},
        {"cpu", "compactWithoutScan", [=] { SC::CPU::compactWithoutScan(-1, o, i); }},
        {"cpu", "compactWithScan", [=] { SC::CPU::compactWithScan(-1, o, i); }},
        {"cpu", "partition", [=] { SC::CPU::partition(-1, o, i); }},
        {"cpu", "sort", [=] { SC::CPU::sort(-1, o, i); }},
        {"naive", "scan", [=] { SC::Naive::scan(-1, o, i); }},
        {"efficient", "scan", [=] { SC::Efficient::scan(-1, o, i); }},
        {"efficient", "compact", [=] { SC::Efficient::compact(-1, o, i); }},
        {"thrust", "scan", [=] { SC::Thrust::scan(-1, o, i); }},
    };
    std::vector<Call> calls = courseFunctions;
    const SC::Predicate keep = SC::Predicate::nonZero();
    for (const SC::Backend &b : SC::backends()) {
        if (b.scan) calls.push_back({b.name, "hostScan", [=] { SC::hostScan(b, -1, o, i); }});
        if (b.compact) calls.push_back({b.name, "hostCompact", [=] { SC::hostCompact(b, -1, o, i); }});
        if (b.partition) calls.push_back({b.name, "hostPartition", [=] { SC::hostPartition(b, -1, o, i); }});
        if (b.sort) calls.push_back({b.name, "hostSort", [=] { SC::hostSort(b, -1, o, i); }});
        if (b.scan) calls.push_back({b.name, "registry scan", [=] { b.scan(-1, o, i); }});
        if (b.compact) calls.push_back({b.name, "registry compact", [=] {
            int kept = 0;
            b.compact(-1, o, i, keep, &kept);
        }});
        if (b.partition) calls.push_back({b.name, "registry partition", [=] {
            int kept = 0;
            b.partition(-1, o, i, keep, &kept);
        }});
        if (b.sort) calls.push_back({b.name, "registry sort", [=] { b.sort(-1, o, i); }});
    }
    for (const Call &c : calls) {
        SCOPED_TRACE(testing::Message() << c.backend << " " << c.function);
        try {
            c.call();
            ADD_FAILURE() << "no exception at n = -1";
        } catch (const std::invalid_argument &e) {
            EXPECT_NE(std::string(e.what()).find("n = -1"), std::string::npos) << e.what();
        } catch (const std::exception &e) {
            ADD_FAILURE() << "not std::invalid_argument: " << e.what();
        }
    }
    EXPECT_EQ(out, TestSupport::poisoned(8)) << "a call wrote to the output";
}

TEST(Errors, CudaFailureNamesBackEndOperationAndSize) {
    SKIP_WITHOUT_GPU();
    // A device call on a host pointer fails inside the back end; the message says where.
    std::vector<int> host(1000);
    try {
        Common::Operation operation("naive", "scan", 1000);
        SC_CUDA_CHECK(cudaMemcpy(host.data(), reinterpret_cast<const int *>(0x10), 4000, cudaMemcpyDeviceToHost));
        FAIL() << "no exception";
    } catch (const StreamCompaction::CudaError &e) {
        EXPECT_NE(std::string(e.what()).find("naive scan, n = 1000"), std::string::npos) << e.what();
    }
    // Reported once: the runtime's last error is cleared, so that a later call that reads
    // it, as Thrust does after its kernels, does not fail on this one.
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
    const StreamCompaction::Backend *thrust = StreamCompaction::findBackend("thrust");
    ASSERT_NE(thrust, nullptr);
    const std::vector<int> input = TestSupport::randomInput(1000, TestSupport::freshSeed());
    Harness::RunSettings once;
    once.reps = 1;
    const Harness::Verdict verdict = Harness::verify(Harness::Op::Sort, Harness::run(*thrust, Harness::Op::Sort, input, once),
                                                     Harness::expected(Harness::Op::Sort, input, once.keep));
    EXPECT_TRUE(verdict.passed()) << verdict.detail;
}

TEST(Errors, OutOfMemorySaysHowMuchWasNeeded) {
    SKIP_WITHOUT_GPU();
    const std::size_t tooMuch = std::size_t(1) << 50;  // 1 PiB
    try {
        Common::DeviceBuffer<char> buffer(tooMuch);
        FAIL() << "no exception";
    } catch (const StreamCompaction::OutOfMemory &e) {
        EXPECT_EQ(e.bytes(), tooMuch);
        EXPECT_NE(std::string(e.what()).find(std::to_string(tooMuch)), std::string::npos) << e.what();
    }
    // Not sticky: the device still works.
    Common::DeviceBuffer<int> small(16);
    small.fillBytes(0, 16);
}

// CCCL's version (MMMmmmppp) and CUB's and Thrust's (MMMmmmpp) are decoded each by its
// own scheme; one release carries all three, so they read the same.
TEST(CcclVersion, NamesOneReleaseOfCcclCubAndThrust) {
    const std::string text = StreamCompaction::Common::ccclVersionText();
    const std::regex form(R"(CCCL (\d+\.\d+\.\d+|unknown) \(CUB (\d+\.\d+\.\d+), Thrust (\d+\.\d+\.\d+)\))");
    std::smatch parts;
    ASSERT_TRUE(std::regex_match(text, parts, form)) << text;
    EXPECT_EQ(parts[3], parts[2]) << text;
    if (parts[1] != "unknown") {
        EXPECT_EQ(parts[2], parts[1]) << text;
    }
}

}  // namespace
