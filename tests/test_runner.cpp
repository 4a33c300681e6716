// The harness runner (src/measure/runner.h) driving fake back ends: a StreamCompaction::Backend is
// a row of plain function pointers, so a fake is a set of free functions sharing the state
// below. The fakes show that the runner poisons the output before every call, checks a
// compaction's or partition's count, calls the back end warmup + reps times, and reports
// the median, min and max of the timed calls only. Each case runs with a CPU fake (host
// arrays, CPU timer) and, where there is a device, a GPU fake (device arrays, GPU timer).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/common.h>
#include <stream_compaction/errors.h>

#include "reference.hpp"
#include "measure/runner.h"
#include "test_support.h"

namespace {

namespace SC = StreamCompaction;
using Harness::Op;
using SC::Predicate;

// What the fakes share (their function pointers cannot capture).
struct FakeState {
    bool onGpu = false;           // arrays on the device and the GPU timer
    int calls = 0;                // calls so far
    std::vector<double> times{};  // what each call left in its timer, in call order
    std::vector<int> sleepMs{};   // call i sleeps sleepMs[i] ms inside its timed bracket
};
FakeState fake;

SC::Common::PerformanceTimer &fakeTimer() {
    static SC::Common::PerformanceTimer timer;
    return timer;
}

// The input as host values, wherever it is.
std::vector<int> hostInput(std::size_t n, const int *in) { return TestSupport::readBack(in, n, fake.onGpu); }

// Writes values[first..] to out[first..], wherever out is.
template <typename T>
void store(T *out, const std::vector<T> &values, std::size_t first) {
    if (first >= values.size()) return;
    TestSupport::writeAt(out, first, std::vector<T>(values.begin() + first, values.end()), fake.onGpu);
}

// The call's timed bracket, as a back end holds its timer; logs what the timer then reads.
void timedBracket() {
    const std::size_t call = static_cast<std::size_t>(fake.calls++);
    const int ms = call < fake.sleepMs.size() ? fake.sleepMs[call] : 0;
    if (fake.onGpu) fakeTimer().startGpuTimer();
    else fakeTimer().startCpuTimer();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    if (fake.onGpu) fakeTimer().endGpuTimer();
    else fakeTimer().endCpuTimer();
    fake.times.push_back(fake.onGpu ? fakeTimer().getGpuElapsedTimeForPreviousOperation()
                                    : fakeTimer().getCpuElapsedTimeForPreviousOperation());
}

// Correct operations.
void scanCorrect(int n, int *out, const int *in) {
    store(out, TestingHelpers::referenceScan(hostInput(n, in)), 0);
    timedBracket();
}
int compactCorrect(int n, int *out, const int *in, Predicate keep) {
    const std::vector<int> kept = TestingHelpers::referenceCompact(hostInput(n, in), keep);
    store(out, kept, 0);
    timedBracket();
    return static_cast<int>(kept.size());
}
int partitionCorrect(int n, int *out, const int *in, Predicate keep) {
    const std::vector<int> input = hostInput(n, in);
    store(out, TestingHelpers::referencePartition(input, keep), 0);
    timedBracket();
    return static_cast<int>(std::count_if(input.begin(), input.end(), keep));
}
void sortCorrect(int n, int *out, const int *in) {
    store(out, TestingHelpers::referenceSort(hostInput(n, in)), 0);
    timedBracket();
}
void sortUnsignedCorrect(int n, unsigned *out, const unsigned *in) {
    const std::vector<int> input = hostInput(n, reinterpret_cast<const int *>(in));
    store(reinterpret_cast<int *>(out), TestingHelpers::referenceSortUnsigned(input), 0);
    timedBracket();
}

// The pairs sorted stably, written from keys[firstKey] and values[firstValue] on.
void storeSortedPairs(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn,
                      std::size_t firstKey, std::size_t firstValue) {
    const auto size = static_cast<std::size_t>(n);
    std::vector<int> pairs = hostInput(size, keysIn);
    const std::vector<int> values = hostInput(size, valuesIn);
    pairs.insert(pairs.end(), values.begin(), values.end());
    const std::vector<int> sorted = TestingHelpers::referenceSortPairs(pairs);
    const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(size);
    store(keysOut, std::vector<int>(sorted.begin(), middle), firstKey);
    store(valuesOut, std::vector<int>(middle, sorted.end()), firstValue);
}
void sortPairsCorrect(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn) {
    storeSortedPairs(n, keysOut, valuesOut, keysIn, valuesIn, 0, 0);
    timedBracket();
}

// Broken ones. The "leaving out[0]" kind writes every element on the first call (a
// warm-up), then all but out[0]: only poisoning before every call shows the gap.
void scanLeavingFirst(int n, int *out, const int *in) {
    store(out, TestingHelpers::referenceScan(hostInput(n, in)), fake.calls == 0 ? 0 : 1);
    timedBracket();
}
void scan64LeavingFirst(std::size_t n, long long *out, const int *in) {
    store(out, TestingHelpers::referenceScanInt64(hostInput(n, in)), fake.calls == 0 ? 0 : 1);
    timedBracket();
}
void sortLeavingFirst(int n, int *out, const int *in) {
    store(out, TestingHelpers::referenceSort(hostInput(n, in)), fake.calls == 0 ? 0 : 1);
    timedBracket();
}
void sortPairsLeavingFirstValue(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn) {
    storeSortedPairs(n, keysOut, valuesOut, keysIn, valuesIn, 0, fake.calls == 0 ? 0 : 1);
    timedBracket();
}
int compactOneTooMany(int n, int *out, const int *in, Predicate keep) { return compactCorrect(n, out, in, keep) + 1; }
int partitionOneTooMany(int n, int *out, const int *in, Predicate keep) {
    return partitionCorrect(n, out, in, keep) + 1;
}
std::size_t partition64OneTooMany(std::size_t n, int *out, const int *in, Predicate keep) {
    return static_cast<std::size_t>(partitionCorrect(static_cast<int>(n), out, in, keep)) + 1;
}

// A count-returning fake as the registry takes it: the count stored where the arrays are.
template <int (*Fake)(int, int *, const int *, Predicate)>
void keptBy(int n, int *out, const int *in, Predicate keep, int *kept) {
    TestSupport::storeKept(Fake(n, out, in, keep), kept, fake.onGpu);
}

SC::Backend correctBackend() {
    return SC::Backend{.name = "fake", .title = "fake", .onGpu = fake.onGpu, .timer = fakeTimer,
                       .scan = scanCorrect, .compact = keptBy<compactCorrect>, .partition = keptBy<partitionCorrect>,
                       .sort = sortCorrect, .sortPairs = sortPairsCorrect, .sortUnsigned = sortUnsignedCorrect};
}

Harness::RunSettings settings(int warmup, int reps) {
    // The fakes copy through the host inside their calls: no blocking kernel.
    return {.warmup = warmup, .reps = reps, .blockingKernel = false, .keep = Predicate::greaterThan(7)};
}

// The runner's verdict on one fake run against the independent reference.
Harness::Verdict verdictOf(const SC::Backend &backend, Op op, const std::vector<int> &input,
                           const Harness::RunSettings &s) {
    const Harness::Run run = Harness::run(backend, op, input, s);
    return Harness::verify(op, run, Harness::expected(op, input, s.keep, s.use64BitApi));
}

// The parameter: whether the fake is a GPU back end.
class RunnerWithFake : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override {
        if (GetParam()) SKIP_WITHOUT_GPU();
        fake = FakeState{.onGpu = GetParam()};
        seed_ = TestSupport::freshSeed();
        input_ = TestSupport::randomInput(1000, seed_);
    }
    std::uint64_t seed_ = 0;
    std::vector<int> input_;
};

