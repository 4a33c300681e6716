// The verifier that every back end's results go through (Harness::run and verify),
// tested with fake back ends that are wrong in one way each: only the last element
// wrong, one element written past the output or past the kept count, one element left
// unwritten, the input overwritten, a count off by one, or the previous call's output
// returned. Each must read FAIL, with a message that names what went wrong. Each case
// runs with host arrays (a CPU fake) and, where there is a device, device arrays (a GPU
// fake), and with warm-up calls, so that only the last call's output is downloaded.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/common.h>

#include "reference.hpp"
#include "measure/runner.h"
#include "test_support.h"

namespace {

namespace SC = StreamCompaction;
using Harness::Op;
using Harness::Verdict;
using SC::Predicate;

// What the fakes share (their function pointers cannot capture).
struct FakeState {
    bool onGpu = false;
    int calls = 0;
    std::vector<int> firstOutput{};  // what the stale fake wrote on its first call
};
FakeState fake;

SC::Common::PerformanceTimer &fakeTimer() {
    static SC::Common::PerformanceTimer timer;
    return timer;
}

// Every fake holds its timer around its work, as a back end must.
void bracket() {
    ++fake.calls;
    if (fake.onGpu) {
        fakeTimer().startGpuTimer();
        fakeTimer().endGpuTimer();
    } else {
        fakeTimer().startCpuTimer();
        fakeTimer().endCpuTimer();
    }
}

std::vector<int> readInput(std::size_t n, const int *in) { return TestSupport::readBack(in, n, fake.onGpu); }

// Writes values to to[first, first + values.size()), wherever `to` is.
template <typename T>
void write(T *to, std::size_t first, const std::vector<T> &values) {
    TestSupport::writeAt(to, first, values, fake.onGpu);
}

// The correct result of each op, on the input as the fake reads it (for sort-pairs, the
// keys and then the values).
std::vector<int> correct(Op op, const std::vector<int> &input, Predicate keep) {
    switch (op) {
        case Op::Scan: return TestingHelpers::referenceScan(input);
        case Op::Compact: return TestingHelpers::referenceCompact(input, keep);
        case Op::Partition: return TestingHelpers::referencePartition(input, keep);
        case Op::Sort: return TestingHelpers::referenceSort(input);
        case Op::SortPairs: return TestingHelpers::referenceSortPairs(input);
        case Op::SortUnsigned: return TestingHelpers::referenceSortUnsigned(input);
    }
    return {};
}

// Where a fake writes: one output array, or sort-pairs' keys and values, elements [0, n)
// of the result going to the keys and the rest to the values (so a write at 2n lands
// just past the values).
struct Output {
    int *keys;
    int *values = nullptr;
    std::size_t n = 0;

    void put(std::size_t first, const std::vector<int> &items) const {
        if (values == nullptr) return write(keys, first, items);
        for (std::size_t i = 0; i < items.size(); ++i) {
            const std::size_t at = first + i;
            write(at < n ? keys : values, at < n ? at : at - n, std::vector<int>{items[i]});
        }
    }
};

constexpr int kWritten = 12345;  // what a stray write leaves: never poison, never in the inputs

// How each fake goes wrong, applied to the correct result `values` of `n` inputs before
// it is written; returns the count a compaction or partition reports.
enum class Flaw {
    None, LastWrong, OnePastTheEnd, OneUnwritten, OverwritesInput, OverwritesInputOnItsLastCall,
    CountPlusOne, CountMinusOne, Stale
};
Flaw flaw = Flaw::None;

template <Op O>
int fakeOp(int n, const Output &out, const int *in, Predicate keep, const int *valuesIn = nullptr) {
    const std::size_t size = static_cast<std::size_t>(n);
    std::vector<int> input = readInput(size, in);
    const int kept = static_cast<int>(TestingHelpers::referenceKeptCount(input, keep));
    std::vector<int> read = input;
    if (valuesIn != nullptr) {
        const std::vector<int> carried = readInput(size, valuesIn);
        read.insert(read.end(), carried.begin(), carried.end());
    }
    std::vector<int> values = correct(O, read, keep);
    const std::size_t defined = values.size();  // the kept, n, or sort-pairs' 2n
    if (flaw == Flaw::Stale) {
        if (fake.firstOutput.empty()) fake.firstOutput = values;
        values = fake.firstOutput;
    }
    if (flaw == Flaw::LastWrong && !values.empty()) values.back() += 1;
    if (flaw == Flaw::OneUnwritten && !values.empty()) {
        const std::size_t hole = values.size() / 2;
        out.put(0, std::vector<int>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(hole)));
        out.put(hole + 1, std::vector<int>(values.begin() + static_cast<std::ptrdiff_t>(hole) + 1, values.end()));
    } else {
        out.put(0, values);
    }
    if (flaw == Flaw::OnePastTheEnd) out.put(defined, std::vector<int>{kWritten});
    // The third call of each run (a run makes 3: verdictOf's settings).
    const bool lastCall = fake.calls % 3 == 2;
    if (flaw == Flaw::OverwritesInput || (flaw == Flaw::OverwritesInputOnItsLastCall && lastCall)) {
        // Sorts "in place" on its input, as a radix pass that uses it for scratch would.
        write(const_cast<int *>(in), 0, TestingHelpers::referenceSort(input));
    }
    bracket();
    if (flaw == Flaw::CountPlusOne) return kept + 1;
    if (flaw == Flaw::CountMinusOne) return kept - 1;
    return O == Op::Compact ? static_cast<int>(values.size()) : kept;
}

