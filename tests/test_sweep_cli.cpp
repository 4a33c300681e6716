// The sweep's command line (size lists and ranges, block sizes, ops, predicates, report
// flags, every bad input), its memory check, and a CPU-only sweep end to end.

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>

#include "cli/cli.h"
#include "cli_test_support.h"
#include "platform/platform.h"
#include "sweep/processes.h"
#include "measure/runner.h"
#include "sweep/sweep.h"
#include "test_support.h"
#include "testing_helpers.hpp"

namespace {

using Harness::Op;
using Harness::Options;
using Harness::parseBlockSizeList;
using Harness::parseSizeList;
using StreamCompaction::Predicate;
using TestSupport::expectRejected;
using TestSupport::parseArgs;
using TestSupport::rejection;

using Sizes = std::vector<long long>;

TEST(SizeList, ListsTakeEverySpelling) {
    EXPECT_EQ(parseSizeList("1000,4096,1M,2^20"), (Sizes{1000, 4096, 1 << 20, 1 << 20}));
    EXPECT_EQ(parseSizeList("7"), (Sizes{7}));
}

TEST(SizeList, RangesDoubleOrStepTheExponent) {
    EXPECT_EQ(parseSizeList("2^16:2^20"), (Sizes{1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20}));
    EXPECT_EQ(parseSizeList("2^16:2^28:2"), (Sizes{1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28}));
    EXPECT_EQ(parseSizeList("2^4:2^9:2"), (Sizes{16, 64, 256}));  // stops before passing STOP
    EXPECT_EQ(parseSizeList("1K:4K"), (Sizes{1024, 2048, 4096}));
    EXPECT_EQ(parseSizeList("2^10:2^10"), (Sizes{1024}));
    EXPECT_EQ(parseSizeList("2^0:2^30:100"), (Sizes{1}));
    EXPECT_EQ(parseSizeList("2^30:2^30"), (Sizes{1 << 30}));
}

TEST(SizeList, SizesPast2To31Minus1UpTo2To33) {
    EXPECT_EQ(parseSizeList("2^30:2^33"), (Sizes{1LL << 30, 1LL << 31, 1LL << 32, 1LL << 33}));
    EXPECT_EQ(parseSizeList("2147483648,4294967299,8G"), (Sizes{1LL << 31, (1LL << 32) + 3, 1LL << 33}));
}

TEST(SizeList, ListsAndRangesMix) {
    EXPECT_EQ(parseSizeList("1000,2^10:2^12,3"), (Sizes{1000, 1024, 2048, 4096, 3}));
}

TEST(SizeList, RejectsWhatIsNotAListOrRange) {
    expectRejected(parseSizeList, {"", ",", "1,,2", "0", "-1", "2^34", "8589934593", "99999999999999999999",
                                   "2^20:2^10", "1000:2^20", "2^10:3000", "2^10:2^20:0", "2^10:2^20:-1",
                                   "2^10:2^20:x", "2^10:2^20:2:1", "2^10:", ":2^10", "2^10:2^40", "1.5M",
                                   "2^10 :2^12"});
}

TEST(SizeList, MessageNamesTheItemAndTheSyntax) {
    const std::string message = rejection(parseSizeList, "2^10,2^20:2^16");
    EXPECT_NE(message.find("'2^20:2^16' starts above its stop"), std::string::npos) << message;
    EXPECT_NE(message.find("START:STOP[:STEP]"), std::string::npos) << message;
}

TEST(BlockSizeList, ListsAndRanges) {
    EXPECT_EQ(parseBlockSizeList("128,256,512,1024"), (std::vector<int>{128, 256, 512, 1024}));
    EXPECT_EQ(parseBlockSizeList("2^7:2^10"), (std::vector<int>{128, 256, 512, 1024}));
    EXPECT_EQ(parseBlockSizeList("96,32"), (std::vector<int>{96, 32}));
}

TEST(BlockSizeList, RejectsBadBlockSizes) {
    expectRejected(parseBlockSizeList, {"", "0", "16", "100", "2048", "2^4:2^11", "abc", "128,", "2^11", "1M"});
}

TEST(ParseOp, NamesEveryOp) {
    for (const auto &[name, op] : std::vector<std::pair<std::string, Op>>{
             {"scan", Op::Scan},
             {"compact", Op::Compact},
             {"partition", Op::Partition},
             {"sort", Op::Sort},
             {"sort-pairs", Op::SortPairs},
             {"sort-unsigned", Op::SortUnsigned}}) {
        EXPECT_EQ(Harness::parseOp(name), op) << name;
    }
    expectRejected(Harness::parseOp, {"Scan", "", "sort_unsigned", "sort-unsigned,"});
}

TEST(ParsePredicate, ReadsWhatNameWrites) {
    // mod:-1 keeps every int (INT_MIN included), mod:-3 what mod:3 keeps.
    for (const Predicate keep : {Predicate::nonZero(), Predicate::multipleOf(3), Predicate::multipleOf(-1),
                                 Predicate::multipleOf(-3), Predicate::greaterThan(10), Predicate::greaterThan(-5),
                                 Predicate::greaterThan(0)}) {
        const Predicate parsed = Harness::parsePredicate(keep.name());
        EXPECT_EQ(parsed.kind, keep.kind) << keep.name();
        EXPECT_EQ(parsed.operand, keep.operand) << keep.name();
    }
}

TEST(ParsePredicate, RejectsBadPredicates) {
    expectRejected(Harness::parsePredicate, {"", "zero", "nonzero:1", "mod", "mod:", "mod:0", "mod:-0", "mod:x", "gt",
                                             "gt:", "gt:x", "gt:1.5", "lt:3", "gt:-", "mod:99999999999"});
}

TEST(SweepCommandLine, CourseFlagsAloneRunTheCourseSequence) {
    Options options;
    std::string errors;
    ASSERT_EQ(parseArgs({"--size", "2^12", "--block-size", "256", "--backends", "cpu", "--reps", "2", "--warmup", "0",
                         "--seed", "9", "--quiet"},
                        options, errors),
              -1)
        << errors;
    EXPECT_FALSE(options.sweep);
    EXPECT_EQ(options.warmup, 0);
}

TEST(SweepCommandLine, EverySweepOrReportFlagAsksForASweep) {
    const std::vector<std::vector<const char *>> lines = {
        {"--sizes", "2^10"}, {"--block-sizes", "256"}, {"--ops", "scan"},    {"--keep", "gt:1"},
        {"--npot"},          {"--no-npot"},            {"--format", "csv"}, {"--output", "x.csv"},
        {"--rounds", "2"},   {"--processes", "2"},
    };
    for (const auto &line : lines) {
        Options options;
        std::string errors;
        ASSERT_EQ(parseArgs(line, options, errors), -1) << line.front() << ": " << errors;
        EXPECT_TRUE(options.sweep) << line.front();
    }
}

TEST(SweepCommandLine, ReadsEveryFlag) {
    Options options;
    std::string errors;
    ASSERT_EQ(parseArgs({"--sizes", "1000,2^10:2^12", "--block-sizes", "2^7:2^8", "--ops", "sort,scan", "--keep",
                         "mod:3", "--no-npot", "--format", "markdown", "--output", "a.csv", "--output", "b.json",
                         "--quiet", "--backends", "cpu", "--rounds", "3", "--processes", "4"},
                        options, errors),
              -1)
        << errors;
    EXPECT_TRUE(options.sweep);
    EXPECT_EQ(options.sizes, (Sizes{1000, 1024, 2048, 4096}));
    EXPECT_EQ(options.blockSizes, (std::vector<int>{128, 256}));
    EXPECT_EQ(options.ops, (std::vector<Op>{Op::Sort, Op::Scan}));
    EXPECT_EQ(options.keep.name(), "mod:3");
    EXPECT_FALSE(options.npot);
    EXPECT_EQ(options.format, Harness::Format::Markdown);
    EXPECT_EQ(options.outputs, (std::vector<std::string>{"a.csv", "b.json"}));
    EXPECT_TRUE(options.quiet);
    EXPECT_EQ(options.rounds, 3);
    EXPECT_EQ(options.processes, 4);
    // Every argument after the program's name, as typed, for the child processes' command line.
    EXPECT_EQ(options.arguments.front(), "--sizes");
    EXPECT_EQ(options.arguments.back(), "4");
}

TEST(SweepCommandLine, DefaultsFollowTheCourseFlags) {
    Options options;
    std::string errors;
    ASSERT_EQ(parseArgs({"--format", "csv", "--size", "2^12", "--block-size", "256"}, options, errors), -1) << errors;
    EXPECT_EQ(options.sizes, (Sizes{4096}));
    EXPECT_EQ(options.blockSizes, (std::vector<int>{256}));
    EXPECT_EQ(options.ops, (std::vector<Op>{Op::Scan, Op::Compact, Op::Partition, Op::Sort}));
    EXPECT_TRUE(options.npot);
    EXPECT_EQ(options.keep.name(), "nonzero");
    EXPECT_EQ(options.format, Harness::Format::Csv);
}

TEST(SweepCommandLine, RecordsTheCommandLineAsTyped) {
    Options options;
    std::string errors;
    ASSERT_EQ(parseArgs({"--sizes", "2^10:2^12", "--output", "my results.csv"}, options, errors), -1) << errors;
    EXPECT_EQ(options.commandLine, "cis565_stream_compaction --sizes 2^10:2^12 --output 'my results.csv'");
}

struct BadLine {
    std::vector<const char *> args;
    const char *mustName;  // the flag the one-line error names
};

TEST(SweepCommandLine, BadInputGetsOneLineAndStatus2) {
    const BadLine cases[] = {
        {{"--sizes", "2^20:2^10"}, "--sizes"},
        {{"--sizes", "0"}, "--sizes"},
        {{"--sizes", "-4"}, "--sizes"},
        {{"--sizes", "2^34"}, "--sizes"},
        {{"--sizes", "17179869184"}, "--sizes"},
        {{"--sizes", "2^30:2^34"}, "--sizes"},
        {{"--sizes", "1000:2^20"}, "--sizes"},
        {{"--sizes", "2^10:2^20:0"}, "--sizes"},
        {{"--sizes", "2^10", "--size", "2^12"}, "--size"},
        {{"--block-sizes", "100"}, "--block-sizes"},
        {{"--block-sizes", "2048"}, "--block-sizes"},
        {{"--block-sizes", "2^4:2^8"}, "--block-sizes"},
        {{"--block-sizes", "128", "--block-size", "256"}, "--block-size"},
        {{"--ops", "scan,reduce"}, "--ops"},
        {{"--ops", "sort", "--backends", "naive"}, "--ops"},
        {{"--backends", "cpu,gpu", "--sizes", "2^10"}, "--backends"},
        {{"--keep", "mod:0"}, "--keep"},
        {{"--keep", "lt:5"}, "--keep"},
        {{"--format", "html"}, "--format"},
        {{"--output", "results.dat"}, "--output"},
        {{"--output", "a.csv", "b.csv"}, "b.csv"},
        {{"--warmup", "-1"}, "--warmup"},
        {{"--reps", "0", "--sizes", "2^10"}, "--reps"},
        {{"--rounds", "0"}, "--rounds"},
        {{"--rounds", "101"}, "--rounds"},
        {{"--rounds", "two"}, "--rounds"},
        {{"--grade", "--rounds", "2"}, "--rounds"},
        {{"--processes", "0"}, "--processes"},
        {{"--processes", "65"}, "--processes"},
        {{"--processes", "two"}, "--processes"},
        {{"--grade", "--processes", "2"}, "--processes"},
    };
    for (const BadLine &bad : cases) {
        Options options;
        std::string errors;
        EXPECT_EQ(parseArgs(bad.args, options, errors), 2) << bad.args.front() << " " << bad.args.back();
        EXPECT_NE(errors.find(bad.mustName), std::string::npos) << errors;
        EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << errors;
    }
}

// The reports' sampling line says what a figure of several rounds or processes is.
TEST(SweepCommandLine, TheSamplingTextSaysHowRoundsAndProcessesMakeAFigure) {
    Options options;
    EXPECT_EQ(Harness::samplingText(options).find("round"), std::string::npos);
    options.rounds = 3;
    EXPECT_NE(Harness::samplingText(options).find(
                  "; 3 rounds, buffers allocated again for each; a figure is the mean of the rounds' medians"),
              std::string::npos)
        << Harness::samplingText(options);
    options.processes = 4;
    options.rounds = 2;
    EXPECT_NE(Harness::samplingText(options).find("; 2 rounds in each of 4 processes, one after another; a figure is "
                                                  "the mean of the 4 processes' medians"),
              std::string::npos)
        << Harness::samplingText(options);
    options.rounds = 1;
    EXPECT_NE(Harness::samplingText(options).find("; one round in each of 4 processes"), std::string::npos)
        << Harness::samplingText(options);
}

TEST(SweepCommandLine, HelpGroupsTheFlags) {
    const std::string help = TestSupport::printedBy({"--help"});
    for (const char *text : {"Sweep", "Reports", "--sizes", "--block-sizes", "--ops", "--keep", "--no-npot", "--format",
                             "--output", "--quiet", "--warmup", "--rounds", "--processes"}) {
        EXPECT_NE(help.find(text), std::string::npos) << text;
    }
    // The flags the program gives its own child processes are not the user's.
    EXPECT_EQ(help.find("--child"), std::string::npos);
}

TEST(MemoryCheck, LargestCellMustFit) {
    constexpr std::size_t GiB = 1ULL << 30;
    EXPECT_EQ(Harness::cellDeviceBytes(1 << 30), 16 * GiB);
    EXPECT_EQ(Harness::memoryShortfall(1 << 30, 20 * GiB), "");
    EXPECT_EQ(Harness::memoryShortfall(1 << 30, 16 * GiB), "");
    EXPECT_EQ(Harness::memoryShortfall(1 << 30, 8 * GiB),
              "--sizes: 2^30 needs 16.0 GiB of GPU memory (input, output and workspace), 8.0 GiB free");
    // Sort-pairs' values double every array.
    EXPECT_EQ(Harness::cellDeviceBytes(1 << 30, true), 32 * GiB);
    EXPECT_EQ(Harness::memoryShortfall(1 << 30, 20 * GiB, true),
              "--sizes: 2^30 needs 32.0 GiB of GPU memory (input, output and workspace), 20.0 GiB free");
}

TEST(MemoryCheck, PastTwoTo31Minus1ScanSumsAreInt64) {
    constexpr std::size_t GiB = 1ULL << 30;
    EXPECT_EQ(Harness::cellDeviceBytes(2147483647), 16 * std::size_t{2147483647});
    EXPECT_EQ(Harness::cellDeviceBytes(1LL << 31), 40 * GiB);  // 4n in, 8n out, 8n workspace
    EXPECT_EQ(Harness::cellDeviceBytes(1LL << 32), 80 * GiB);
    EXPECT_EQ(Harness::memoryShortfall(1LL << 32, 80 * GiB), "");
    EXPECT_EQ(Harness::memoryShortfall(1LL << 33, 139 * GiB),
              "--sizes: 2^33 needs 160.0 GiB of GPU memory (input, output and workspace), 139.0 GiB free");
}

TEST(Traffic, BytesPerOp) {
    EXPECT_EQ(Harness::trafficBytes(Op::Scan, 1000, 0), 8000);
    EXPECT_EQ(Harness::trafficBytes(Op::Compact, 1000, 250), 5000);
    EXPECT_EQ(Harness::trafficBytes(Op::Partition, 1000, 250), 8000);
    EXPECT_EQ(Harness::trafficBytes(Op::Sort, 1000, 0), 8000);
    EXPECT_EQ(Harness::trafficBytes(Op::SortUnsigned, 1000, 0), 8000);
    EXPECT_EQ(Harness::trafficBytes(Op::SortPairs, 1000, 0), 16000);
    EXPECT_EQ(Harness::trafficBytes(Op::Scan, 1LL << 30, 0), 8.0 * (1LL << 30));
    EXPECT_EQ(Harness::trafficBytes(Op::Scan, 2147483647, 0), 8.0 * 2147483647);
    // Past 2^31 - 1 a scan reads 4n and writes 8n (int64 sums); the other ops are as before.
    EXPECT_EQ(Harness::trafficBytes(Op::Scan, 1LL << 32, 0), 12.0 * (1LL << 32));
    EXPECT_EQ(Harness::trafficBytes(Op::Compact, 1LL << 32, 1LL << 31), 4.0 * ((1LL << 32) + (1LL << 31)));
    EXPECT_EQ(Harness::trafficBytes(Op::Sort, 1LL << 32, 0), 8.0 * (1LL << 32));
}

// Splits a CSV line with no quoted fields (a sweep's rows have none unless a note does).
// Parses `args` (which must be accepted: a refusal fails the test and returns the
// parser's status without running anything), runs the sweep with stdout captured, and
// returns its exit status; `out` gets what it printed.
int runSweepCapturing(std::vector<const char *> args, std::string &out, std::string *err = nullptr) {
    Options options;
    std::string errors;
    const int parsed = parseArgs(std::move(args), options, errors);
    if (parsed != -1) {
        ADD_FAILURE() << "arguments refused: " << errors;
        return parsed;
    }
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int status = Harness::runSweep(options);
    out = testing::internal::GetCapturedStdout();
    const std::string stderrText = testing::internal::GetCapturedStderr();
    if (err) *err = stderrText;
    return status;
}

std::vector<std::string> csvFields(const std::string &line) {
    std::vector<std::string> fields(1);
    for (char c : line) {
        if (c == ',') fields.emplace_back();
        else fields.back() += c;
    }
    return fields;
}

TEST(Sweep, CpuOnlyEndToEnd) {
    const std::string csvPath = testing::TempDir() + "sweep_cpu_only.csv";
    Options options;
    std::string errors;
    ASSERT_EQ(parseArgs({"--sizes", "2^8,1000", "--backends", "cpu,efficient", "--reps", "2", "--output",
                         csvPath.c_str()},
                        options, errors),
              -1)
        << errors;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int status = Harness::runSweep(options);
    const std::string text = testing::internal::GetCapturedStdout();
    // Captured stderr is not a terminal: no progress line even without --quiet, only the
    // summary. (--quiet on a terminal is checked under a pseudo-terminal by run_cli_checks.sh.)
    // Without a GPU, efficient's 6 cells are skipped.
    EXPECT_EQ(testing::internal::GetCapturedStderr(), StreamCompaction::Common::deviceAvailable()
                                                          ? "18 cells verified, 0 failed, 0 skipped\n"
                                                          : "12 cells verified, 0 failed, 6 skipped\n");
    EXPECT_EQ(status, 0) << text;
    EXPECT_TRUE(text.find("scan: median time, µs (10th–90th percentile)") != std::string::npos ||
                text.find("scan: median time, ms (10th–90th percentile)") != std::string::npos)
        << text;

    std::ifstream csv(csvPath);
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(csv, line);) {
        if (header.empty()) header = csvFields(line);
        else rows.push_back(csvFields(line));
    }
    ASSERT_FALSE(header.empty());
    EXPECT_EQ(header.front(), "run_id");  // the header is the first line: no comment lines above it
    const auto column = [&header](const std::string &name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    // cpu: 4 ops x 3 inputs (2^8, its companion 2^8 - 3, 1000); efficient: scan and compact.
    ASSERT_EQ(rows.size(), 4u * 3u + 2u * 3u);
    int cpuRows = 0;
    for (const auto &row : rows) {
        ASSERT_EQ(row.size(), header.size());
        const bool cpu = row[column("backend")] == "cpu";
        cpuRows += cpu;
        const std::string verified = row[column("verified")];
        if (cpu || StreamCompaction::Common::deviceAvailable()) {
            EXPECT_EQ(verified, "passed") << row[column("note")];
            const double minMs = std::stod(row[column("min_ms")]), medianMs = std::stod(row[column("median_ms")]);
            EXPECT_LE(minMs, medianMs);
            EXPECT_LE(medianMs, std::stod(row[column("max_ms")]));
            EXPECT_EQ(row[column("samples")], "2");
        } else {
            EXPECT_EQ(verified, "skipped");
            EXPECT_EQ(row[column("note")], "no CUDA device");
        }
        EXPECT_EQ(row[column("block_size")], cpu ? "" : "128");
        const std::string size = row[column("size")];
        EXPECT_TRUE(size == "256" || size == "253" || size == "1000") << size;
        EXPECT_EQ(row[column("npot")], size == "253" ? "true" : "false");
    }
    EXPECT_EQ(cpuRows, 12);
    std::remove(csvPath.c_str());

    // The context sits beside the CSV, as JSON.
    const std::string contextPath = testing::TempDir() + "sweep_cpu_only.context.json";
    std::ifstream contextFile(contextPath);
    std::stringstream context;
    context << contextFile.rdbuf();
    EXPECT_EQ(context.str().rfind("{", 0), 0u) << context.str();
    EXPECT_NE(context.str().find("\"git_revision\": "), std::string::npos) << context.str();
    EXPECT_NE(context.str().find("\"mode\": \"cold\""), std::string::npos) << context.str();
    EXPECT_NE(context.str().find("\"host_cpus\": \"" + Harness::cpuListText(Harness::allowedCpus()) + "\""),
              std::string::npos)
        << context.str();
    std::remove(contextPath.c_str());
}

// A CSV report (stdout of --format csv): its header, the first line, and its rows.
struct CsvReport {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    explicit CsvReport(const std::string &text) {
        for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
            end = text.find('\n', start);
            const std::string line = text.substr(start, end - start);
            if (line.empty()) continue;
            if (header.empty()) header = csvFields(line);
            else rows.push_back(csvFields(line));
        }
    }
    // The named field of a row; fails the test when there is no such column.
    std::string field(const std::vector<std::string> &row, const std::string &name) const {
        const auto at = std::find(header.begin(), header.end(), name);
        if (at == header.end() || row.size() != header.size()) {
            ADD_FAILURE() << "no field " << name << " in a row of " << row.size() << " fields";
            return "";
        }
        return row[static_cast<std::size_t>(at - header.begin())];
    }
};

