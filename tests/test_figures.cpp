// The sweep's derived figures against their definitions: effective bandwidth = bytes
// counted / median time, its fraction of the measured copy bandwidth, and the speed-ups
// over the CPU and CUB = their median / this median. Checked on addFigures() with
// numbers worked out by hand, and on every row of a real sweep's CSV, recomputed from
// the medians it printed (the CPU's rows everywhere; with a GPU, every ratio column).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.h"

#include <stream_compaction/common.h>

#include "cli/cli.h"
#include "cli_test_support.h"
#include "measure/runner.h"
#include "sweep/sweep.h"
#include "testing_helpers.hpp"

namespace {

using Harness::Op;
using Harness::Row;

Row passedRow(Op op, long long size, double medianMs) {
    Row row;
    row.op = op;
    row.backend = "efficient";
    row.size = size;
    row.timing = TestSupport::timingOf(medianMs, medianMs / 2, medianMs * 2, 5);
    return row;
}

TEST(Figures, BandwidthCopyFractionAndSpeedupsByHand) {
    // A compaction of 1000 elements keeping 250 moves 4 x 1000 + 4 x 250 = 5000 bytes.
    Row row = passedRow(Op::Compact, 1000, 0.5);
    Harness::addFigures(row, 250, TestSupport::timingOf(2.0, 2.0, 2.0, 5), TestSupport::timingOf(0.25, 0.25, 0.25, 5),
                        {.GBs = 0.02, .noise = 0, .samples = 15});
    ASSERT_TRUE(row.bandwidthGBs && row.copyFraction && row.speedupVsCpu && row.speedupVsCub);
    EXPECT_DOUBLE_EQ(*row.bandwidthGBs, 5000 / 0.5e6);  // 0.01 GB/s
    EXPECT_DOUBLE_EQ(*row.copyFraction, 0.5);          // 0.01 of 0.02
    EXPECT_DOUBLE_EQ(*row.speedupVsCpu, 4.0);          // the CPU took 2 ms, this 0.5 ms
    EXPECT_DOUBLE_EQ(*row.speedupVsCub, 0.5);          // CUB took 0.25 ms

    // A scan of 2^20 ints moves 8 MiB: in 1 ms, 8.388608 GB/s.
    Row scan = passedRow(Op::Scan, 1 << 20, 1.0);
    Harness::addFigures(scan, 0, std::nullopt, std::nullopt, {});
    ASSERT_TRUE(scan.bandwidthGBs);
    EXPECT_DOUBLE_EQ(*scan.bandwidthGBs, 8.388608);
    EXPECT_FALSE(scan.copyFraction);  // no copy measured (no GPU)
    EXPECT_FALSE(scan.speedupVsCpu);
    EXPECT_FALSE(scan.speedupVsCub);
}

// A figure of several rounds that disagree: its % of copy carries the rounds' error
// (Student's t for 7 degrees of freedom over 1.96 times it), not its calls' alone.
TEST(Figures, TheCopyFractionsIntervalTakesTheRoundsError) {
    Row row = passedRow(Op::Scan, 1 << 20, 1.0);
    row.timing.stddevMs = 0.001;  // 0.1% noise over 5 calls
    row.timing.roundsError = 0.02;
    row.timing.rounds = 8;
    Harness::addFigures(row, 0, std::nullopt, std::nullopt, {.GBs = 10, .noise = 0, .samples = 15});
    ASSERT_TRUE(row.copyFractionRange);
    const double error = 0.02 * 2.365 / 1.959964;
    EXPECT_NEAR(row.copyFractionRange->high / *row.copyFraction, std::exp(1.96 * error), 1e-12);
    EXPECT_NEAR(row.copyFractionRange->low / *row.copyFraction, std::exp(-1.96 * error), 1e-12);
}

// A CSV report's fields, quoted ones included.
std::vector<std::string> csvFields(const std::string &line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

struct Report {
    std::map<std::string, std::string> context;  // numbers of the context JSON beside the CSV
    std::vector<std::map<std::string, std::string>> rows;
};

// `"key": value` lines of a context file (one key per line), the value as written.
std::map<std::string, std::string> readContext(const std::string &path) {
    std::map<std::string, std::string> context;
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);) {
        const auto open = line.find('"'), close = line.find("\": ");
        if (open == std::string::npos || close == std::string::npos) continue;
        std::string value = line.substr(close + 3);
        if (!value.empty() && value.back() == ',') value.pop_back();
        context[line.substr(open + 1, close - open - 1)] = value;
    }
    return context;
}

Report parse(const std::string &csv) {
    Report report;
    std::vector<std::string> header;
    for (std::size_t start = 0, end; start < csv.size(); start = end + 1) {
        end = csv.find('\n', start);
        if (end == std::string::npos) end = csv.size();
        const std::string line = csv.substr(start, end - start);
        if (line.empty()) continue;
        const std::vector<std::string> fields = csvFields(line);
        if (header.empty()) {
            header = fields;
            continue;
        }
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
        report.rows.push_back(row);
    }
    return report;
}

// Whether `printed` (six significant digits) is `exact`, to the precision printed.
testing::AssertionResult matches(const std::string &printed, double exact) {
    if (printed.empty()) return testing::AssertionFailure() << "no figure; expected " << exact;
    const double value = std::stod(printed);
    if (std::abs(value - exact) <= 5e-5 * std::abs(exact)) return testing::AssertionSuccess();
    return testing::AssertionFailure() << printed << " is not " << exact;
}