void fakeScan(int n, int *out, const int *in) { fakeOp<Op::Scan>(n, {out}, in, Predicate::nonZero()); }
int fakeCompact(int n, int *out, const int *in, Predicate keep) { return fakeOp<Op::Compact>(n, {out}, in, keep); }
int fakePartition(int n, int *out, const int *in, Predicate keep) {
    return fakeOp<Op::Partition>(n, {out}, in, keep);
}
void fakeSort(int n, int *out, const int *in) { fakeOp<Op::Sort>(n, {out}, in, Predicate::nonZero()); }
void fakeSortPairs(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn) {
    fakeOp<Op::SortPairs>(n, {keysOut, valuesOut, static_cast<std::size_t>(n)}, keysIn, Predicate::nonZero(), valuesIn);
}
void fakeSortUnsigned(int n, unsigned *out, const unsigned *in) {
    fakeOp<Op::SortUnsigned>(n, {reinterpret_cast<int *>(out)}, reinterpret_cast<const int *>(in), Predicate::nonZero());
}

// The 64-bit scan, with the flaws that concern its int64 output.
void fakeScan64(std::size_t n, long long *out, const int *in) {
    std::vector<long long> sums = TestingHelpers::referenceScanInt64(readInput(n, in));
    if (flaw == Flaw::LastWrong && !sums.empty()) sums.back() += 1LL << 32;  // what an int32 sum would lose
    write(out, 0, sums);
    if (flaw == Flaw::OnePastTheEnd) write(out, n, std::vector<long long>{kWritten});
    bracket();
}

// A count-returning fake as the registry takes it: the count stored where the arrays are.
template <int (*Fake)(int, int *, const int *, Predicate)>
void keptBy(int n, int *out, const int *in, Predicate keep, int *kept) {
    TestSupport::storeKept(Fake(n, out, in, keep), kept, fake.onGpu);
}

SC::Backend fakeBackend() {
    SC::Backend backend{.name = "fake", .title = "fake", .onGpu = fake.onGpu, .timer = fakeTimer, .scan = fakeScan,
                        .compact = keptBy<fakeCompact>, .partition = keptBy<fakePartition>, .sort = fakeSort,
                        .sortPairs = fakeSortPairs, .sortUnsigned = fakeSortUnsigned};
    backend.scan64 = fakeScan64;
    return backend;
}

// A fixed input of 1000 values with zeros here and there, distinct enough that every
// op's output differs from its input and from the other ops' outputs.
std::vector<int> fixedInput(int n = 1000, int salt = 0) {
    std::vector<int> input(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) input[static_cast<std::size_t>(i)] = (i * 7919 + salt) % 9 == 0 ? 0 : (i * 37 + salt) % 201 - 100;
    return input;
}

// One warm-up and two timed calls: the output checked is the last call's.
Harness::RunSettings settings(bool wide = false) {
    // The fakes copy through the host inside their calls: no blocking kernel.
    return {.warmup = 1, .reps = 2, .blockingKernel = false, .keep = Predicate::nonZero(), .use64BitApi = wide};
}

// How a verdict names output element i of an op on n inputs: a[i], or for sort-pairs
// values[i - n] past the keys.
std::string element(Op op, std::size_t i, std::size_t n) {
    return op == Op::SortPairs && i >= n ? "values[" + std::to_string(i - n) + "]" : "a[" + std::to_string(i) + "]";
}