// --keep gt:1: every compaction row reports as kept the count of values above 1 in its
// input, which is the seeded random input the sweep makes for each size (the companion
// SIZE - 3 is its first SIZE - 3 elements), counted here independently.
TEST(Sweep, KeptCountsFollowThePredicate) {
    const std::string seed = std::to_string(TestSupport::freshSeed());
    std::string csv;
    const int status = runSweepCapturing({"--ops", "compact", "--keep", "gt:1", "--backends", "cpu", "--sizes",
                                          "2^10,1000", "--seed", seed.c_str(), "--format", "csv", "--quiet"},
                                         csv);
    EXPECT_EQ(status, 0) << csv;
    const CsvReport report(csv);
    ASSERT_EQ(report.rows.size(), 3u) << csv;  // 2^10, its companion 2^10 - 3, 1000
    for (const auto &row : report.rows) {
        const long long size = std::stoll(report.field(row, "size"));
        const bool npot = report.field(row, "npot") == "true";
        SCOPED_TRACE(testing::Message() << "size " << size << (npot ? " (companion)" : "") << ", seed " << seed);
        TestingHelpers::setSeed(std::stoull(seed));
        std::vector<int> input = Harness::randomInput(Op::Compact, npot ? size + 3 : size);
        input.resize(static_cast<std::size_t>(size));
        const auto aboveOne = std::count_if(input.begin(), input.end(), [](int v) { return v > 1; });
        ASSERT_GT(aboveOne, 0);
        ASSERT_LT(aboveOne, size);
        EXPECT_EQ(report.field(row, "kept"), std::to_string(aboveOne));
        EXPECT_EQ(report.field(row, "verified"), "passed") << report.field(row, "note");
    }
}

