// The hints a student gets for a wrong result (measure/hints.h), and verify() under the
// course's rules, on runs made by hand from fresh random inputs: the base code's untouched
// output, an inclusive scan, a count one off, elements never written, failures only at
// sizes that are not a power of two, a write past the count, an out[0] left unwritten.

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "measure/hints.h"
#include "measure/runner.h"
#include "test_support.h"
#include "testing_helpers.hpp"

namespace {

using Harness::Op;
using Harness::Rules;
using Harness::Verdict;
using StreamCompaction::Predicate;

const char *kStub = "wrote nothing: odata still holds the fill 0xCDCDCDCD (-842150451); is this still the course's stub?";

int poison() {
    int value;
    std::memset(&value, Harness::kPoisonByte, sizeof value);
    return value;
}

// A fresh input of n elements and what the op should make of it.
struct Case {
    std::vector<int> input;
    Harness::Expected want;
};

Case freshCase(Op op, long long n) {
    Case c;
    c.input = Harness::randomInput(op, n);
    c.want = Harness::expected(op, c.input, Predicate::nonZero());
    return c;
}

// A run whose output and count are the expected ones.
Harness::Run rightRun(const Case &c) {
    Harness::Run run;
    run.output = c.want.output;
    run.kept = c.want.kept;
    return run;
}

TEST(Hints, AnUntouchedOutputIsTheCoursesStub) {
    const Case scan = freshCase(Op::Scan, 1000);
    Harness::Run run;
    run.output.assign(1000, poison());
    run.untouched = true;
    Verdict verdict = Harness::verify(Op::Scan, run, scan.want);
    EXPECT_EQ(verdict.detail, "a[0] = -842150451, expected 0");
    EXPECT_EQ(verdict.hint, kStub);
    // The course's rules do not pass an output the function never wrote, even where every
    // expected value is 0.
    const Case zeros{std::vector<int>(10, 0), Harness::expected(Op::Scan, std::vector<int>(10, 0), Predicate::nonZero())};
    run.output.assign(10, poison());
    EXPECT_FALSE(Harness::verify(Op::Scan, run, zeros.want, Rules::Course).passed());

    const Case compact = freshCase(Op::Compact, 1000);
    Harness::Run stub;
    stub.kept = -1;
    stub.untouched = true;
    verdict = Harness::verify(Op::Compact, stub, compact.want);
    EXPECT_EQ(verdict.kind, Verdict::Kind::FailCount);
    EXPECT_EQ(verdict.hint, "wrote nothing and returned -1: odata still holds the fill 0xCDCDCDCD (-842150451); is "
                            "this still the course's stub?");
}

TEST(Hints, AnInclusiveScanIsNamed) {
    const Case c = freshCase(Op::Scan, 513);
    Harness::Run run = rightRun(c);
    for (std::size_t i = 0; i < run.output.size(); ++i) run.output[i] += c.input[i];
    const Verdict verdict = Harness::verify(Op::Scan, run, c.want);
    EXPECT_EQ(verdict.hint, "looks like an inclusive scan; the course's scan is exclusive (out[0] = 0)");
    // One element off elsewhere is not an inclusive scan.
    run = rightRun(c);
    run.output[7] += 1;
    EXPECT_EQ(Harness::verify(Op::Scan, run, c.want).hint, "");
}

TEST(Hints, ACountOneOffSaysWhichWay) {
    const Case c = freshCase(Op::Compact, 1000);
    Harness::Run run = rightRun(c);
    const std::string want = std::to_string(c.want.kept);
    run.kept = c.want.kept + 1;
    EXPECT_EQ(Harness::verify(Op::Compact, run, c.want).hint.rfind("the count is one too many (" +
                                                                   std::to_string(c.want.kept + 1) + " for " + want + ")", 0),
              0u);
    run.kept = c.want.kept - 1;
    EXPECT_EQ(Harness::verify(Op::Compact, run, c.want).hint.rfind("the count is one short (" +
                                                                   std::to_string(c.want.kept - 1) + " for " + want + ")", 0),
              0u);
    run.kept = -1;
    EXPECT_EQ(Harness::verify(Op::Compact, run, c.want).hint,
              "the count is -1, the course stub's return value: return the number of elements kept");
    run.kept = c.want.kept + 5;
    EXPECT_EQ(Harness::verify(Op::Compact, run, c.want).hint, "");
    // Nothing written is right for a compaction that keeps nothing: the count's hint.
    const Case none{std::vector<int>(8, 0), Harness::expected(Op::Compact, std::vector<int>(8, 0), Predicate::nonZero())};
    Harness::Run one;
    one.kept = 1;
    one.untouched = true;
    EXPECT_EQ(Harness::verify(Op::Compact, one, none.want).hint.rfind("the count is one too many (1 for 0)", 0), 0u);
}

TEST(Hints, ElementsNeverWrittenAreNamed) {
    const Case c = freshCase(Op::Scan, 1000);
    Harness::Run run = rightRun(c);
    std::fill(run.output.begin() + 512, run.output.end(), poison());
    EXPECT_EQ(Harness::verify(Op::Scan, run, c.want).hint,
              "a[512] was never written: it still holds the fill 0xCDCDCDCD (-842150451), as does every element after it");
    run = rightRun(c);
    run.output[600] = poison();
    EXPECT_EQ(Harness::verify(Op::Scan, run, c.want).hint,
              "a[600] was never written: it still holds the fill 0xCDCDCDCD (-842150451)");
}

TEST(Hints, FailuresOnlyAtSizesThatAreNotAPowerOfTwo) {
    using Harness::sizeHint;
    EXPECT_EQ(sizeHint({{1 << 20, true}, {(1 << 20) - 3, false}}),
              "fails only at SIZE - 3: check the padding to the next power of two");
    EXPECT_EQ(sizeHint({{1 << 20, false}, {(1 << 20) - 3, false}}), "");
    EXPECT_EQ(sizeHint({{1 << 20, true}, {(1 << 20) - 3, true}}), "");
    EXPECT_EQ(sizeHint({{1000, false}}), "");  // no power of two passed
    EXPECT_EQ(sizeHint({{1, true}, {2, true}, {3, false}, {32, true}, {33, false}, {1000, true}}),
              "fails only at sizes that are not a power of two (n = 3, 33): check the padding to the next power of two");
    EXPECT_EQ(sizeHint({{1, true}, {3, false}, {5, false}, {6, false}, {7, false}, {9, false}}),
              "fails only at sizes that are not a power of two (n = 3, 5, 6, 7, ...): check the padding to the next "
              "power of two");
}

// --explain on a submission whose timer brackets allocations and copies: a hint that
// names them and says what to move out of the timer; none for any other verdict.
TEST(Hints, ATimerThatBracketsAllocationsAndCopies) {
    Harness::Explanation inside;
    inside.bound = Harness::Bound::InsideTimer;
    inside.verdict = "most of the time in 3 cudaMalloc, 2 cudaMemcpy and 3 cudaFree inside the timer (85% of the call)";
    EXPECT_EQ(Harness::timerHint(inside),
              "your timer brackets 3 cudaMalloc, 2 cudaMemcpy and 3 cudaFree (85% of the call): start it after the "
              "copies in, stop it before the copy out, and allocate outside it, so that it times the algorithm");
    Harness::Explanation launch;
    launch.bound = Harness::Bound::LaunchBound;
    launch.verdict = "launch-bound: 21 kernels, 78% of the call between them";
    EXPECT_EQ(Harness::timerHint(launch), "");
}

// What the course's main.cpp passes: a compaction's elements past its count, and an
// element left unwritten where the output's zeroing gives the right value.
TEST(CourseRules, AWritePastTheCountIsANote) {
    const Case c = freshCase(Op::Compact, 1000);
    Harness::Run run = rightRun(c);
    run.writtenPastCountAt = c.want.kept;
    run.writtenPastCount = "a[" + std::to_string(c.want.kept) + "] = 0 was written past the " +
                           std::to_string(c.want.kept) + " elements the call returned";
    Verdict verdict = Harness::verify(Op::Compact, run, c.want);
    EXPECT_EQ(verdict.kind, Verdict::Kind::FailValue);
    EXPECT_EQ(verdict.index, c.want.kept);
    EXPECT_EQ(verdict.detail, run.writtenPastCount);
    verdict = Harness::verify(Op::Compact, run, c.want, Rules::Course);
    EXPECT_TRUE(verdict.passed());
    EXPECT_EQ(verdict.note, run.writtenPastCount + "; the course's main.cpp compares only the elements returned");
    // A write past the whole output fails by either rule.
    run.outsideWrite = "wrote a[1000] = 7, past the end of the output (1000 elements)";
    EXPECT_FALSE(Harness::verify(Op::Compact, run, c.want, Rules::Course).passed());
}

TEST(CourseRules, AnUnwrittenZeroIsANote) {
    const Case c = freshCase(Op::Scan, 1000);
    Harness::Run run = rightRun(c);
    run.output[0] = poison();
    Verdict verdict = Harness::verify(Op::Scan, run, c.want);
    EXPECT_EQ(verdict.index, 0);
    EXPECT_EQ(verdict.detail, "a[0] = -842150451, expected 0");
    verdict = Harness::verify(Op::Scan, run, c.want, Rules::Course);
    EXPECT_TRUE(verdict.passed());
    EXPECT_EQ(verdict.note.rfind("1 element left unwritten where 0 belongs (a[0]); the course's main.cpp zeroes", 0), 0u);
    // An unwritten element whose value is not 0 fails by either rule.
    run.output[1] = poison();
    verdict = Harness::verify(Op::Scan, run, c.want, Rules::Course);
    EXPECT_EQ(verdict.index, 0);
    EXPECT_FALSE(verdict.passed());
}

TEST(CourseRules, OneElementIsSingular) {
    const std::vector<int> input = {0, 0, 7, 0};
    const Harness::Expected want = Harness::expected(Op::Compact, input, Predicate::nonZero());
    Harness::Run run;
    run.output = {7, 7};
    run.kept = 2;
    EXPECT_EQ(Harness::verify(Op::Compact, run, want).detail, "expected 1 element, got 2");
}

// The course run's inputs: the compaction's is the draw after the scan's, from one seed.
TEST(CourseInputs, DrawnInTheCoursesOrderFromOneSeed) {
    TestingHelpers::setSeed(565);
    const std::vector<int> scan = Harness::randomInput(Op::Scan, 4096);
    const std::vector<int> compact = Harness::randomInput(Op::Compact, 4096);
    std::vector<Op> seen;
    Harness::forEachCourseInput(4096, 565, [&](Op op, const std::vector<int> &input) {
        if (op == Op::Scan) {
            EXPECT_EQ(input, scan);
        } else {
            EXPECT_EQ(input, compact);
        }
        seen.push_back(op);
        return op != Op::Partition;
    });
    EXPECT_EQ(seen, (std::vector<Op>{Op::Scan, Op::Compact, Op::Partition}));
}

}  // namespace