// The fakes themselves are right: a correct one passes every op, so the failures below
// come from what each broken fake leaves out.
TEST_P(RunnerWithFake, CorrectFakePasses) {
    SCOPED_TRACE(testing::Message() << "seed " << seed_);
    const SC::Backend backend = correctBackend();
    for (Op op : Harness::kAllOps) {
        const Harness::Verdict verdict = verdictOf(backend, op, input_, settings(1, 2));
        EXPECT_TRUE(verdict.passed()) << Harness::opName(op) << ": " << verdict.detail;
    }
}

// An element the back end never writes reads as poison, not as what a previous call or a
// zeroed buffer left there: a value failure at a[0].
TEST_P(RunnerWithFake, UnwrittenFirstElementIsAValueFailure) {
    SCOPED_TRACE(testing::Message() << "seed " << seed_);
    SC::Backend backend = correctBackend();
    backend.scan = scanLeavingFirst;
    backend.sort = sortLeavingFirst;
    for (Op op : {Op::Scan, Op::Sort}) {
        fake.calls = 0;
        const Harness::Verdict verdict = verdictOf(backend, op, input_, settings(1, 1));
        EXPECT_EQ(verdict.kind, Harness::Verdict::Kind::FailValue) << Harness::opName(op) << ": " << verdict.detail;
        EXPECT_EQ(verdict.detail.rfind("a[0] = ", 0), 0u) << verdict.detail;
    }
    // Sort-pairs' values are poisoned as its keys are.
    backend.sortPairs = sortPairsLeavingFirstValue;
    fake.calls = 0;
    const Harness::Verdict pairs = verdictOf(backend, Op::SortPairs, input_, settings(1, 1));
    EXPECT_EQ(pairs.kind, Harness::Verdict::Kind::FailValue) << pairs.detail;
    EXPECT_EQ(pairs.detail.rfind("values[0] = ", 0), 0u) << pairs.detail;
    // The 64-bit scan's int64 sums are poisoned the same way.
    backend.scan64 = scan64LeavingFirst;
    fake.calls = 0;
    Harness::RunSettings wide = settings(1, 1);
    wide.use64BitApi = true;
    const Harness::Verdict verdict = verdictOf(backend, Op::Scan, input_, wide);
    EXPECT_EQ(verdict.kind, Harness::Verdict::Kind::FailValue) << verdict.detail;
    EXPECT_EQ(verdict.detail.rfind("a[0] = ", 0), 0u) << verdict.detail;
}