// --rounds 3 with --reps 4: each row pools 12 calls, gives the spread of its three rounds'
// medians, which lie between its min and max, and says so in its note; with one round
// the column is empty.
TEST(Sweep, RoundsPoolTheirCallsAndGiveTheirMediansSpread) {
    for (const char *rounds : {"3", "1"}) {
        SCOPED_TRACE(testing::Message() << "--rounds " << rounds);
        std::string csv;
        const int status = runSweepCapturing({"--ops", "scan,sort", "--backends", "cpu", "--sizes", "2^12", "--no-npot",
                                              "--reps", "4", "--rounds", rounds, "--format", "csv", "--quiet"},
                                             csv);
        EXPECT_EQ(status, 0) << csv;
        const CsvReport report(csv);
        ASSERT_EQ(report.rows.size(), 2u) << csv;
        for (const auto &row : report.rows) {
            EXPECT_EQ(report.field(row, "verified"), "passed") << report.field(row, "note");
            const std::string spread = report.field(row, "round_spread_pct");
            if (std::string(rounds) == "1") {
                EXPECT_EQ(report.field(row, "samples"), "4");
                EXPECT_EQ(spread, "");
                EXPECT_EQ(report.field(row, "note").find("rounds"), std::string::npos);
                continue;
            }
            EXPECT_EQ(report.field(row, "samples"), "12");
            ASSERT_FALSE(spread.empty());
            const double minMs = std::stod(report.field(row, "min_ms")), maxMs = std::stod(report.field(row, "max_ms"));
            EXPECT_GE(std::stod(spread), 0);
            EXPECT_LE(std::stod(spread), 100 * (maxMs / minMs - 1) * (1 + 1e-5));
            EXPECT_NE(report.field(row, "note").find("3 rounds: medians "), std::string::npos)
                << report.field(row, "note");
        }
    }
}

