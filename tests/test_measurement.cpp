// The runner's GPU measurement (runner.h, measurement.h) on back ends of known cost: the
// L2 flush before every timed call, the blocking kernel keeping host time out of a
// figure, and a call that waits for the device found and timed without the hold.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include <stream_compaction/backends.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/measurement.h>

#include "measure/device_info.h"
#include "measure/runner.h"
#include "spin_kernel.h"
#include "test_support.h"

namespace {

using StreamCompaction::Backend;
using namespace Harness;
namespace Common = StreamCompaction::Common;

constexpr double kSpinMicroseconds = 200;
constexpr int kHostSleepMs = 50;

// A "scan" that writes nothing useful and costs a known time: the host sleeps 50 ms,
// then a 200 us kernel runs (and, for the waiting one, the host waits for it).
void slowHostThenSpin(int, int *, const int *) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kHostSleepMs));
    TestSupport::spinOnDevice(kSpinMicroseconds);
}
void spinThenWait(int, int *, const int *) {
    TestSupport::spinOnDevice(kSpinMicroseconds);
    StreamCompaction::Common::checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", __FILE__, __LINE__);
}

const Backend kSlowHost{.name = "slow-host", .title = "slow host", .scan = slowHostThenSpin};
const Backend kWaits{.name = "waits", .title = "waits", .scan = spinThenWait};

RunSettings fixed(int reps, bool blockingKernel) {
    RunSettings s;
    s.warmup = 1;
    s.reps = reps;
    s.blockingKernel = blockingKernel;
    return s;
}

// The figures are not checked against a reference here (the fakes compute nothing); what
// is checked is the time between the events.
double medianMs(const Backend &backend, const RunSettings &settings, Timing *timing = nullptr) {
    const Harness::Run run = Harness::run(backend, Op::Scan, std::vector<int>(256, 1), settings);
    if (timing) *timing = run.timing;
    return run.timing.medianMs;
}

TEST(Measurement, TheBlockingKernelKeepsTheHostsTimeOut) {
    SKIP_WITHOUT_GPU();
    Timing held;
    const double heldMs = medianMs(kSlowHost, fixed(5, true), &held);
    EXPECT_TRUE(held.held);
    // The kernel's 0.2 ms, and little more: the host's 50 ms sleep is before the release.
    // The bounds leave room for other processes on the GPU (the suite runs in parallel):
    // the GPU's time slices between them can delay when an event is recorded by a few ms.
    EXPECT_GE(heldMs, 0.9 * kSpinMicroseconds / 1000);
    EXPECT_LT(heldMs, 5.0) << "the host's sleep is in the figure";
    Timing open;
    const double openMs = medianMs(kSlowHost, fixed(5, false), &open);
    EXPECT_FALSE(open.held);
    EXPECT_GE(openMs, 0.5 * kHostSleepMs) << "without the hold the host's sleep is between the events";
}

// The launch gap is a chain of empty kernels' GPU time over its length, one sample per
// chain: above zero, and far below what a sample that waited for the hold's 500 ms
// timeout would read over 64 kernels.
TEST(Measurement, TheLaunchGapIsTheChainsTimeOverItsLength) {
    SKIP_WITHOUT_GPU();
    const std::optional<Statistics> gap = measureLaunchGap(64, 5);
    ASSERT_TRUE(gap) << "the stream hold timed out";
    EXPECT_EQ(gap->samples, 5);
    EXPECT_GT(gap->minMs, 0);
    EXPECT_LT(gap->medianMs, 0.05) << "more than 50 us a kernel";
}

// The host's time is held out of the gap: a chain whose enqueueing ends with a 20 ms sleep
// on the host reads its kernels' time alone (without the hold the sleep would be between
// the events, over 0.3 ms a kernel). The bound leaves room for other processes' time
// slices on a shared GPU.
TEST(Measurement, TheLaunchGapHoldsTheHostsTimeOut) {
    SKIP_WITHOUT_GPU();
    const auto sleepsAfter = [](int count) {
        StreamCompaction::Common::enqueueEmptyKernels(count);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    };
    const std::optional<Statistics> gap = measureLaunchGap(64, 3, sleepsAfter);
    ASSERT_TRUE(gap) << "the stream hold timed out";
    EXPECT_LT(gap->medianMs, 0.1) << "the host's sleep is in the gap";
}

