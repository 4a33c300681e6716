// The default job, the course's test sequence (src/commands/course_run.h), end to end at a small
// size: the sections, the tests each back end runs, their verdicts and the exit status.

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/errors.h>

#include "cli_test_support.h"
#include "commands/course_run.h"
#include "reference.hpp"
#include "measure/runner.h"
#include "test_support.h"
#include "testing_helpers.hpp"

namespace {

using Lines = std::vector<std::string>;

// Parses `args` (which must be accepted), with a fresh --seed (also put in `usedSeed`),
// runs the course sequence with stdout captured and returns its exit status; `lines` gets
// what it printed.
int runCourseCapturing(std::vector<const char *> args, Lines &lines, std::uint64_t *usedSeed = nullptr) {
    const std::uint64_t fresh = TestSupport::freshSeed();
    if (usedSeed) *usedSeed = fresh;
    const std::string seed = std::to_string(fresh);
    args.push_back("--seed");
    args.push_back(seed.c_str());
    Harness::Options options;
    std::string errors;
    const int parsed = TestSupport::parseArgs(args, options, errors);
    if (parsed != -1) {
        ADD_FAILURE() << "arguments refused: " << errors;
        return parsed;
    }
    testing::internal::CaptureStdout();
    const int status = Harness::runCourseSequence(options);
    std::istringstream out(testing::internal::GetCapturedStdout());
    lines.clear();
    for (std::string line; std::getline(out, line);) lines.push_back(line);
    return status;
}

// The lines that start with `prefix`, in order.
Lines linesStartingWith(const Lines &lines, const std::string &prefix) {
    Lines found;
    std::copy_if(lines.begin(), lines.end(), std::back_inserter(found),
                 [&prefix](const std::string &line) { return line.rfind(prefix, 0) == 0; });
    return found;
}

long long countOf(const Lines &lines, const std::string &line) { return std::count(lines.begin(), lines.end(), line); }

// Every test the CPU back end runs, in order: a power-of-two and a non-power-of-two
// input per op, and compaction both without and with a scan.
Lines cpuTests() {
    Lines tests;
    for (const char *test : {"cpu scan", "cpu compact without scan", "cpu compact with scan", "cpu partition",
                             "cpu sort"}) {
        tests.push_back(std::string("==== ") + test + ", power-of-two ====");
        tests.push_back(std::string("==== ") + test + ", non-power-of-two ====");
    }
    return tests;
}

const Lines kBanners = {"** SCAN TESTS **", "** STREAM COMPACTION TESTS **", "** PARTITION TESTS **",
                        "** RADIX SORT TESTS **"};

// The CPU back end alone: every section, its ten tests in the course's order, each passed.
TEST(CourseRun, CpuOnlyRunsAndPassesEveryCpuTest) {
    Lines lines;
    const int status = runCourseCapturing({"--size", "2^8", "--backends", "cpu", "--reps", "1"}, lines);
    const std::string all = testing::PrintToString(lines);
    EXPECT_EQ(status, 0) << all;
    ASSERT_FALSE(lines.empty());
    EXPECT_NE(lines.front().find("SIZE 2^8 = 256, NPOT 253"), std::string::npos) << lines.front();
    EXPECT_EQ(linesStartingWith(lines, "** "), kBanners) << all;
    EXPECT_EQ(linesStartingWith(lines, "===="), cpuTests()) << all;
    EXPECT_EQ(countOf(lines, "    passed"), 10) << all;
    EXPECT_EQ(linesStartingWith(lines, "    FAIL"), Lines{}) << all;
    EXPECT_EQ(lines.back(), "10 passed, 0 failed, 0 skipped") << all;  // the summary, last
}

// The line after `title` and its elapsed-time line: the CPU's printed output.
std::string printedAfter(const Lines &lines, const std::string &title) {
    const auto at = std::find(lines.begin(), lines.end(), title);
    if (at == lines.end() || lines.end() - at < 3) return "<no " + title + ">";
    return *(at + 2);
}

std::string printed(const std::vector<int> &values) {
    return "    " + TestingHelpers::formatArray(static_cast<long long>(values.size()), values.data(), true);
}

// The CPU's printed inputs and outputs are those of the data the run made: the seeded
// random inputs of SIZE elements and their first NPOT = SIZE - 3, each output recomputed
// here with the independent references (the abridged print shows the last two elements,
// so a wrong NPOT shows).
TEST(CourseRun, CpuOutputsAreThoseOfSizeAndSizeMinus3) {
    Lines lines;
    std::uint64_t seed = 0;
    const int status = runCourseCapturing({"--size", "2^8", "--backends", "cpu", "--reps", "1"}, lines, &seed);
    const std::string all = testing::PrintToString(lines);
    ASSERT_EQ(status, 0) << all;
    using Harness::Op;
    TestingHelpers::setSeed(seed);
    const std::vector<int> scanInput = Harness::randomInput(Op::Scan, 256);
    const std::vector<int> flags = Harness::randomInput(Op::Compact, 256);
    const std::vector<int> sortInput = Harness::randomInput(Op::Sort, 256);
    const auto npot = [](const std::vector<int> &values) { return std::vector<int>(values.begin(), values.end() - 3); };
    const auto nonZero = StreamCompaction::Predicate::nonZero();
    struct Expectation {
        std::string title;
        std::vector<int> output;
    };
    const std::vector<Expectation> expectations = {
        {"cpu scan, power-of-two", TestingHelpers::referenceScan(scanInput)},
        {"cpu scan, non-power-of-two", TestingHelpers::referenceScan(npot(scanInput))},
        {"cpu compact without scan, power-of-two", TestingHelpers::referenceCompact(flags, nonZero)},
        {"cpu compact without scan, non-power-of-two", TestingHelpers::referenceCompact(npot(flags), nonZero)},
        {"cpu compact with scan, power-of-two", TestingHelpers::referenceCompact(flags, nonZero)},
        {"cpu compact with scan, non-power-of-two", TestingHelpers::referenceCompact(npot(flags), nonZero)},
        {"cpu partition, power-of-two", TestingHelpers::referencePartition(flags, nonZero)},
        {"cpu partition, non-power-of-two", TestingHelpers::referencePartition(npot(flags), nonZero)},
        {"cpu sort, power-of-two", TestingHelpers::referenceSort(sortInput)},
        {"cpu sort, non-power-of-two", TestingHelpers::referenceSort(npot(sortInput))},
    };
    for (const Expectation &e : expectations) {
        EXPECT_EQ(printedAfter(lines, "==== " + e.title + " ===="), printed(e.output)) << e.title << ", seed " << seed;
    }
    // The inputs, after each banner.
    for (const auto &[banner, input] : {std::pair<std::string, const std::vector<int> *>{"** SCAN TESTS **", &scanInput},
                                        {"** STREAM COMPACTION TESTS **", &flags},
                                        {"** PARTITION TESTS **", &flags},
                                        {"** RADIX SORT TESTS **", &sortInput}}) {
        const auto at = std::find(lines.begin(), lines.end(), banner);
        ASSERT_NE(at, lines.end()) << banner;
        ASSERT_LT(at + 2, lines.end());
        EXPECT_EQ(*(at + 2), printed(*input)) << banner;
    }
}

// A GPU back end without a device: its tests say so and are not failures.
TEST(CourseRun, GpuTestsWithoutADeviceAreSkippedNotFailed) {
    if (StreamCompaction::Common::deviceAvailable()) GTEST_SKIP() << "a CUDA device is present";
    Lines lines;
    const int status = runCourseCapturing({"--size", "2^8", "--backends", "cpu,naive", "--reps", "1"}, lines);
    const std::string all = testing::PrintToString(lines);
    EXPECT_EQ(status, 0) << all;
    EXPECT_EQ(countOf(lines, "    passed"), 10) << all;
    EXPECT_EQ(countOf(lines, "    skipped: no CUDA device"), 2) << all;
    EXPECT_EQ(lines.back(), "10 passed, 0 failed, 2 skipped") << all;
    // Each skip follows a naive test's title.
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (lines[i] == "    skipped: no CUDA device") {
            EXPECT_EQ(lines[i - 1].rfind("==== naive scan, ", 0), 0u) << lines[i - 1];
        }
    }
    EXPECT_EQ(linesStartingWith(lines, "** "), kBanners) << all;
}