// A child's row of a cpu cell: passed, `samples` calls all at `ms`.
Harness::Row childRow(Op op, long long size, bool npot, double ms, int samples) {
    Harness::Row row;
    row.op = op;
    row.backend = "cpu";
    row.size = size;
    row.npot = npot;
    row.timing.samples = samples;
    row.timing.medianMs = row.timing.meanMs = row.timing.minMs = row.timing.maxMs = ms;
    return row;
}

// A sweep in three processes whose two children's reports are given (no child started):
// each row pools the children's figures of its own cell, told apart by size and by the
// SIZE - 3 companion, with its own, every process one replicate; a child's failure fails
// the row and the exit status; a child's clock limit marks it. Each child is asked for
// the ordinary command line with its report going to one JSON file.
TEST(Sweep, ThreeProcessesPoolTheChildrensFiguresOfEachCell) {
    std::vector<Harness::JsonReport> children(2);
    children[0].rows = {childRow(Op::Scan, 256, false, 900, 3), childRow(Op::Scan, 253, true, 600, 5),
                        childRow(Op::Compact, 256, false, 3, 3), childRow(Op::Compact, 253, true, 30, 3)};
    children[0].rows[2].status = Harness::Row::Status::Failed;
    children[0].rows[2].note = "a[17] = 3 where 4 was expected";
    children[1].rows = {childRow(Op::Scan, 256, false, 300, 3), childRow(Op::Scan, 253, true, 300, 3),
                        childRow(Op::Compact, 256, false, 3, 3), childRow(Op::Compact, 253, true, 60, 3)};
    children[1].rows[1].throttled = true;
    std::vector<std::vector<std::string>> started;
    const Harness::ChildRunner runner = [&](int index, const std::vector<std::string> &arguments) {
        started.push_back(arguments);
        return children[static_cast<std::size_t>(index - 1)];
    };
    Harness::setChildRunnerForTesting(&runner);
    std::string csv;
    const int status = runSweepCapturing({"--ops", "scan,compact", "--backends", "cpu", "--sizes", "2^8", "--reps", "3",
                                          "--processes", "3", "--format", "csv", "--quiet"},
                                         csv);
    Harness::setChildRunnerForTesting(nullptr);
    EXPECT_EQ(status, 1) << csv;  // a child failed a cell
    ASSERT_EQ(started.size(), 2u);
    for (const auto &arguments : started) {
        ASSERT_GE(arguments.size(), 3u);
        EXPECT_EQ(arguments[arguments.size() - 3], "--output");
        EXPECT_TRUE(arguments[arguments.size() - 2].ends_with(".json")) << arguments[arguments.size() - 2];
        EXPECT_EQ(arguments.back(), "--quiet");
        for (const char *dropped : {"--processes", "--format", "csv"}) {
            EXPECT_EQ(std::find(arguments.begin(), arguments.end(), dropped), arguments.end()) << dropped;
        }
    }
    const CsvReport report(csv);
    ASSERT_EQ(report.rows.size(), 4u) << csv;
    std::map<std::string, std::map<std::string, std::string>> rows;  // by "op size"
    for (const auto &row : report.rows) {
        auto &fields = rows[report.field(row, "op") + " " + report.field(row, "size")];
        for (const char *name : {"median_ms", "samples", "rounds", "round_spread_pct", "rounds_error_pct", "verified",
                                 "throttled", "note"}) {
            fields[name] = report.field(row, name);
        }
    }
    // The parent's own calls take microseconds: the figure is the mean of three medians.
    const auto median = [&](const std::string &key) { return std::stod(rows[key]["median_ms"]); };
    EXPECT_NEAR(median("scan 256"), (900 + 300) / 3.0, 0.01);
    EXPECT_EQ(rows["scan 256"]["samples"], "9");
    EXPECT_EQ(rows["scan 256"]["rounds"], "3");
    EXPECT_FALSE(rows["scan 256"]["rounds_error_pct"].empty());
    EXPECT_GT(std::stod(rows["scan 256"]["round_spread_pct"]), 1000);  // 900 ms over microseconds
    EXPECT_NE(rows["scan 256"]["note"].find("3 processes: medians "), std::string::npos) << rows["scan 256"]["note"];
    EXPECT_EQ(rows["scan 256"]["throttled"], "false");
    EXPECT_NEAR(median("scan 253"), (600 + 300) / 3.0, 0.01);
    EXPECT_EQ(rows["scan 253"]["samples"], "11");
    EXPECT_EQ(rows["scan 253"]["throttled"], "true");
    EXPECT_NE(rows["scan 253"]["note"].find("throttled in process 2 of 3"), std::string::npos)
        << rows["scan 253"]["note"];
    EXPECT_EQ(rows["compact 256"]["verified"], "FAIL");
    EXPECT_EQ(rows["compact 256"]["note"], "process 1 of 3: a[17] = 3 where 4 was expected");
    EXPECT_NEAR(median("compact 253"), (30 + 60) / 3.0, 0.01);
    EXPECT_EQ(rows["compact 253"]["verified"], "passed");
}