Verdict verdictOf(Op op, const std::vector<int> &input, const Harness::RunSettings &s = settings()) {
    return Harness::verify(op, Harness::run(fakeBackend(), op, input, s),
                           Harness::expected(op, input, s.keep, s.use64BitApi));
}

class Verifier : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override {
        if (GetParam()) SKIP_WITHOUT_GPU();
        fake = FakeState{.onGpu = GetParam()};
        flaw = Flaw::None;
    }
    void TearDown() override { flaw = Flaw::None; }
};

// The fakes are right unless told otherwise: what fails below fails for its flaw alone.
TEST_P(Verifier, AFakeWithoutAFlawPasses) {
    for (Op op : Harness::kAllOps) {
        const Verdict verdict = verdictOf(op, fixedInput());
        EXPECT_TRUE(verdict.passed()) << Harness::opName(op) << ": " << verdict.detail;
    }
    EXPECT_TRUE(verdictOf(Op::Scan, fixedInput(), settings(true)).passed());
}

// Only the last element wrong: the comparison reaches the end of the output.
TEST_P(Verifier, OnlyTheLastElementWrongIsAValueFailure) {
    flaw = Flaw::LastWrong;
    const std::vector<int> input = fixedInput();
    for (Op op : Harness::kAllOps) {
        const Harness::Expected want = Harness::expected(op, input, Predicate::nonZero());
        const std::size_t last = want.output.size() - 1;
        const Verdict verdict = verdictOf(op, input);
        EXPECT_EQ(verdict.kind, Verdict::Kind::FailValue) << Harness::opName(op);
        EXPECT_EQ(verdict.detail, element(op, last, input.size()) + " = " + std::to_string(want.output[last] + 1) +
                                      ", expected " + std::to_string(want.output[last]))
            << Harness::opName(op);
    }
    const Verdict wide = verdictOf(Op::Scan, input, settings(true));
    EXPECT_EQ(wide.kind, Verdict::Kind::FailValue);
    EXPECT_EQ(wide.detail.rfind("a[999] = ", 0), 0u) << wide.detail;
}

// One element written past the end of the output lands in the guard after it, which every
// call must leave poisoned; the first call that wrote it is named.
TEST_P(Verifier, AWritePastTheEndOfTheOutputIsAFailure) {
    flaw = Flaw::OnePastTheEnd;
    for (Op op : {Op::Scan, Op::Partition, Op::Sort}) {
        const Verdict verdict = verdictOf(op, fixedInput());
        EXPECT_EQ(verdict.kind, Verdict::Kind::FailValue) << Harness::opName(op);
        EXPECT_EQ(verdict.detail, "call 1 of 3 wrote a[1000] = 12345, past the end of the output (1000 elements)")
            << Harness::opName(op);
    }
    const Verdict pairs = verdictOf(Op::SortPairs, fixedInput());
    EXPECT_EQ(pairs.kind, Verdict::Kind::FailValue);
    EXPECT_EQ(pairs.detail, "call 1 of 3 wrote a[2000] = 12345, past the end of the output (2000 elements)");
    const Verdict wide = verdictOf(Op::Scan, fixedInput(), settings(true));
    EXPECT_EQ(wide.kind, Verdict::Kind::FailValue);
    EXPECT_EQ(wide.detail, "call 1 of 3 wrote a[1000] = 12345, past the end of the output (1000 elements)");
}

// A compaction that writes one element past the count it returns: the count and the kept
// elements are right, and only the whole output, read back, shows the stray write.
TEST_P(Verifier, ACompactionWritingPastItsCountIsAFailure) {
    flaw = Flaw::OnePastTheEnd;
    const std::vector<int> input = fixedInput();
    const long long kept = TestingHelpers::referenceKeptCount(input, Predicate::nonZero());
    ASSERT_LT(kept, 1000);
    const Verdict verdict = verdictOf(Op::Compact, input);
    EXPECT_EQ(verdict.kind, Verdict::Kind::FailValue);
    EXPECT_EQ(verdict.detail, "a[" + std::to_string(kept) + "] = 12345 was written past the " + std::to_string(kept) +
                                  " elements the call returned");
}