// GPU back ends alone without a device: nothing could run, exit status 3.
TEST(CourseRun, NothingRunWithoutADeviceExitsThree) {
    if (StreamCompaction::Common::deviceAvailable()) GTEST_SKIP() << "a CUDA device is present";
    Lines lines;
    const int status = runCourseCapturing({"--size", "2^8", "--backends", "naive", "--reps", "1"}, lines);
    const std::string all = testing::PrintToString(lines);
    EXPECT_EQ(status, Harness::kExitNothingRan) << all;
    EXPECT_EQ(lines.back(), "0 passed, 0 failed, 2 skipped") << all;
}

// The same run on a device: naive's two scans run and pass as well.
TEST(CourseRun, GpuTestsOnADevicePass) {
    SKIP_WITHOUT_GPU();
    Lines lines;
    const int status = runCourseCapturing({"--size", "2^8", "--backends", "cpu,naive", "--reps", "1"}, lines);
    const std::string all = testing::PrintToString(lines);
    EXPECT_EQ(status, 0) << all;
    EXPECT_EQ(countOf(lines, "    passed"), 12) << all;
    EXPECT_EQ(linesStartingWith(lines, "    skipped"), Lines{}) << all;
    EXPECT_EQ(lines.back(), "12 passed, 0 failed, 0 skipped") << all;
    EXPECT_EQ(countOf(lines, "==== naive scan, non-power-of-two ===="), 1) << all;
}

}  // namespace