// The device outputs a sweep's GPU cells were allocated at, by back end, round by round.
std::map<std::string, std::vector<const void *>> cellOutputs;

// Records into cellOutputs while it lives; the hook is lifted however the test ends.
struct RecordCellOutputs {
    RecordCellOutputs() {
        cellOutputs.clear();
        Harness::setCellAllocatedHook([](const std::string &backend, int round, const void *output) {
            std::vector<const void *> &seen = cellOutputs[backend];
            EXPECT_EQ(seen.size(), static_cast<std::size_t>(round)) << backend;
            seen.push_back(output);
        });
    }
    ~RecordCellOutputs() { Harness::setCellAllocatedHook(nullptr); }
    RecordCellOutputs(const RecordCellOutputs &) = delete;
    RecordCellOutputs &operator=(const RecordCellOutputs &) = delete;
};

// Where the cells take turns, a round allocates each cell while the last round's is
// still held: no cell's output lies where its output lay the round before (the allocator
// would otherwise hand back the memory just freed), and the rows say the cells took turns.
TEST(Sweep, EachRoundsCellsLieElsewhereThanTheLastRounds) {
    SKIP_WITHOUT_GPU();
    std::string csv;
    int status = 0;
    {
        RecordCellOutputs recording;
        status = runSweepCapturing({"--ops", "scan", "--backends", "cub,decoupled,naive", "--sizes", "2^20", "--no-npot",
                                    "--reps", "2", "--rounds", "4", "--format", "csv", "--quiet"},
                                   csv);
    }
    EXPECT_EQ(status, 0) << csv;
    const CsvReport report(csv);
    ASSERT_EQ(report.rows.size(), 3u) << csv;
    for (const auto &row : report.rows) EXPECT_EQ(report.field(row, "interleaved"), "true") << csv;
    ASSERT_EQ(cellOutputs.size(), 3u);
    for (const auto &[backend, outputs] : cellOutputs) {
        ASSERT_EQ(outputs.size(), 4u) << backend;
        EXPECT_NE(outputs[0], nullptr) << backend;
        for (std::size_t round = 1; round < outputs.size(); ++round) {
            EXPECT_NE(outputs[round], nullptr) << backend;
            EXPECT_NE(outputs[round], outputs[round - 1]) << backend << ", round " << round;
        }
    }
}