// A compaction or partition that writes the right elements but returns one too many is a
// count failure. The partition's output is all n elements either way, so only the check of
// `kept` can see it.
TEST_P(RunnerWithFake, KeptPlusOneIsACountFailure) {
    SCOPED_TRACE(testing::Message() << "seed " << seed_);
    const Harness::RunSettings s = settings(1, 2);
    const long long kept = std::count_if(input_.begin(), input_.end(), s.keep);
    const std::string detail = "expected " + std::to_string(kept) + " elements, got " + std::to_string(kept + 1);
    SC::Backend backend = correctBackend();
    backend.compact = keptBy<compactOneTooMany>;
    backend.partition = keptBy<partitionOneTooMany>;
    for (Op op : {Op::Compact, Op::Partition}) {
        const Harness::Verdict verdict = verdictOf(backend, op, input_, s);
        EXPECT_EQ(verdict.kind, Harness::Verdict::Kind::FailCount) << Harness::opName(op) << ": " << verdict.detail;
        EXPECT_EQ(verdict.detail, detail) << Harness::opName(op);
    }
    backend.partition64 = partition64OneTooMany;
    Harness::RunSettings wide = s;
    wide.use64BitApi = true;
    const Harness::Verdict verdict = verdictOf(backend, Op::Partition, input_, wide);
    EXPECT_EQ(verdict.kind, Harness::Verdict::Kind::FailCount) << verdict.detail;
    EXPECT_EQ(verdict.detail, detail);
}

// warmup untimed calls, then reps timed ones: the back end is called warmup + reps times,
// and the figures summarize exactly the timed calls' timer readings (the warm-ups sleep
// longest, so counting one would move the maximum). Odd and even counts of timed calls.
TEST_P(RunnerWithFake, TimingIsTheTimedCallsMedianMinAndMax) {
    struct Case {
        int warmup;
        std::vector<int> timedSleepMs;
    };
    for (const Case &c : {Case{2, {3, 1, 6, 2, 4}}, Case{1, {4, 1, 6, 2}}, Case{0, {2}}, Case{3, {1, 5}}}) {
        const int reps = static_cast<int>(c.timedSleepMs.size());
        SCOPED_TRACE(testing::Message() << "warmup " << c.warmup << ", reps " << reps);
        fake.calls = 0;
        fake.times.clear();
        fake.sleepMs.assign(static_cast<std::size_t>(c.warmup), 25);
        fake.sleepMs.insert(fake.sleepMs.end(), c.timedSleepMs.begin(), c.timedSleepMs.end());
        const Harness::Run run = Harness::run(correctBackend(), Op::Scan, input_, settings(c.warmup, reps));
        ASSERT_EQ(fake.calls, c.warmup + reps);
        ASSERT_EQ(fake.times.size(), static_cast<std::size_t>(c.warmup + reps));

        std::vector<double> timed(fake.times.begin() + c.warmup, fake.times.end());
        std::sort(timed.begin(), timed.end());
        const std::size_t half = timed.size() / 2;
        const double median = timed.size() % 2 == 1 ? timed[half] : (timed[half - 1] + timed[half]) / 2;
        EXPECT_EQ(run.timing.samples, reps);
        if (fake.onGpu) {
            // On the GPU the runner's own events bracket each call, sleep included: the
            // fake's readings within a millisecond or so (more for a busy host).
            EXPECT_NEAR(run.timing.medianMs, median, 1 + 0.2 * median);
            EXPECT_NEAR(run.timing.minMs, timed.front(), 1 + 0.2 * timed.front());
            EXPECT_NEAR(run.timing.maxMs, timed.back(), 1 + 0.2 * timed.back());
        } else {
            EXPECT_DOUBLE_EQ(run.timing.medianMs, median);
            EXPECT_DOUBLE_EQ(run.timing.minMs, timed.front());
            EXPECT_DOUBLE_EQ(run.timing.maxMs, timed.back());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Fakes, RunnerWithFake, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool> &info) { return info.param ? "gpu" : "cpu"; });

// A back end without the op, or without its 64-bit entry point, is refused before any call.
TEST(Runner, OpNotOfferedIsRefusedWithoutACall) {
    fake = FakeState{};
    SC::Backend backend = correctBackend();
    backend.partition = nullptr;
    const std::vector<int> input = TestSupport::randomInput(100, TestSupport::freshSeed());
    EXPECT_THROW(Harness::run(backend, Op::Partition, input, settings(1, 1)), std::invalid_argument);
    Harness::RunSettings wide = settings(1, 1);
    wide.use64BitApi = true;
    EXPECT_THROW(Harness::run(backend, Op::Scan, input, wide), std::invalid_argument);
    EXPECT_EQ(fake.calls, 0);
}

}  // namespace