// One element in the middle never written reads as poison (0xCDCDCDCD), not as what an
// earlier call left there.
TEST_P(Verifier, AnUnwrittenElementIsAValueFailure) {
    flaw = Flaw::OneUnwritten;
    const std::vector<int> input = fixedInput();
    for (Op op : Harness::kAllOps) {
        const Harness::Expected want = Harness::expected(op, input, Predicate::nonZero());
        const std::size_t hole = want.output.size() / 2;
        const Verdict verdict = verdictOf(op, input);
        EXPECT_EQ(verdict.kind, Verdict::Kind::FailValue) << Harness::opName(op);
        EXPECT_EQ(verdict.detail, element(op, hole, input.size()) + " = -842150451, expected " +
                                      std::to_string(want.output[hole]))
            << Harness::opName(op);
    }
}

// A back end that overwrites its input (here, sorting it in place) passes every output
// check, since its output is right: the input is read back after the first call and the
// last, so a write on every call and one on the last call only are both seen. The
// caller's input is left as it was.
TEST_P(Verifier, OverwritingTheInputIsAFailure) {
    const std::vector<int> input = fixedInput();
    for (const auto &[overwrite, call] : {std::pair{Flaw::OverwritesInput, "call 1 of 3"},
                                          std::pair{Flaw::OverwritesInputOnItsLastCall, "call 3 of 3"}}) {
        flaw = overwrite;
        for (Op op : Harness::kAllOps) {
            const Verdict verdict = verdictOf(op, input);
            EXPECT_EQ(verdict.kind, Verdict::Kind::FailValue) << Harness::opName(op);
            EXPECT_EQ(verdict.detail.rfind(std::string(call) + " changed the input: in[0] = -100, was ", 0), 0u)
                << Harness::opName(op) << ": " << verdict.detail;
        }
        EXPECT_EQ(input, fixedInput());
    }
}

// A count one off either way is a count failure, the partition's included, whose output
// is all n elements whatever the count.
TEST_P(Verifier, ACountOffByOneIsACountFailure) {
    const std::vector<int> input = fixedInput();
    const long long kept = TestingHelpers::referenceKeptCount(input, Predicate::nonZero());
    for (Flaw off : {Flaw::CountPlusOne, Flaw::CountMinusOne}) {
        flaw = off;
        const long long reported = off == Flaw::CountPlusOne ? kept + 1 : kept - 1;
        for (Op op : {Op::Compact, Op::Partition}) {
            const Verdict verdict = verdictOf(op, input);
            EXPECT_EQ(verdict.kind, Verdict::Kind::FailCount) << Harness::opName(op);
            EXPECT_EQ(verdict.detail,
                      "expected " + std::to_string(kept) + " elements, got " + std::to_string(reported))
                << Harness::opName(op);
        }
    }
}

// A back end that returns what it computed for an earlier input (a result cached across
// calls): the second run's input differs, and so does its output.
TEST_P(Verifier, TheOutputOfAnEarlierCallIsAValueFailure) {
    flaw = Flaw::Stale;
    for (Op op : Harness::kAllOps) {
        fake.firstOutput.clear();
        EXPECT_TRUE(verdictOf(op, fixedInput(1000, 0)).passed()) << Harness::opName(op);
        const Verdict verdict = verdictOf(op, fixedInput(1000, 5));
        EXPECT_FALSE(verdict.passed()) << Harness::opName(op);
        EXPECT_FALSE(verdict.detail.empty()) << Harness::opName(op);
    }
}

INSTANTIATE_TEST_SUITE_P(Fakes, Verifier, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool> &info) { return info.param ? "gpu" : "cpu"; });

// verify() alone, on runs made by hand: the order in which it reports.
TEST(Verify, AChangedInputIsReportedBeforeACountAndACountBeforeAStrayWrite) {
    const std::vector<int> input = {3, 0, 4};
    const Harness::Expected want = Harness::expected(Op::Compact, input, Predicate::nonZero());
    Harness::Run run;
    run.output = want.output;
    run.kept = want.kept;
    EXPECT_TRUE(Harness::verify(Op::Compact, run, want).passed());
    run.outsideWrite = "a[2] = 1 was written past the 2 elements the call returned";
    EXPECT_EQ(Harness::verify(Op::Compact, run, want).detail, run.outsideWrite);
    run.kept = 3;
    EXPECT_EQ(Harness::verify(Op::Compact, run, want).kind, Verdict::Kind::FailCount);
    run.inputChange = "call 1 of 1 changed the input: in[1] = 9, was 0";
    const Verdict verdict = Harness::verify(Op::Compact, run, want);
    EXPECT_EQ(verdict.kind, Verdict::Kind::FailValue);
    EXPECT_EQ(verdict.detail, run.inputChange);
}

}  // namespace