// Sizes 1, 2 and 4: a power of two gets its SIZE - 3 companion only from 4 up, so the rows
// are 1, 2, 4 and 1 (4 - 3, marked npot), in that order.
TEST(Sweep, TheCompanionSizeStartsAtFour) {
    std::string csv;
    const int status = runSweepCapturing(
        {"--sizes", "1,2,4", "--backends", "cpu", "--ops", "scan", "--format", "csv", "--quiet"}, csv);
    EXPECT_EQ(status, 0) << csv;
    const CsvReport report(csv);
    std::vector<std::string> cells;
    for (const auto &row : report.rows) {
        cells.push_back(report.field(row, "size") + (report.field(row, "npot") == "true" ? " npot" : ""));
        EXPECT_EQ(report.field(row, "verified"), "passed") << report.field(row, "note");
    }
    EXPECT_EQ(cells, (std::vector<std::string>{"1", "2", "4", "1 npot"})) << csv;
}

TEST(SkipDecision, Past2To31Minus1OnlyBackEndsWith64BitEntryPointsRun) {
    for (const StreamCompaction::Backend &backend : StreamCompaction::backends()) {
        for (Op op : Harness::kAllOps) {
            if (!Harness::offers(backend, op)) continue;
            const std::string which = std::string(backend.name) + " " + Harness::opName(op);
            for (long long n : {1LL << 31, (1LL << 32) + 3, 1LL << 33}) {
                const std::string reason = Harness::cellSkipReason(backend, op, n);
                if (Harness::offers64(backend, op)) EXPECT_NE(reason, "n > 2^31 - 1") << which;
                else EXPECT_EQ(reason, "n > 2^31 - 1") << which;
            }
            EXPECT_NE(Harness::cellSkipReason(backend, op, 2147483647), "n > 2^31 - 1") << which;
        }
    }
    const StreamCompaction::Backend *cpu = StreamCompaction::findBackend("cpu");
    EXPECT_EQ(Harness::cellSkipReason(*cpu, Op::Scan, 1LL << 33), "");
}

