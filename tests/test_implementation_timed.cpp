// A back end timed by the implementation (a course submission's row): the runner hands
// it host arrays, poisoned before every call, reads its own timer instead of `timer`, and
// says what is wrong with the readings. Runs without a GPU: the fake row's work is a CPU
// loop behind a GPU row's flags.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <stream_compaction/backends.h>

#include "reference.hpp"
#include "measure/runner.h"

namespace {

using StreamCompaction::Backend;
using namespace Harness;

// The fake submission: what its next timer reading is, and whether its scan writes all
// n outputs (a scan that leaves the last one unwritten fails at n - 1).
struct FakeSubmission {
    std::vector<float> readings;  // one per call, cycled; empty: the reading never changes
    std::size_t calls = 0;
    float current = 0;
    bool skipLast = false;
};
FakeSubmission fake;

void fakeScan(int n, int *odata, const int *idata) {
    int sum = 0;
    const int written = fake.skipLast ? n - 1 : n;
    for (int i = 0; i < written; ++i) {
        odata[i] = sum;  // a host array: a device pointer would fault here
        sum += idata[i];
    }
    if (!fake.readings.empty()) fake.current = fake.readings[fake.calls++ % fake.readings.size()];
}

float fakeTimer() { return fake.current; }

const Backend kFakeRow{.name = "student-fake", .title = "student fake", .onGpu = true, .scan = fakeScan,
                       .implementationTimer = fakeTimer};

Harness::Run runFake(std::vector<float> readings, bool skipLast = false) {
    fake = FakeSubmission{std::move(readings), 0, 0, skipLast};
    RunSettings settings;
    settings.warmup = 1;
    settings.reps = 5;
    return run(kFakeRow, Op::Scan, std::vector<int>(1000, 3), settings);
}

TEST(ImplementationTimed, TheRowTakesHostArraysAndItsOwnTimer) {
    EXPECT_TRUE(StreamCompaction::timedByImplementation(kFakeRow));
    EXPECT_TRUE(StreamCompaction::takesHostArrays(kFakeRow));
    const Backend *naive = StreamCompaction::findBackend("naive");
    ASSERT_NE(naive, nullptr);
    EXPECT_FALSE(StreamCompaction::timedByImplementation(*naive));
    EXPECT_FALSE(StreamCompaction::takesHostArrays(*naive));
    // The warm-up reads 1.0; the five timed calls 2, 3, 4, 5, 6: median 4.
    const Harness::Run result = runFake({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
    EXPECT_EQ(result.timing.samples, 5);
    EXPECT_DOUBLE_EQ(result.timing.medianMs, 4.0);
    EXPECT_DOUBLE_EQ(result.timing.minMs, 2.0);
    EXPECT_DOUBLE_EQ(result.timing.maxMs, 6.0);
    EXPECT_TRUE(result.timing.byImplementation);
    EXPECT_EQ(result.timing.note, "");
    EXPECT_TRUE(verify(Op::Scan, result, expected(Op::Scan, std::vector<int>(1000, 3), {})).passed());
}

TEST(ImplementationTimed, AnUnwrittenOutputIsPoisonedAndFails) {
    const Harness::Run result = runFake({1.0f, 2.0f}, /*skipLast=*/true);
    const Verdict verdict = verify(Op::Scan, result, expected(Op::Scan, std::vector<int>(1000, 3), {}));
    EXPECT_EQ(verdict.kind, Verdict::Kind::FailValue);
    EXPECT_NE(verdict.detail.find("a[999]"), std::string::npos) << verdict.detail;
}

TEST(ImplementationTimed, ZeroReadingsAreANote) {
    const Harness::Run result = runFake({0.0f});
    EXPECT_NE(result.timing.note.find("the timer read 0 ms on 5 of 5 calls"), std::string::npos) << result.timing.note;
}

TEST(ImplementationTimed, NegativeAndNanReadingsAreNotesAndNanIsLeftOutOfTheFigures) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Harness::Run result = runFake({1.0f, -2.0f, nan, 3.0f, nan, 5.0f});
    EXPECT_NE(result.timing.note.find("a negative time on 1 of 5 calls"), std::string::npos) << result.timing.note;
    EXPECT_NE(result.timing.note.find("NaN on 2 of 5 calls"), std::string::npos) << result.timing.note;
    EXPECT_EQ(result.timing.samples, 3);  // -2, 3 and 5
    EXPECT_DOUBLE_EQ(result.timing.medianMs, 3.0);
}

TEST(ImplementationTimed, AReadingThatNeverChangesIsANote) {
    fake = FakeSubmission{};
    fake.current = 1.5f;  // left by some earlier call; the scan never sets it
    RunSettings settings;
    const Harness::Run result = run(kFakeRow, Op::Scan, std::vector<int>(100, 1), settings);
    EXPECT_NE(result.timing.note.find("never changed"), std::string::npos) << result.timing.note;
}

// Equal readings from a function that sets its timer (a tiny input's kernel times) are
// no note: only a reading that stays what it was before the first call is.
TEST(ImplementationTimed, EqualReadingsThatTheCallsSetAreNoNote) {
    const Harness::Run result = runFake({2.0f});
    EXPECT_EQ(result.timing.note, "");
    EXPECT_DOUBLE_EQ(result.timing.medianMs, 2.0);
}

TEST(ImplementationTimed, HostAdaptersCallTheRowDirectly) {
    fake = FakeSubmission{{1.0f}, 0, 0, false};
    const std::vector<int> input = {4, 0, 2};
    std::vector<int> output(3, -1);
    StreamCompaction::hostScan(kFakeRow, 3, output.data(), input.data());
    EXPECT_EQ(output, (std::vector<int>{0, 4, 4}));
}

}  // namespace