// A chain that waits for the device inside waits for the hold until it times out: the gap
// is then unknown, not a figure with the wait in it, and nothing throws.
TEST(Measurement, ALaunchGapWhoseHoldTimedOutIsUnknown) {
    SKIP_WITHOUT_GPU();
    const auto waits = [](int count) {
        StreamCompaction::Common::enqueueEmptyKernels(count);
        StreamCompaction::Common::checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", __FILE__, __LINE__);
    };
    EXPECT_FALSE(measureLaunchGap(4, 2, waits));
}

TEST(Measurement, ACallThatWaitsForTheDeviceIsTimedWithoutTheHold) {
    SKIP_WITHOUT_GPU();
    Timing timing;
    const double ms = medianMs(kWaits, fixed(4, true), &timing);
    EXPECT_FALSE(timing.held);
    EXPECT_TRUE(timing.synchronizes);
    EXPECT_EQ(timing.samples, 4);  // the sample that waited for the hold was dropped and replaced
    EXPECT_GE(ms, 0.9 * kSpinMicroseconds / 1000);
    EXPECT_LT(ms, 100) << "a sample that waited for the hold's timeout is in the figure";
}

TEST(Measurement, TheL2IsFlushedBeforeEveryColdCallAndNeverHot) {
    SKIP_WITHOUT_GPU();
    const Backend *decoupled = StreamCompaction::findBackend("decoupled");
    ASSERT_NE(decoupled, nullptr);
    const std::vector<int> input = TestSupport::randomInput(1 << 16, TestSupport::freshSeed());
    RunSettings cold = fixed(7, true);
    const unsigned long long before = Common::l2FlushCount();
    const Harness::Run result = Harness::run(*decoupled, Op::Scan, input, cold);
    EXPECT_EQ(Common::l2FlushCount() - before, 7u);  // one per timed call, none for the warm-up
    EXPECT_TRUE(result.timing.cold);
    RunSettings hot = cold;
    hot.cold = false;
    const unsigned long long beforeHot = Common::l2FlushCount();
    EXPECT_FALSE(Harness::run(*decoupled, Op::Scan, input, hot).timing.cold);
    EXPECT_EQ(Common::l2FlushCount(), beforeHot);
    EXPECT_EQ(Common::l2FlushBytes(), 2 * Common::l2CacheBytes());
}

// Thrust's scans and sorts only enqueue their work (thrust::cuda::par_nosync), so they are
// timed with the stream held, through the course's entry points and the 64-bit ones
// alike; its compaction and partition return their count to the host and are timed
// without the hold. A call that waited for the held stream would turn the hold off
// (`held` false) for the rest of its cell.
TEST(Measurement, ThrustIsTimedWithTheStreamHeldExceptWhereItCountsOnTheHost) {
    SKIP_WITHOUT_GPU();
    const Backend *thrust = StreamCompaction::findBackend("thrust");
    ASSERT_NE(thrust, nullptr);
    const std::vector<int> input = TestSupport::randomInput(100003, TestSupport::freshSeed());
    for (bool wide : {false, true}) {
        for (Op op : kAllOps) {
            if (wide && !offers64(*thrust, op)) continue;
            SCOPED_TRACE(testing::Message() << opName(op) << (wide ? " (64-bit)" : ""));
            RunSettings settings = fixed(5, true);
            settings.use64BitApi = wide;
            const Timing timing = Harness::run(*thrust, op, input, settings).timing;
            const bool counted = describe(op).returnsCount;
            EXPECT_EQ(timing.held, !counted);
            EXPECT_EQ(timing.synchronizes, counted);
        }
    }
}

}  // namespace