// Sizes past 2^31 - 1 with only 32-bit GPU back ends: every cell reads skipped, with no
// GPU needed and nothing allocated (a 2^33-int input alone would be 32 GiB).
TEST(Sweep, SizesPast2To31Minus1SkipThe32BitBackEnds) {
    std::string csv, err;
    const int status = runSweepCapturing({"--sizes", "2^31:2^33", "--backends", "naive,efficient,textbook,radix,onesweep,shared",
                                          "--block-sizes", "128,256", "--no-npot", "--format", "csv", "--quiet"},
                                         csv, &err);
    EXPECT_EQ(status, Harness::kExitNothingRan) << csv;  // every cell skipped
    std::vector<std::string> header;
    int rows = 0;
    for (std::size_t start = 0, end; start < csv.size(); start = end + 1) {
        end = csv.find('\n', start);
        const std::string line = csv.substr(start, end - start);
        if (line.empty()) continue;
        if (header.empty()) {
            header = csvFields(line);
            ASSERT_GE(header.size(), 2u);
            ASSERT_EQ(header[header.size() - 2], "verified");
            ASSERT_EQ(header.back(), "note");
            continue;
        }
        const auto row = csvFields(line);
        ASSERT_EQ(row.size(), header.size()) << line;
        EXPECT_EQ(row[header.size() - 2], "skipped") << line;
        EXPECT_EQ(row.back(), "n > 2^31 - 1") << line;
        ++rows;
    }
    // scan: naive, efficient, shared; compact: efficient, textbook, shared; partition:
    // textbook; sort: radix, at 2 block sizes each; onesweep (fixed tile shape) once.
    // 3 sizes.
    EXPECT_EQ(rows, (8 * 2 + 1) * 3);
    EXPECT_EQ(err, "0 cells verified, 0 failed, 51 skipped\n");  // on stderr: stdout's CSV stays plain
}

// MemAvailable from /proc/meminfo in bytes, as the sweep reads it; 0 where it cannot be read.
std::size_t hostMemoryAvailable() {
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        if (line.rfind("MemAvailable:", 0) == 0) return std::stoull(line.substr(13)) * 1024;
    }
    return 0;
}