Op opNamed(const std::string &name) { return Harness::parseOp(name); }

// Every passed row of a sweep: its figures from the medians printed beside them.
TEST(Figures, EverySweepRowFollowsTheDefinitions) {
    const bool gpu = StreamCompaction::Common::deviceAvailable();
    const std::string csvPath = testing::TempDir() + "figures.csv";
    Harness::Options options;
    std::string errors;
    ASSERT_EQ(TestSupport::parseArgs({"--sizes", "2^12,3000", "--block-sizes", "128,256", "--backends",
                                      gpu ? "cpu,cub,thrust,decoupled,efficient" : "cpu,naive", "--reps", "3",
                                      "--format", "csv", "--quiet", "--output", csvPath.c_str()},
                                     options, errors),
              -1)
        << errors;
    testing::internal::CaptureStdout();
    const int status = Harness::runSweep(options);
    const std::string csv = testing::internal::GetCapturedStdout();
    ASSERT_EQ(status, 0) << csv;
    Report report = parse(csv);
    report.context = readContext(testing::TempDir() + "figures.context.json");
    std::remove(csvPath.c_str());
    std::remove((testing::TempDir() + "figures.context.json").c_str());
    ASSERT_EQ(report.context.count("copy_bandwidth_GBps"), 1u);
    if (gpu) {
        EXPECT_GT(std::stod(report.context.at("launch_gap_us")), 0) << "no launch gap in the context";
    }

    using Key = std::tuple<std::string, std::string, std::string>;  // op, size, npot
    std::map<Key, double> cpuMedian;
    std::map<Key, double> cubMedian;
    for (const auto &row : report.rows) {
        if (row.at("verified") != "passed") continue;
        const Key key{row.at("op"), row.at("size"), row.at("npot")};
        if (row.at("backend") == "cpu") cpuMedian[key] = std::stod(row.at("median_ms"));
        // The reference (cub) has fixed tile shapes: one row per input, for every block size.
        if (row.at("backend") == "cub") cubMedian[key] = std::stod(row.at("median_ms"));
    }
    ASSERT_EQ(cpuMedian.size(), 4u * 3u);  // 4 ops x (2^12, its companion, 3000)

    int checked = 0;
    for (const auto &row : report.rows) {
        if (row.at("verified") != "passed") continue;
        SCOPED_TRACE(testing::Message() << row.at("backend") << " " << row.at("op") << " " << row.at("size")
                                        << (row.at("npot") == "true" ? " (companion)" : "") << ", block "
                                        << row.at("block_size"));
        const Op op = opNamed(row.at("op"));
        const long long size = std::stoll(row.at("size"));
        const double median = std::stod(row.at("median_ms"));
        const long long kept = row.at("kept").empty() ? 0 : std::stoll(row.at("kept"));
        const double bandwidth = Harness::trafficBytes(op, size, kept) / (median * 1e6);
        EXPECT_TRUE(matches(row.at("bandwidth_GBps"), bandwidth));
        if (gpu) {
            EXPECT_TRUE(matches(row.at("copy_fraction"), bandwidth / std::stod(report.context.at("copy_bandwidth_GBps"))));
        } else {
            EXPECT_EQ(row.at("copy_fraction"), "");
        }
        const Key key{row.at("op"), row.at("size"), row.at("npot")};
        if (row.at("backend") == "cpu") {
            EXPECT_EQ(row.at("speedup_vs_cpu"), "");
            EXPECT_EQ(row.at("speedup_vs_cub"), "");
        } else {
            EXPECT_TRUE(matches(row.at("speedup_vs_cpu"), cpuMedian.at(key) / median));
            const auto cub = cubMedian.find(key);
            if (row.at("backend") == "cub" || cub == cubMedian.end()) {
                EXPECT_EQ(row.at("speedup_vs_cub"), "");
            } else {
                EXPECT_TRUE(matches(row.at("speedup_vs_cub"), cub->second / median));
            }
        }
        ++checked;
    }
    // 3 inputs: cub, thrust and decoupled (fixed tile shapes) once each, 4 + 4 + 3 ops;
    // efficient at both block sizes, 2 ops; the CPU's 12.
    EXPECT_EQ(checked, gpu ? 12 + 3 * (4 + 4 + 3) + 3 * 2 * 2 : 12);
}

// Compaction and partition rows report how many elements they kept: the count, over the
// sweep's seeded input, of the values the predicate keeps (here gt:1 over the course's
// values 0 to 3: the 2s and 3s).
TEST(Figures, CompactionAndPartitionRowsReportTheirKeptCounts) {
    Harness::Options options;
    std::string errors;
    ASSERT_EQ(TestSupport::parseArgs({"--sizes", "2^10", "--no-npot", "--ops", "compact,partition", "--keep", "gt:1",
                                      "--backends", "cpu", "--seed", "11", "--format", "csv", "--quiet"},
                                     options, errors),
              -1)
        << errors;
    testing::internal::CaptureStdout();
    ASSERT_EQ(Harness::runSweep(options), 0);
    const Report report = parse(testing::internal::GetCapturedStdout());
    TestingHelpers::setSeed(11);
    const std::vector<int> input = Harness::randomInput(Op::Compact, 1024);
    const auto aboveOne = std::count_if(input.begin(), input.end(), [](int v) { return v == 2 || v == 3; });
    ASSERT_EQ(report.rows.size(), 2u);
    for (const auto &row : report.rows) EXPECT_EQ(row.at("kept"), std::to_string(aboveOne)) << row.at("op");
}

}  // namespace
