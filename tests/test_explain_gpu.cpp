// The traced call of each course back end and the references (src/measure/tracer.h,
// runner.h's Measurement::trace) against what their code launches: the naive scan
// ceil(log2 n) passes, the work-efficient scan log2 n levels up and down and a memset of
// the root, the decoupled scan one kernel, CUB's and Thrust's scans an init kernel and a
// scan kernel. The call is traced after the timed ones, so a warm-up has already made
// every allocation; the L2 flush and the kernel that holds the stream are not in it.
// Without a CUDA device, or where CUPTI is held by another tool, the GPU tests skip; the
// tracer then says why.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/common.h>
#include <stream_compaction/decoupled.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>

#include "cli_test_support.h"
#include "commands/course_run.h"
#include "measure/explain.h"
#include "measure/runner.h"
#include "measure/tracer.h"
#include "test_support.h"

namespace {

using Harness::Op;
using Harness::Trace;
using Harness::TraceEvent;
namespace Common = StreamCompaction::Common;

// The traced call of `backend`'s `op` on n random elements, after one untimed and two
// timed calls, at block size 128.
Trace tracedCall(const char *backend, Op op, int n) {
    Common::setBlockSize(128);
    Harness::RunSettings settings;
    settings.reps = 2;
    settings.explain = true;
    const std::vector<int> input = TestSupport::randomInput(n, TestSupport::freshSeed());
    const Harness::Run run = Harness::run(*StreamCompaction::findBackend(backend), op, input, settings);
    EXPECT_TRUE(run.trace.has_value());
    return run.trace ? *run.trace : Trace{};
}

// The short names of the kernels, in order of start.
std::vector<std::string> kernelNames(const Trace &trace) {
    std::vector<std::string> names;
    for (const TraceEvent &event : trace.events) {
        if (event.kind == TraceEvent::Kind::Kernel) names.push_back(Harness::shortKernelName(event.name));
    }
    return names;
}

long long countOf(const Trace &trace, TraceEvent::Kind kind) {
    return std::count_if(trace.events.begin(), trace.events.end(), [kind](const TraceEvent &e) { return e.kind == kind; });
}

long long callsOf(const Trace &trace, Harness::CallKind kind) {
    return std::count_if(trace.events.begin(), trace.events.end(),
                         [kind](const TraceEvent &e) { return e.kind == TraceEvent::Kind::Call && e.call == kind; });
}

// Ends the test, skipped, when CUPTI could not trace (another tool holds it).
#define SKIP_WITHOUT_TRACE(trace)                                                   \
    do {                                                                            \
        if (!(trace).unavailable.empty()) {                                         \
            GTEST_SKIP() << "no trace: " << (trace).unavailable;                    \
        }                                                                           \
    } while (false)

TEST(Tracer, UnavailableWithoutADevice) {
    if (Common::deviceAvailable()) GTEST_SKIP() << "a CUDA device is present";
    Harness::CallTracer tracer;
    EXPECT_EQ(tracer.unavailable(), "no CUDA device");
    tracer.begin();
    tracer.end();
    const Trace trace = tracer.collect();
    EXPECT_EQ(trace.unavailable, "no CUDA device");
    EXPECT_TRUE(trace.events.empty());
    EXPECT_EQ(Harness::explain(trace, {}).verdict, "unavailable: no CUDA device");
}

// A CPU back end is not traced on any machine: it launches no GPU work.
TEST(Tracer, ACpuCallIsHostOnly) {
    const Trace trace = tracedCall("cpu", Op::Scan, 1000);
    EXPECT_TRUE(trace.hostOnly);
    EXPECT_TRUE(trace.events.empty());
}

class TracedGpu : public testing::Test {
protected:
    void SetUp() override {
        if (!Common::deviceAvailable()) GTEST_SKIP() << "no CUDA device";
    }
};

TEST_F(TracedGpu, NaiveScanLaunchesCeilLog2Passes) {
    for (int n : {1 << 20, (1 << 20) - 3, 1000, 2}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const Trace trace = tracedCall("naive", Op::Scan, n);
        SKIP_WITHOUT_TRACE(trace);
        const std::vector<std::string> names = kernelNames(trace);
        ASSERT_EQ(static_cast<int>(names.size()), ilog2ceil(n));
        for (std::size_t i = 0; i + 1 < names.size(); ++i) EXPECT_EQ(names[i], "kernScanPass<false>") << i;
        EXPECT_EQ(names.back(), "kernScanPass<true>");
        EXPECT_EQ(countOf(trace, TraceEvent::Kind::Memset), 0);  // the L2 flush is before the call
        EXPECT_EQ(callsOf(trace, Harness::CallKind::Allocate), 0);  // allocated by the warm-up
        const Harness::Explanation e = Harness::explain(trace, {});
        EXPECT_EQ(e.kernels, ilog2ceil(n));
        EXPECT_GT(e.kernelMs, 0);
        // Held unless the hold gave up (another process's work on the GPU for 500 ms).
        if (trace.held) {
            EXPECT_EQ(e.span, "the GPU's work, the stream held as in the timed calls");
        }
    }
}

TEST_F(TracedGpu, NaiveScanOfOneIsAMemset) {
    const Trace trace = tracedCall("naive", Op::Scan, 1);
    SKIP_WITHOUT_TRACE(trace);
    EXPECT_TRUE(kernelNames(trace).empty());
    EXPECT_EQ(countOf(trace, TraceEvent::Kind::Memset), 1);
}

// log2 n levels up and log2 n down (of the padded size), and a memset of the root between them.
TEST_F(TracedGpu, EfficientScanLaunchesTwoKernelsALevel) {
    for (int n : {1 << 16, 1 << 20, (1 << 20) - 3}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const Trace trace = tracedCall("efficient", Op::Scan, n);
        SKIP_WITHOUT_TRACE(trace);
        const int levels = ilog2ceil(n);
        const std::vector<std::string> names = kernelNames(trace);
        ASSERT_EQ(static_cast<int>(names.size()), 2 * levels);
        EXPECT_EQ(names.front(), "kernUpSweep<true>");
        EXPECT_EQ(names[static_cast<std::size_t>(levels) - 1], "kernUpSweep<false>");
        EXPECT_EQ(names[static_cast<std::size_t>(levels)], "kernDownSweep<false>");
        EXPECT_EQ(names.back(), "kernDownSweep<true>");
        EXPECT_EQ(countOf(trace, TraceEvent::Kind::Memset), 1);
    }
}

// The scan's kernels and memset, then the map to flags, the scatter and the count.
TEST_F(TracedGpu, EfficientCompactAddsThreeKernels) {
    const Trace trace = tracedCall("efficient", Op::Compact, 1 << 16);
    SKIP_WITHOUT_TRACE(trace);
    const std::vector<std::string> names = kernelNames(trace);
    ASSERT_EQ(names.size(), 2u * 16 + 3);
    EXPECT_EQ(names.front(), "kernMapToBoolean");
    EXPECT_EQ(names[names.size() - 2], "kernScatter");
    EXPECT_EQ(names.back(), "kernKeptCount");
    EXPECT_EQ(countOf(trace, TraceEvent::Kind::Memset), 1);
}

TEST_F(TracedGpu, DecoupledScanIsOneKernel) {
    const int n = 1 << 20;
    const Trace trace = tracedCall("decoupled", Op::Scan, n);
    SKIP_WITHOUT_TRACE(trace);
    const std::vector<std::string> names = kernelNames(trace);
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names[0].rfind("kernDecoupledTile", 0), 0u) << names[0];
    const int items = StreamCompaction::Decoupled::tileItemsFor(Common::policyFamily(), n);
    for (const TraceEvent &event : trace.events) {
        if (event.kind == TraceEvent::Kind::Kernel) {
            EXPECT_EQ(event.grid[0], (n + items - 1) / items);
        }
    }
    EXPECT_EQ(countOf(trace, TraceEvent::Kind::Memset), 0);  // the tile status is cleared only when it grows
}

