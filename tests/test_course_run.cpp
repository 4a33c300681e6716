// The default job, the course's test sequence (src/course_run.h), end to end at a small
// size: the sections, the tests each back end runs, their verdicts and the exit status.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/errors.h>

#include "cli_test_support.h"
#include "course_run.h"
#include "test_support.h"

namespace {

using Lines = std::vector<std::string>;

// Parses `args` (which must be accepted), with a fresh --seed, runs the course sequence
// with stdout captured and returns its exit status; `lines` gets what it printed.
int runCourseCapturing(std::vector<const char *> args, Lines &lines) {
    const std::string seed = std::to_string(TestSupport::freshSeed());
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
    // Each skip follows a naive test's title.
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (lines[i] == "    skipped: no CUDA device") {
            EXPECT_EQ(lines[i - 1].rfind("==== naive scan, ", 0), 0u) << lines[i - 1];
        }
    }
    EXPECT_EQ(linesStartingWith(lines, "** "), kBanners) << all;
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
    EXPECT_EQ(countOf(lines, "==== naive scan, non-power-of-two ===="), 1) << all;
}

}  // namespace