// A size whose CPU side does not fit in the host's available memory is skipped cell by
// cell, saying how much it needed, and nothing is allocated (2^33 ints: 256 GiB). On a
// host with that much memory, or nearly, the cells could run instead: skipped there.
TEST(Sweep, ACellThatDoesNotFitInHostMemoryIsSkippedSayingHowMuch) {
    constexpr std::size_t GiB = std::size_t{1} << 30;
    const std::size_t available = hostMemoryAvailable();
    if (available == 0 || available >= 200 * GiB) {
        GTEST_SKIP() << "this host has " << available / GiB << " GiB available (or none readable): the 2^33 cells "
                     << "need 256 GiB and would not reliably be refused";
    }
    std::string csv;
    const int status =
        runSweepCapturing({"--sizes", "2^33", "--backends", "cpu", "--ops", "scan,sort", "--format", "csv", "--quiet"}, csv);
    EXPECT_EQ(status, Harness::kExitNothingRan) << csv;  // every cell skipped
    int skipped = 0;
    for (std::size_t start = 0, end; start < csv.size(); start = end + 1) {
        end = csv.find('\n', start);
        const std::string line = csv.substr(start, end - start);
        if (line.find(",scan,cpu,") == std::string::npos && line.find(",sort,cpu,") == std::string::npos) continue;
        EXPECT_NE(line.find(",skipped,\"needs "), std::string::npos) << line;  // quoted: the note has a comma
        EXPECT_NE(line.find("GiB of host memory"), std::string::npos) << line;
        EXPECT_NE(line.find("GiB free"), std::string::npos) << line;
        ++skipped;
    }
    EXPECT_EQ(skipped, 4);  // two ops, 2^33 and its companion 2^33 - 3
}

// A report that fails to write mid-sweep (here a full disk from the first line: a .json
// name linked to /dev/full) throws, naming the file and why, and every other report
// still gets its ending: stdout's JSON is whole.
TEST(Sweep, AFailedWriteThrowsAndTheOtherReportsEnd) {
    if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full here";
    const std::string path = testing::TempDir() + "sweep_full_disk.json";
    std::remove(path.c_str());
    ASSERT_EQ(symlink("/dev/full", path.c_str()), 0) << std::strerror(errno);
    Options options;
    std::string errors;
    ASSERT_EQ(parseArgs({"--sizes", "2^8", "--backends", "cpu", "--ops", "scan", "--format", "json", "--quiet",
                         "--output", path.c_str()},
                        options, errors),
              -1)
        << errors;
    testing::internal::CaptureStdout();
    std::string message;
    try {
        Harness::runSweep(options);
    } catch (const std::runtime_error &e) {
        message = e.what();
    }
    const std::string out = testing::internal::GetCapturedStdout();
    std::remove(path.c_str());
    EXPECT_NE(message.find("cannot write '" + path + "': " + std::strerror(ENOSPC)), std::string::npos) << message;
    // JsonReporter's ending, marked incomplete with the error.
    const std::string ending =
        "\n  ],\n  \"warnings\": [],\n  \"complete\": false,\n  \"stopped\": \"cannot write '" + path + "': " +
        std::strerror(ENOSPC) + "\"\n}\n";
    ASSERT_GE(out.size(), ending.size()) << out;
    EXPECT_EQ(out.substr(out.size() - ending.size()), ending) << out;
}

// An --output in a folder that does not exist, or one that is a folder itself: one line
// naming the path and why, exit 2, nothing on stdout, nothing run.
TEST(Sweep, UnwritableOutputStopsBeforeRunning) {
    const std::string folder = testing::TempDir() + "a-folder.csv";
    ASSERT_TRUE(std::filesystem::create_directories(folder) || std::filesystem::is_directory(folder));
    for (const std::string &path : {std::string("/nonexistent-dir/x.csv"), folder}) {
        Options options;
        std::string errors;
        ASSERT_EQ(parseArgs({"--sizes", "2^8", "--backends", "cpu", "--output", path.c_str()}, options, errors), -1);
        testing::internal::CaptureStdout();
        testing::internal::CaptureStderr();
        EXPECT_EQ(Harness::runSweep(options), 2);
        EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
        errors = testing::internal::GetCapturedStderr();
        EXPECT_NE(errors.find("--output: cannot write '" + path + "'"), std::string::npos) << errors;
        EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << errors;
    }
    std::filesystem::remove(folder);
}

}  // namespace

// A block-size sweep measures a back end at every block size only when its kernels run at
// the block size (Backend::honoursBlockSize): naive twice here, cub (fixed tile shapes)
// and the CPU once each, with no block size in their rows. Cells are verified with a
// GPU and skipped without one; the rows are the same.
TEST(Sweep, ABlockSizeSweepMeasuresFixedTileBackEndsOnce) {
    std::string csv;
    const int status = runSweepCapturing({"--sizes", "2^10", "--backends", "naive,cub,cpu", "--ops", "scan",
                                          "--block-sizes", "128,256", "--no-npot", "--format", "csv", "--quiet"},
                                         csv);
    EXPECT_EQ(status, 0) << csv;
    std::vector<std::string> header;
    std::vector<std::string> cells;  // "backend/block size" in the order written
    for (std::size_t start = 0, end; start < csv.size(); start = end + 1) {
        end = csv.find('\n', start);
        const std::string line = csv.substr(start, end - start);
        if (line.empty() || line[0] == '#') continue;
        if (header.empty()) {
            header = csvFields(line);
            continue;
        }
        const auto row = csvFields(line);
        const auto at = [&](const char *name) {
            return row[static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin())];
        };
        cells.push_back(at("backend") + "/" + at("block_size"));
    }
    // The CPU first, then the reference, then the back ends that take a block size.
    EXPECT_EQ(cells, (std::vector<std::string>{"cpu/", "cub/", "naive/128", "naive/256"})) << csv;
}