// CUB's DeviceScan and Thrust's exclusive_scan (which calls it): the tile status's init
// kernel, then the scan kernel; Thrust's temporary storage comes from its cache, so no
// cudaMalloc.
TEST_F(TracedGpu, CubAndThrustScansAreInitAndScanKernels) {
    for (const char *backend : {"cub", "thrust"}) {
        SCOPED_TRACE(backend);
        const Trace trace = tracedCall(backend, Op::Scan, 1 << 20);
        SKIP_WITHOUT_TRACE(trace);
        const std::vector<std::string> names = kernelNames(trace);
        ASSERT_EQ(names.size(), 2u);
        EXPECT_EQ(names[0].rfind("DeviceScanInitKernel", 0), 0u) << names[0];
        EXPECT_EQ(names[1].rfind("DeviceScanKernel", 0), 0u) << names[1];
        EXPECT_EQ(callsOf(trace, Harness::CallKind::Allocate), 0);
    }
}

// CUPTI is attached for each traced call and detached after it: a second trace works as the first.
TEST_F(TracedGpu, TracesOneCallAfterAnother) {
    for (int i = 0; i < 3; ++i) {
        const Trace trace = tracedCall("naive", Op::Scan, 1 << 16);
        SKIP_WITHOUT_TRACE(trace);
        EXPECT_EQ(kernelNames(trace).size(), 16u) << "trace " << i;
    }
}

// The course run prints the block under each GPU test.
TEST_F(TracedGpu, CourseRunExplainsEachTest) {
    Harness::Options options;
    std::string errors;
    ASSERT_EQ(TestSupport::parseArgs({"--size", "2^16", "--backends", "naive", "--explain", "--reps", "2"}, options,
                                     errors),
              -1)
        << errors;
    testing::internal::CaptureStdout();
    EXPECT_EQ(Harness::runCourseSequence(options), 0);
    const std::string out = testing::internal::GetCapturedStdout();
    if (out.find("explain: unavailable:") != std::string::npos) GTEST_SKIP() << out;
    EXPECT_NE(out.find("==== naive scan, power-of-two ====\n"), std::string::npos) << out;
    EXPECT_NE(out.find("    explain: "), std::string::npos) << out;
    EXPECT_NE(out.find("      kernels "), std::string::npos) << out;
    EXPECT_NE(out.find(" (16), copies "), std::string::npos) << out;  // 16 passes at 2^16 and 2^16 - 3
}

}  // namespace
