// The GPU state read through NVML: the throttle reasons' names and the notes built from
// two readings, on crafted states; the readings through a stand-in NVML library; and the
// real reading, which is empty without a GPU and never fails.

#include <string>

#include <gtest/gtest.h>

#include <stream_compaction/errors.h>

#include "measure/gpu_state.h"

namespace {

using Harness::GpuState;
namespace Reason = Harness::ThrottleReason;

GpuState reading(unsigned smClockMHz, unsigned long long reasons) {
    return GpuState{.smClockMHz = smClockMHz, .memoryClockMHz = 2619, .temperatureC = 40, .powerW = 300,
                    .throttleReasons = reasons};
}

TEST(GpuState, ThrottleTextNamesTheReasonsThatSlowABenchmark) {
    EXPECT_EQ(Harness::throttleText(0), "");
    EXPECT_EQ(Harness::throttleText(Reason::kSwPowerCap), "SW power cap");
    EXPECT_EQ(Harness::throttleText(Reason::kHwSlowdown), "HW slowdown");
    EXPECT_EQ(Harness::throttleText(Reason::kSwThermalSlowdown), "SW thermal slowdown");
    EXPECT_EQ(Harness::throttleText(Reason::kHwThermalSlowdown), "HW thermal slowdown");
    EXPECT_EQ(Harness::throttleText(Reason::kHwPowerBrakeSlowdown), "HW power brake");
    EXPECT_EQ(Harness::throttleText(0x4 | 0x40 | 0x80), "SW power cap, HW thermal slowdown, HW power brake");
    // Idle, the applications clocks setting and bits NVML may add later are not named.
    EXPECT_EQ(Harness::throttleText(Reason::kGpuIdle | Reason::kApplicationsClocksSetting), "");
    EXPECT_EQ(Harness::throttleText(Reason::kGpuIdle | 0x20 | (1ULL << 40)), "SW thermal slowdown");
}

TEST(GpuState, ThrottledWhenEitherReadingHasAReason) {
    EXPECT_FALSE(Harness::throttled(reading(1980, 0), reading(1980, 0)));
    EXPECT_FALSE(Harness::throttled(reading(1980, Reason::kGpuIdle), reading(1980, Reason::kApplicationsClocksSetting)));
    EXPECT_TRUE(Harness::throttled(reading(1980, Reason::kSwPowerCap), reading(1980, 0)));
    EXPECT_TRUE(Harness::throttled(reading(1980, 0), reading(1755, Reason::kHwSlowdown)));
    EXPECT_FALSE(Harness::throttled(GpuState{}, GpuState{}));
    EXPECT_TRUE(Harness::throttled(GpuState{}, reading(1755, Reason::kHwPowerBrakeSlowdown)));
}

TEST(GpuState, NoteSaysTheReasonsAndTheClockChange) {
    EXPECT_EQ(Harness::gpuStateNote(reading(1980, 0), reading(1980, Reason::kGpuIdle)), "");
    EXPECT_EQ(Harness::gpuStateNote(reading(1980, 0), reading(1755, Reason::kSwPowerCap)),
              "throttled: SW power cap; SM clock 1980 -> 1755 MHz");
    EXPECT_EQ(Harness::gpuStateNote(reading(1980, Reason::kHwSlowdown), reading(1980, Reason::kSwThermalSlowdown)),
              "throttled: HW slowdown, SW thermal slowdown");
    EXPECT_EQ(Harness::gpuStateNote(reading(1410, 0), reading(1980, 0)), "SM clock 1410 -> 1980 MHz");
    // A clock that one reading lacks is no change; empty readings give no note.
    GpuState noClock = reading(1980, 0);
    noClock.smClockMHz.reset();
    EXPECT_EQ(Harness::gpuStateNote(noClock, reading(1755, 0)), "");
    EXPECT_EQ(Harness::gpuStateNote(GpuState{}, GpuState{}), "");
}

// The stand-in library (tests/fake_nvml.cpp) gives fixed readings for one bus id.
TEST(GpuState, ReadsEveryFieldThroughTheLibrary) {
    const GpuState state = Harness::readGpuState(SC_FAKE_NVML, "0000:01:00.0");
    EXPECT_EQ(state.smClockMHz, 1755u);
    EXPECT_EQ(state.memoryClockMHz, 2619u);
    EXPECT_EQ(state.temperatureC, 61u);
    ASSERT_TRUE(state.powerW);
    EXPECT_DOUBLE_EQ(*state.powerW, 512.345);  // NVML's milliwatts
    EXPECT_EQ(state.throttleReasons, Reason::kGpuIdle | Reason::kSwPowerCap);  // through the older function name
    EXPECT_EQ(Harness::throttleText(*state.throttleReasons), "SW power cap");
}

void expectEmpty(const GpuState &state) {
    EXPECT_FALSE(state.smClockMHz);
    EXPECT_FALSE(state.memoryClockMHz);
    EXPECT_FALSE(state.temperatureC);
    EXPECT_FALSE(state.powerW);
    EXPECT_FALSE(state.throttleReasons);
}

TEST(GpuState, EmptyForAnUnknownGpuOrAMissingLibrary) {
    expectEmpty(Harness::readGpuState(SC_FAKE_NVML, "0000:02:00.0"));
    expectEmpty(Harness::readGpuState("no-such-directory/libnvidia-ml.so.1", "0000:01:00.0"));
}

// Without a CUDA device (no driver, hence no NVML) every field is empty; with one, NVML
// comes with the driver and gives at least the clocks and the temperature.
TEST(GpuState, TheCurrentDeviceReadsWithoutFailing) {
    const GpuState first = Harness::readGpuState();
    const GpuState second = Harness::readGpuState();  // the library is loaded once and kept
    if (!StreamCompaction::Common::deviceAvailable()) {
        expectEmpty(first);
        expectEmpty(second);
        return;
    }
    ASSERT_TRUE(second.smClockMHz);
    EXPECT_GT(*second.smClockMHz, 0u);
    EXPECT_TRUE(second.memoryClockMHz);
    EXPECT_TRUE(second.temperatureC);
}

}  // namespace
