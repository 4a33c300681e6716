// After an error: a timer left running starts again, an error that clears leaves the GPU
// usable, and a sticky fault leaves it lost for the rest of the process, every later GPU
// call failing at once with a plain message.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/common.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>

#include "fault_injection.h"
#include "measure/runner.h"
#include "sweep/sweep.h"
#include "test_support.h"

namespace {

namespace Common = StreamCompaction::Common;

Harness::RunSettings oneRep() {
    Harness::RunSettings settings;
    settings.warmup = 0;
    settings.reps = 1;
    return settings;
}

// `check(backend, op)` for every operation of every GPU back end.
template <typename Check>
void forEveryGpuCall(Check check) {
    for (const StreamCompaction::Backend &backend : StreamCompaction::backends()) {
        if (!backend.onGpu) continue;
        for (Harness::Op op : {Harness::Op::Scan, Harness::Op::Compact, Harness::Op::Partition, Harness::Op::Sort}) {
            if (!Harness::offers(backend, op)) continue;
            SCOPED_TRACE(testing::Message() << backend.name << " " << Harness::opName(op));
            check(backend, op);
        }
    }
}

void expectEveryGpuCallPasses(const std::vector<int> &input) {
    const Harness::RunSettings settings = oneRep();
    forEveryGpuCall([&](const StreamCompaction::Backend &backend, Harness::Op op) {
        const auto verdict = Harness::verify(op, Harness::run(backend, op, input, settings),
                                             Harness::expected(op, input, settings.keep));
        EXPECT_TRUE(verdict.passed()) << verdict.detail;
    });
}

// A failed call can leave a timer running; afterError() lets it start again, GPU or not.
TEST(Faults, ATimerLeftRunningStartsAgainAfterTheError) {
    Common::PerformanceTimer timer;
    timer.startCpuTimer();
    Common::afterError();
    EXPECT_NO_THROW(timer.startCpuTimer());
    timer.endCpuTimer();
}

// An allocation that does not fit is not sticky: after it the device is not lost and
// every back end still works.
TEST(Faults, AnErrorThatClearsLeavesTheGpuUsable) {
    SKIP_WITHOUT_GPU();
    EXPECT_THROW(Common::DeviceBuffer<char>(std::size_t(1) << 50), StreamCompaction::OutOfMemory);
    Common::afterError();
    EXPECT_EQ(Common::deviceLost(), "");
    expectEveryGpuCallPasses(TestSupport::randomInput(4097, TestSupport::freshSeed()));
}

// An illegal address kills the CUDA context. The fault itself is a CudaError naming the
// operation; afterError() then marks the device lost, and every later GPU call, with
// workspaces and timer events of the dead context behind it, fails at once with the
// plain "restart the program" message instead of crashing, hanging or returning a wrong
// result. The sweep skips later GPU cells with that reason; the CPU still works.
TEST(Faults, AStickyFaultIsReportedPlainly) {
    SKIP_WITHOUT_GPU();
    const std::vector<int> input = TestSupport::randomInput(4097, TestSupport::freshSeed());
    expectEveryGpuCallPasses(input);  // every back end now holds workspaces and timer events
    try {
        TestSupport::injectFault();
        FAIL() << "no exception from the fault";
    } catch (const StreamCompaction::CudaError &e) {
        EXPECT_NE(std::string(e.what()).find("fault injection write through null, n = 1"), std::string::npos)
            << e.what();
    }
    Common::afterError();
    const std::string lost = Common::deviceLost();
    EXPECT_NE(lost.find("restart the program"), std::string::npos) << lost;
    Common::afterError();
    EXPECT_EQ(Common::deviceLost(), lost) << "the device is marked lost once";

    const Harness::RunSettings settings = oneRep();
    forEveryGpuCall([&](const StreamCompaction::Backend &backend, Harness::Op op) {
        try {
            Harness::run(backend, op, input, settings);
            ADD_FAILURE() << "a GPU call succeeded on a lost device";
        } catch (const StreamCompaction::CudaError &e) {
            EXPECT_NE(std::string(e.what()).find(lost), std::string::npos) << e.what();
        }
        EXPECT_EQ(Harness::cellSkipReason(backend, op, static_cast<long long>(input.size())), lost);
    });
    EXPECT_THROW(Common::DeviceBuffer<int>(16), StreamCompaction::CudaError);

    const StreamCompaction::Backend *cpu = StreamCompaction::findBackend("cpu");
    ASSERT_NE(cpu, nullptr);
    const auto verdict = Harness::verify(Harness::Op::Scan, Harness::run(*cpu, Harness::Op::Scan, input, settings),
                                         Harness::expected(Harness::Op::Scan, input, settings.keep));
    EXPECT_TRUE(verdict.passed()) << verdict.detail;
}

}  // namespace
