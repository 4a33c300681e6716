// The compare command on crafted report pairs: a regression, a tie within the noise and
// a gain; rows on one side only and rows that cannot be compared; older reports whose
// noise is estimated; different GPUs and modes; --fail-above's exit statuses; bad input;
// markdown that GitHub renders as tables.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "commands/compare.h"
#include "gfm_check.h"
#include "report/tables.h"
#include "test_support.h"

namespace {

struct Result {
    int status = 0;
    std::string out;
    std::string err;
};

Result compare(const std::vector<std::string> &args) {
    std::FILE *out = std::tmpfile();
    std::FILE *err = std::tmpfile();
    Result result;
    result.status = Harness::runCompare(args, out, err);
    result.out = TestSupport::readAndClose(out);
    result.err = TestSupport::readAndClose(err);
    return result;
}

std::string writeFile(const std::string &name, const std::string &text) {
    const std::string path = testing::TempDir() + "compare_" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// A JSON report's row with the sweep's noise columns; `block` is "null" for none.
std::string row(const std::string &op, const std::string &backend, long long size, bool npot, const std::string &block,
                double median, double noisePct, int samples, const std::string &verified = "passed",
                const std::string &note = "") {
    std::ostringstream text;
    text << "{\"op\": \"" << op << "\", \"backend\": \"" << backend << "\", \"size\": " << size
         << ", \"npot\": " << (npot ? "true" : "false") << ", \"block_size\": " << block << ", \"median_ms\": "
         << (verified == "skipped" ? "null" : std::to_string(median)) << ", \"mean_ms\": " << median
         << ", \"min_ms\": " << median * 0.5 << ", \"max_ms\": " << median * 2 << ", \"noise_pct\": " << noisePct
         << ", \"samples\": " << samples << ", \"verified\": \"" << verified << "\", \"note\": \"" << note << "\"}";
    return text.str();
}

std::string jsonReport(const std::string &gpu, const std::string &mode, const std::vector<std::string> &rows,
                       const std::string &ending = "\"complete\": true") {
    std::string text = "{\n  \"context\": {\"run_id\": \"run-" + gpu + "\", \"gpu\": \"" + gpu + "\", \"mode\": \"" + mode +
                       "\", \"git_revision\": \"abc1234\", \"seed\": 565},\n  \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) text += (i ? ",\n    " : "\n    ") + rows[i];
    return text + "\n  ],\n  " + ending + "\n}\n";
}

// The records of a CSV without quoted fields.
std::vector<std::map<std::string, std::string>> csvRows(const std::string &text) {
    std::istringstream in(text);
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> cells(1);
        for (char c : line) {
            if (c == ',') cells.emplace_back();
            else cells.back() += c;
        }
        if (header.empty()) {
            header = cells;
            continue;
        }
        EXPECT_EQ(cells.size(), header.size()) << line;
        std::map<std::string, std::string> fields;
        for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) fields[header[c]] = cells[c];
        rows.push_back(fields);
    }
    return rows;
}

const std::map<std::string, std::string> *find(const std::vector<std::map<std::string, std::string>> &rows,
                                               const std::string &op, const std::string &backend,
                                               const std::string &size, const std::string &block = "") {
    for (const auto &r : rows) {
        if (r.at("op") == op && r.at("backend") == backend && r.at("size") == size && r.at("block_size") == block) return &r;
    }
    return nullptr;
}

double number(const std::map<std::string, std::string> &row, const std::string &key) { return std::stod(row.at(key)); }

// A regression, a tie and a gain, with noise_pct and samples, and rows on one side only.
struct Pair {
    std::string base, next;
};

Pair sweepPair(const std::string &name, const std::string &newGpu = "NVIDIA H200", const std::string &newMode = "hot") {
    const std::string base = jsonReport(
        "NVIDIA H200", "hot",
        {row("scan", "cub", 1048576, false, "null", 1.0, 1, 16),               // becomes 1.2: slower
         row("scan", "decoupled", 1048576, false, "null", 1.0, 5, 5),          // 1.02 within 5% noise: same
         row("compact", "cub", 1048573, true, "null", 2.0, 1, 16),             // 1.0: faster
         row("scan", "naive", 1048576, false, "128", 3.0, 1, 16),              // block 128 on this side only
         row("sort", "onesweep", 1048576, false, "null", 4.0, 1, 16),          // only in BASE
         row("scan", "shared", 1048576, false, "128", 1.0, 1, 16),             // NEW skipped
         row("scan", "efficient", 1048576, false, "128", 1.0, 1, 16, "FAIL", "a[3] is 1; expected 2")});
    const std::string next = jsonReport(
        newGpu, newMode,
        {row("scan", "cub", 1048576, false, "null", 1.2, 1, 16), row("scan", "decoupled", 1048576, false, "null", 1.02, 5, 5),
         row("compact", "cub", 1048573, true, "null", 1.0, 1, 16), row("scan", "naive", 1048576, false, "256", 3.0, 1, 16),
         row("partition", "decoupled", 1048576, false, "null", 1.0, 1, 16),
         row("scan", "shared", 1048576, false, "128", 0, 1, 16, "skipped", "no CUDA device"),
         row("scan", "efficient", 1048576, false, "128", 1.0, 1, 16)});
    return {writeFile(name + "-base.json", base), writeFile(name + "-new.json", next)};
}

TEST(Compare, ARegressionATieAndAGainFromTheRowsNoise) {
    const Pair pair = sweepPair("verdicts");
    const Result result = compare({pair.base, pair.next, "--format", "csv"});
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(result.err, "");
    const auto rows = csvRows(result.out);

    const auto *slower = find(rows, "scan", "cub", "1048576");
    ASSERT_NE(slower, nullptr) << result.out;
    EXPECT_EQ(slower->at("verdict"), "slower");
    EXPECT_NEAR(number(*slower, "ratio"), 1.2, 1e-5);
    // 1% noise over 16 samples on each side, a median's error 1.2533 x noise / sqrt(samples):
    // 1.2 x exp(-+1.96 x sqrt(2) x 1.2533 x 0.0025).
    EXPECT_NEAR(number(*slower, "ratio_low"), 1.189623, 1e-5);
    EXPECT_NEAR(number(*slower, "ratio_high"), 1.210467, 1e-5);
    EXPECT_EQ(slower->at("noise_estimated"), "false");
    EXPECT_NEAR(number(*slower, "base_median_ms"), 1.0, 1e-9);
    EXPECT_NEAR(number(*slower, "new_median_ms"), 1.2, 1e-9);

    const auto *same = find(rows, "scan", "decoupled", "1048576");
    ASSERT_NE(same, nullptr);
    EXPECT_EQ(same->at("verdict"), "same");  // 2% slower, inside 5% noise over 5 samples
    EXPECT_NEAR(number(*same, "ratio_low"), 0.943764, 1e-5);
    EXPECT_NEAR(number(*same, "ratio_high"), 1.102394, 1e-5);

    const auto *faster = find(rows, "compact", "cub", "1048573");
    ASSERT_NE(faster, nullptr);
    EXPECT_EQ(faster->at("verdict"), "faster");
    EXPECT_EQ(faster->at("npot"), "true");
    EXPECT_NEAR(number(*faster, "ratio_low"), 0.495676, 1e-5);
    EXPECT_NEAR(number(*faster, "ratio_high"), 0.504362, 1e-5);
}

TEST(Compare, RowsOnOneSideOnlyAndRowsThatCannotBeCompared) {
    const Pair pair = sweepPair("sides");
    const Result result = compare({pair.base, pair.next, "--format", "csv"});
    ASSERT_EQ(result.status, 0) << result.err;
    const auto rows = csvRows(result.out);
    ASSERT_EQ(rows.size(), 9u) << result.out;  // 7 in BASE, 2 more in NEW
    // The block size is part of the match: 128 and 256 are two rows.
    ASSERT_NE(find(rows, "scan", "naive", "1048576", "128"), nullptr);
    EXPECT_EQ(find(rows, "scan", "naive", "1048576", "128")->at("verdict"), "only in BASE");
    ASSERT_NE(find(rows, "scan", "naive", "1048576", "256"), nullptr);
    EXPECT_EQ(find(rows, "scan", "naive", "1048576", "256")->at("verdict"), "only in NEW");
    EXPECT_EQ(find(rows, "sort", "onesweep", "1048576")->at("verdict"), "only in BASE");
    EXPECT_EQ(find(rows, "partition", "decoupled", "1048576")->at("verdict"), "only in NEW");
    const auto *skipped = find(rows, "scan", "shared", "1048576", "128");
    ASSERT_NE(skipped, nullptr);
    EXPECT_EQ(skipped->at("verdict"), "not comparable");
    EXPECT_EQ(skipped->at("note"), "NEW skipped: no CUDA device");
    EXPECT_EQ(skipped->at("ratio"), "");
    const auto *failed = find(rows, "scan", "efficient", "1048576", "128");
    ASSERT_NE(failed, nullptr);
    EXPECT_EQ(failed->at("verdict"), "not comparable");
    EXPECT_EQ(failed->at("note"), "BASE FAIL: a[3] is 1; expected 2");

    const Result text = compare({pair.base, pair.next});
    EXPECT_NE(text.out.find("9 rows: 1 faster, 1 slower, 1 same; 2 only in BASE, 2 only in NEW, 2 not comparable"),
              std::string::npos)
        << text.out;
    EXPECT_EQ(text.out.find("noise estimated"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("warning"), std::string::npos) << text.out;
}

// Text: every column but the labels right-aligned, so the verdicts start in one column.
TEST(Compare, TextLinesUpOnTheNumbers) {
    const Pair pair = sweepPair("text");
    const Result result = compare({pair.base, pair.next});
    ASSERT_EQ(result.status, 0) << result.err;
    std::istringstream lines(result.out);
    std::vector<std::size_t> verdictColumns;
    bool table = false;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("median time, ms; new / base", 0) == 0) table = true;
        else if (table && line.empty()) break;
        else if (table && line.find("---") == std::string::npos) {
            std::size_t at = std::string::npos;
            for (const char *verdict : {"verdict", "faster", "slower", "same", "only in", "not comparable"})
                at = std::min(at, line.find(std::string("  ") + verdict));
            ASSERT_NE(at, std::string::npos) << line;
            verdictColumns.push_back(Harness::displayWidth(line.substr(0, at)));
        }
    }
    ASSERT_EQ(verdictColumns.size(), 10u) << result.out;  // the header and 9 rows
    for (std::size_t column : verdictColumns) EXPECT_EQ(column, verdictColumns.front()) << result.out;
    EXPECT_TRUE(TestSupport::contains(
        result.out, "  scan       cub        2^20          —  1.00  1.20       1.20×     1.19–1.21  slower\n"));
    EXPECT_TRUE(TestSupport::contains(
        result.out, "  compact    cub        2^20 - 3      —  2.00  1.00      0.500×   0.496–0.504  faster\n"));
}

TEST(Compare, DifferentGpusAndModesWarnFirst) {
    const Pair pair = sweepPair("gpus", "NVIDIA A100", "cold");
    const Result text = compare({pair.base, pair.next});
    ASSERT_EQ(text.status, 0) << text.err;
    std::istringstream lines(text.out);
    std::vector<std::string> head;
    for (std::string line; std::getline(lines, line) && !line.empty();) head.push_back(line);
    ASSERT_EQ(head.size(), 5u) << text.out;  // BASE, NEW, the warnings and the verdict's rule, before the table
    EXPECT_EQ(head[2], "warning: different GPUs: BASE NVIDIA H200, NEW NVIDIA A100; the times are of two machines");
    EXPECT_EQ(head[3].rfind("warning: different modes: BASE hot, NEW cold", 0), 0u) << head[3];
    EXPECT_EQ(head[4].rfind("verdict: same when new / base is within the smaller of the two rows' noise", 0), 0u)
        << head[4];

    const Result markdown = compare({pair.base, pair.next, "--format", "markdown"});
    EXPECT_TRUE(TestSupport::contains(
        markdown.out, "> **Warning:** different GPUs: BASE NVIDIA H200, NEW NVIDIA A100"));
    // CSV stays plain on stdout; its warnings go to stderr.
    const Result csv = compare({pair.base, pair.next, "--format", "csv"});
    EXPECT_EQ(csv.out.rfind("op,backend,size,", 0), 0u) << csv.out;
    EXPECT_TRUE(TestSupport::contains(csv.err, "warning: different GPUs"));
    const Result json = compare({pair.base, pair.next, "--format", "json"});
    EXPECT_TRUE(TestSupport::contains(json.out, "\"warnings\": [\"different GPUs: BASE NVIDIA H200, NEW NVIDIA A100"));

    const Pair alike = sweepPair("alike-gpus");
    EXPECT_EQ(compare({alike.base, alike.next}).out.find("warning"), std::string::npos);
}

// Launch gaps more than 3% apart warn: each run's from its context (a CSV's context file).
TEST(Compare, LaunchGapsApartWarn) {
    const std::vector<std::string> rows = {row("scan", "naive", 1024, false, "128", 1.0, 1, 16)};
    const auto withGap = [&rows](const std::string &name, const std::string &gap) {
        std::string text = jsonReport("NVIDIA H200", "cold", rows);
        if (!gap.empty()) text.replace(text.find("\"seed\": 565"), 11, "\"seed\": 565, \"launch_gap_us\": " + gap);
        return writeFile(name, text);
    };
    const std::string one = withGap("gap-one.json", "1.4");
    const std::string near = withGap("gap-near.json", "1.44");
    const std::string far = withGap("gap-far.json", "1.51");
    const std::string none = withGap("gap-none.json", "");

    const Result apart = compare({one, far});
    ASSERT_EQ(apart.status, 0) << apart.err;
    EXPECT_TRUE(TestSupport::contains(apart.out, "warning: different launch gaps: BASE 1.400 us, NEW 1.510 us (+7.9%)"))
        << apart.out;
    EXPECT_EQ(compare({one, near}).out.find("warning"), std::string::npos);  // 2.9% apart
    EXPECT_EQ(compare({one, none}).out.find("warning"), std::string::npos);  // one side does not say

    // CSVs take their gaps from the context file beside them.
    const std::string header = "run_id,date,gpu,mode,op,backend,size,npot,block_size,median_ms,verified\n";
    const std::string base = writeFile("gap-base.csv", header + "r1,d,NVIDIA H200,cold,scan,naive,1024,false,128,1,passed\n");
    writeFile("gap-base.context.json", "{\"run_id\": \"r1\", \"launch_gap_us\": 1.35, \"processes\": 1}\n");
    const std::string next = writeFile("gap-new.csv", header + "r2,d,NVIDIA H200,cold,scan,naive,1024,false,128,1,passed\n");
    writeFile("gap-new.context.json", "{\"run_id\": \"r2\", \"launch_gap_us\": 1.5, \"processes\": 2}\n");
    const Result csv = compare({base, next});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_TRUE(TestSupport::contains(csv.out, "warning: different launch gaps: BASE 1.350 us, NEW 1.500 us (+11.1%)"))
        << csv.out;
}

// An older report (reps, min and max, no noise_pct or samples) as a CSV with its context
// file beside it, against one without: the noise is estimated and the output says so.
TEST(Compare, OlderReportsHaveTheirNoiseEstimatedFromMinAndMax) {
    const std::string header =
        "run_id,date,gpu,mode,op,backend,size,npot,block_size,median_ms,min_ms,max_ms,reps,bandwidth_GBps,copy_fraction,"
        "speedup_vs_cpu,speedup_vs_cub,kept,verified,note\n";
    const std::string base = writeFile(
        "old-base.csv", header + "r1,2025-01-31T12:00:00Z,none,hot,scan,cpu,1024,false,,1,0.9,1.1,5,,,,,,passed,\n"
                                 "r1,2025-01-31T12:00:00Z,none,hot,scan,cpu,1021,true,,2,1.8,2.4,5,,,,,,passed,\n");
    writeFile("old-base.context.json", "{\n  \"run_id\": \"r1\",\n  \"gpu\": \"Some GPU\",\n  \"mode\": \"hot\"\n}\n");
    const std::string next = writeFile(
        "old-new.csv", header + "r2,2025-02-01T12:00:00Z,Some GPU,hot,scan,cpu,1024,false,,1.5,1.4,1.6,5,,,,,,passed,\n"
                                "r2,2025-02-01T12:00:00Z,Some GPU,hot,scan,cpu,1021,true,,2.1,1.9,2.3,5,,,,,,passed,\n");
    const Result csv = compare({base, next, "--format", "csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_EQ(csv.err, "");  // the context file's GPU is the one compared: no warning
    const auto rows = csvRows(csv.out);
    const auto *slower = find(rows, "scan", "cpu", "1024");
    ASSERT_NE(slower, nullptr) << csv.out;
    EXPECT_EQ(slower->at("verdict"), "slower");
    EXPECT_EQ(slower->at("noise_estimated"), "true");
    // Noise 0.2 / (2 x 1) = 0.1 and 0.2 / (2 x 1.5), 5 samples each; a median's error 1.2533 x
    // noise / sqrt(samples).
    EXPECT_NEAR(number(*slower, "ratio_low"), 1.314468, 1e-5);
    EXPECT_NEAR(number(*slower, "ratio_high"), 1.711719, 1e-5);
    const auto *same = find(rows, "scan", "cpu", "1021");
    ASSERT_NE(same, nullptr);
    EXPECT_EQ(same->at("verdict"), "same");
    EXPECT_NEAR(number(*same, "ratio_low"), 0.863807, 1e-5);
    EXPECT_NEAR(number(*same, "ratio_high"), 1.276330, 1e-5);

    const Result text = compare({base, next});
    EXPECT_TRUE(TestSupport::contains(text.out, "noise estimated: BASE and NEW have no noise_pct and samples"));

    // Against a JSON report with the noise columns, only BASE's is estimated.
    const std::string modern = writeFile(
        "old-modern.json", jsonReport("Some GPU", "hot", {row("scan", "cpu", 1024, false, "null", 1.0, 1, 16)}));
    const Result mixed = compare({base, modern});
    ASSERT_EQ(mixed.status, 0) << mixed.err;
    EXPECT_TRUE(TestSupport::contains(mixed.out, "noise estimated: BASE has no noise_pct"));
}

TEST(Compare, ACsvWithoutItsContextFileTakesTheRunColumns) {
    const std::string header = "run_id,date,gpu,mode,op,backend,size,npot,block_size,median_ms,min_ms,max_ms,reps,verified,note\n";
    const std::string base = writeFile("bare-base.csv", header + "r1,d,NVIDIA H200,cold,scan,cpu,1024,false,,1,1,1,5,passed,\n");
    const std::string next = writeFile("bare-new.json", jsonReport("NVIDIA A100", "hot", {row("scan", "cpu", 1024, false, "null", 1.0, 0, 5)}));
    const Result result = compare({base, next});
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_TRUE(TestSupport::contains(result.out, "warning: different GPUs: BASE NVIDIA H200, NEW NVIDIA A100"));
    EXPECT_TRUE(TestSupport::contains(result.out, "warning: different modes: BASE cold, NEW hot"));
}

TEST(Compare, AnIncompleteReportAndRepeatedRowsAreNamed) {
    const std::string base = writeFile(
        "cut-base.json", jsonReport("G", "hot", {row("scan", "cpu", 1024, false, "null", 1.0, 1, 5)},
                                    "\"complete\": false,\n  \"stopped\": \"stopped by SIGINT\""));
    const std::string next = writeFile(
        "cut-new.json", jsonReport("G", "hot", {row("scan", "cpu", 1024, false, "null", 1.0, 1, 5),
                                                row("scan", "cpu", 1024, false, "null", 9.0, 1, 5)}));
    const Result result = compare({base, next, "--format", "csv"});
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_TRUE(TestSupport::contains(result.err, "warning: BASE is incomplete (stopped by SIGINT)"));
    EXPECT_TRUE(TestSupport::contains(
        result.err, "warning: NEW holds 1 row whose op, back end, size, npot and block size repeat"));
    const auto rows = csvRows(result.out);
    ASSERT_EQ(rows.size(), 1u) << result.out;
    EXPECT_EQ(rows[0].at("verdict"), "same");  // the first of NEW's two rows
}

TEST(Compare, FailAboveExitsOneOnASlowDownPastItBeyondTheNoise) {
    const Pair pair = sweepPair("fail");
    // The regression's interval is 1.19 to 1.21.
    EXPECT_EQ(compare({pair.base, pair.next}).status, 0);  // no threshold: a report, not a gate
    for (const char *threshold : {"5%", "0.05", "0", "18%", "0.18"}) {
        SCOPED_TRACE(threshold);
        const Result result = compare({pair.base, pair.next, "--fail-above", threshold});
        EXPECT_EQ(result.status, 1);
        EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
        EXPECT_TRUE(TestSupport::contains(result.err, "1 row slower by more than"));
        EXPECT_TRUE(TestSupport::contains(result.err, "scan cub 2^20 (1.20×, 95% interval 1.19–1.21)"));
        EXPECT_FALSE(result.out.empty());  // the comparison is written all the same
    }
    for (const char *threshold : {"20%", "0.2", "25%"}) {
        SCOPED_TRACE(threshold);
        const Result result = compare({pair.base, pair.next, "--fail-above=" + std::string(threshold)});
        EXPECT_EQ(result.status, 0) << result.err;
        EXPECT_EQ(result.err, "");
    }
    // A tie within the noise never fails, even at 0.
    const std::string tieBase =
        writeFile("tie-base.json", jsonReport("G", "hot", {row("scan", "cpu", 1024, false, "null", 1.0, 5, 5)}));
    const std::string tieNew =
        writeFile("tie-new.json", jsonReport("G", "hot", {row("scan", "cpu", 1024, false, "null", 1.04, 5, 5)}));
    EXPECT_EQ(compare({tieBase, tieNew, "--fail-above", "0%"}).status, 0);
    EXPECT_EQ(compare({tieNew, tieBase, "--fail-above", "0%"}).status, 0);
}

// A row's figures: its median, noise and samples (row()).
struct Figures {
    double median, noisePct;
    int samples;
};

// A report, written to `name`, of the three rows threeVerdicts reads: scan cub, scan naive
// at block 128 and scan cpu, all at 2^10; `cubMembers` (", \"key\": value") join cub's row.
std::string threeRows(const std::string &name, Figures cub, Figures naive, Figures cpu,
                      const std::string &cubMembers = "") {
    std::string cubRow = row("scan", "cub", 1024, false, "null", cub.median, cub.noisePct, cub.samples);
    cubRow.insert(cubRow.size() - 1, cubMembers);
    return writeFile(name, jsonReport("G", "cold", {cubRow, row("scan", "naive", 1024, false, "128", naive.median,
                                                                naive.noisePct, naive.samples),
                                                    row("scan", "cpu", 1024, false, "null", cpu.median, cpu.noisePct,
                                                        cpu.samples)}));
}

// The verdicts of scan cub, scan naive at block 128 and scan cpu, all at 2^10, in the CSV
// comparison of `base` with `next` under `flags`.
std::vector<std::string> threeVerdicts(const std::string &base, const std::string &next,
                                       const std::vector<std::string> &flags) {
    std::vector<std::string> args = {base, next, "--format", "csv"};
    args.insert(args.end(), flags.begin(), flags.end());
    const Result result = compare(args);
    EXPECT_EQ(result.status, 0) << result.err;
    const auto rows = csvRows(result.out);
    std::vector<std::string> verdicts;
    for (const auto *row : {find(rows, "scan", "cub", "1024"), find(rows, "scan", "naive", "1024", "128"),
                            find(rows, "scan", "cpu", "1024")}) {
        verdicts.push_back(row ? row->at("verdict") : "missing");
    }
    return verdicts;
}

// The verdict by the rows' noise (the default) and by the interval: a 3% change with 5%
// noise over 5000 samples is the same by the noise and slower by its narrow interval; a
// 1.5% change with 1% noise over 2 samples is slower by the noise and the same by its
// wide interval; a 5% change between rows of 1% and 10% noise is past the smaller.
// --fail-above follows the rule.
TEST(Compare, TheVerdictTakesTheRowsNoiseOrWithIntervalTheInterval) {
    const std::string base = threeRows("rule-base.json", {1.0, 5, 5000}, {1.0, 1, 2}, {1.0, 1, 4});
    const std::string next = threeRows("rule-new.json", {1.03, 5, 5000}, {1.015, 1, 2}, {0.95, 10, 4});
    const auto verdicts = [&](const std::vector<std::string> &flags) { return threeVerdicts(base, next, flags); };
    EXPECT_EQ(verdicts({}), (std::vector<std::string>{"same", "slower", "faster"}));
    EXPECT_EQ(verdicts({"--verdict", "noise"}), (std::vector<std::string>{"same", "slower", "faster"}));
    EXPECT_EQ(verdicts({"--verdict", "interval"}), (std::vector<std::string>{"slower", "same", "same"}));

    EXPECT_TRUE(TestSupport::contains(compare({base, next, "--format", "json"}).out, "\"verdict_rule\": \"noise\""));
    EXPECT_TRUE(TestSupport::contains(compare({base, next, "--format", "json", "--verdict=interval"}).out,
                                      "\"verdict_rule\": \"interval\""));
    EXPECT_TRUE(TestSupport::contains(compare({base, next, "--verdict", "interval"}).out,
                                      "verdict: same when the 95% interval covers 1"));
    EXPECT_TRUE(TestSupport::contains(compare({base, next, "--format", "markdown"}).out,
                                      "verdict: same when new / base is within the smaller of the two rows' noise"));

    // By the noise, only naive's 1.5% is slower: past 1%, not past 2%.
    const Result noise1 = compare({base, next, "--fail-above", "1%"});
    EXPECT_EQ(noise1.status, 1);
    EXPECT_TRUE(TestSupport::contains(noise1.err, "1 row slower by more than 1%")) << noise1.err;
    EXPECT_TRUE(TestSupport::contains(noise1.err, "scan naive 2^10, block 128")) << noise1.err;
    EXPECT_EQ(compare({base, next, "--fail-above", "2%"}).status, 0);
    // By the interval, cub's 1.028 to 1.032 is past 2%, not past 3%.
    const Result interval2 = compare({base, next, "--verdict", "interval", "--fail-above", "2%"});
    EXPECT_EQ(interval2.status, 1);
    EXPECT_TRUE(TestSupport::contains(interval2.err, "scan cub 2^10 (")) << interval2.err;
    EXPECT_EQ(compare({base, next, "--verdict", "interval", "--fail-above", "3%"}).status, 0);
}

// Rows of eight rounds whose medians spread (rounds_error_pct 1.5%, Student's t for 7
// degrees of freedom): cub's 3% change, slower by its calls' narrow interval, is the same
// by the rounds' wider one; naive's rows of one round keep their own interval.
TEST(Compare, TheIntervalTakesTheRoundsErrorWhereLarger) {
    const std::string inRounds = ", \"rounds\": 8, \"rounds_error_pct\": 1.5";
    const std::string base = threeRows("rounds-base.json", {1.0, 5, 5000}, {1.0, 0.01, 5000}, {1.0, 1, 4}, inRounds);
    const std::string next = threeRows("rounds-new.json", {1.03, 5, 5000}, {1.015, 0.01, 5000}, {1.0, 1, 4}, inRounds);
    EXPECT_EQ(threeVerdicts(base, next, {"--verdict", "interval"}), (std::vector<std::string>{"same", "slower", "same"}));
    const auto rows = csvRows(compare({base, next, "--format", "csv"}).out);
    const auto *cub = find(rows, "scan", "cub", "1024");
    ASSERT_NE(cub, nullptr);
    const double error = 0.015 * 2.365 / 1.959964, width = 1.96 * std::sqrt(2 * error * error);
    EXPECT_NEAR(std::stod(cub->at("ratio_high")), 1.03 * std::exp(width), 1e-4);
    EXPECT_NEAR(std::stod(cub->at("ratio_low")), 1.03 * std::exp(-width), 1e-4);
}

// --same-within 5%: a 3% slow-down and a 4% gain, past their rows' 1% noise, read the
// same under either rule, an 8% slow-down still slower; --fail-above fails on that one
// alone; the rule's line and the JSON say so.
TEST(Compare, SameWithinReadsChangesInsideItAsTheSame) {
    const std::string base = threeRows("within-base.json", {1.0, 1, 100}, {1.0, 1, 100}, {1.0, 1, 100});
    const std::string next = threeRows("within-new.json", {1.03, 1, 100}, {1.08, 1, 100}, {0.96, 1, 100});
    const auto verdicts = [&](const std::vector<std::string> &flags) { return threeVerdicts(base, next, flags); };
    const std::vector<std::string> bare{"slower", "slower", "faster"}, within{"same", "slower", "same"};
    EXPECT_EQ(verdicts({}), bare);
    EXPECT_EQ(verdicts({"--verdict", "interval"}), bare);
    EXPECT_EQ(verdicts({"--same-within", "5%"}), within);
    EXPECT_EQ(verdicts({"--same-within=0.05", "--verdict", "interval"}), within);
    EXPECT_EQ(verdicts({"--same-within", "2%"}), bare);

    const Result failing = compare({base, next, "--same-within", "5%", "--fail-above", "1%"});
    EXPECT_EQ(failing.status, 1);
    EXPECT_TRUE(TestSupport::contains(failing.err, "1 row slower by more than 1%")) << failing.err;
    EXPECT_TRUE(TestSupport::contains(failing.err, "scan naive 2^10, block 128")) << failing.err;
    EXPECT_EQ(compare({base, next, "--same-within", "5%", "--verdict", "interval", "--fail-above", "1%"}).status, 1);
    EXPECT_EQ(compare({base, next, "--same-within", "10%", "--verdict", "interval", "--fail-above", "1%"}).status, 0);

    EXPECT_TRUE(TestSupport::contains(compare({base, next, "--same-within", "5%"}).out,
                                      "or when it is within 5% of 1 (--same-within)"));
    EXPECT_TRUE(TestSupport::contains(compare({base, next, "--format", "json", "--same-within", "5%"}).out,
                                      "\"same_within\": 0.05,"));
    EXPECT_TRUE(TestSupport::contains(compare({base, next, "--format", "json"}).out, "\"same_within\": 0.0,"));
    EXPECT_TRUE(TestSupport::contains(compare({base, next, "--format", "markdown", "--same-within", "5%"}).out,
                                      "or when it is within 5% of 1 (--same-within)"));

    // A change of exactly T is within it.
    const std::string edgeBase =
        writeFile("within-edge-base.json", jsonReport("G", "cold", {row("scan", "cpu", 1024, false, "null", 1.0, 1, 100)}));
    const std::string edgeNew =
        writeFile("within-edge-new.json", jsonReport("G", "cold", {row("scan", "cpu", 1024, false, "null", 1.05, 1, 100)}));
    for (const auto &[within, verdict] : {std::pair{"5%", "same"}, {"4.9%", "slower"}}) {
        const auto rows = csvRows(compare({edgeBase, edgeNew, "--format", "csv", "--same-within", within}).out);
        const auto *edge = find(rows, "scan", "cpu", "1024");
        ASSERT_NE(edge, nullptr) << within;
        EXPECT_EQ(edge->at("verdict"), verdict) << within;
    }
}

TEST(Compare, ParseThreshold) {
    EXPECT_DOUBLE_EQ(Harness::parseThreshold("5%"), 0.05);
    EXPECT_DOUBLE_EQ(Harness::parseThreshold("0.05"), 0.05);
    EXPECT_DOUBLE_EQ(Harness::parseThreshold("2.5%"), 0.025);
    EXPECT_DOUBLE_EQ(Harness::parseThreshold("0"), 0);
    EXPECT_DOUBLE_EQ(Harness::parseThreshold("0%"), 0);
    EXPECT_DOUBLE_EQ(Harness::parseThreshold("150%"), 1.5);
    for (const char *bad : {"5", "1", "-1%", "-0.05", "abc", "", "%", "5%%", " 5%", "5 %", "nan", "inf%", "0.05x"}) {
        EXPECT_THROW(Harness::parseThreshold(bad), std::invalid_argument) << bad;
    }
}

// Bad input: one line on stderr naming what was wrong, nothing on stdout, exit 2.
TEST(Compare, BadInputIsOneLineAndExitTwo) {
    const Pair pair = sweepPair("bad");
    const std::string missing = testing::TempDir() + "compare_no-such-report.json";
    std::remove(missing.c_str());
    const std::string header = "op,backend,size,npot,block_size,median_ms,verified\n";
    const std::string brokenContext = writeFile("broken-context.csv", header + "scan,cpu,4,false,,1,passed\n");
    writeFile("broken-context.context.json", "{\"gpu\": ");
    const struct {
        std::vector<std::string> args;
        std::string says;
    } cases[] = {
        {{}, "compare takes two reports, BASE and NEW, and was given 0; usage: cis565_stream_compaction compare BASE NEW"},
        {{pair.base}, "was given 1"},
        {{pair.base, pair.next, pair.next}, "was given 3"},
        {{pair.base, missing}, "cannot read NEW '" + missing + "': No such file or directory"},
        {{missing, pair.next}, "cannot read BASE '" + missing + "'"},
        {{pair.base, pair.next, "--fial-above", "5%"}, "unknown flag '--fial-above'; did you mean '--fail-above'?"},
        {{pair.base, pair.next, "--format", "html"}, "--format: unknown format 'html'; formats: text, markdown, csv, json"},
        {{pair.base, pair.next, "--format"}, "--format needs a value"},
        {{pair.base, pair.next, "--fail-above", "5"}, "--fail-above: '5' would be 500%; write a percentage"},
        {{pair.base, pair.next, "--fail-above", "-5%"}, "--fail-above: '-5%' is not a threshold"},
        {{pair.base, pair.next, "--fail-above=-5%"}, "--fail-above: '-5%' is not a threshold"},
        {{pair.base, pair.next, "--format", "csv", "--format", "htm"}, "--format: unknown format 'htm'"},
        {{pair.base, pair.next, "--fail-above", "lots"}, "--fail-above: 'lots' is not a threshold"},
        {{pair.base, pair.next, "--verdict", "median"}, "--verdict: 'median' is not a rule; write noise (the default) or interval"},
        {{pair.base, pair.next, "--verdict"}, "--verdict needs a value"},
        {{pair.base, pair.next, "--same-within", "5"}, "--same-within: '5' would be 500%; write a percentage"},
        {{pair.base, pair.next, "--same-within", "-1%"}, "--same-within: '-1%' is not a threshold"},
        {{pair.base, writeFile("report.md", "| size |\n")}, "NEW '" + testing::TempDir() + "compare_report.md': a report to compare is the .json or .csv"},
        {{pair.base, writeFile("cut.json", "{\"context\": {}, \"rows\": [{\"op\": \"scan\"")}, "is not a JSON report: JSON parse error at line 1, column "},
        {{pair.base, writeFile("norows.json", "{\"context\": {}}")}, "is not a sweep report: it has no \"rows\" list"},
        {{pair.base, writeFile("nomedian.json", "{\"rows\": [{\"op\": \"scan\", \"backend\": \"cpu\", \"size\": 4, \"verified\": \"passed\"}]}")},
         "is not a sweep report: its rows have no 'median_ms' field"},
        {{writeFile("nomedian.csv", "op,backend,size,verified\nscan,cpu,4,passed\n"), pair.next}, "its rows have no 'median_ms' field"},
        {{writeFile("ragged.csv", header + "scan,cpu,4,false,,1\n"), pair.next}, "record 2 has 6 fields, the header 7"},
        {{writeFile("empty.csv", ""), pair.next}, "is empty: no CSV header"},
        {{brokenContext, pair.next}, "BASE's context '" + testing::TempDir() + "compare_broken-context.context.json' is not JSON"},
    };
    for (const auto &c : cases) {
        std::string args;
        for (const std::string &arg : c.args) args += " " + arg;
        SCOPED_TRACE(args);
        const Result result = compare(c.args);
        EXPECT_EQ(result.status, 2);
        EXPECT_EQ(result.out, "");
        EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
        EXPECT_EQ(result.err.rfind("cis565_stream_compaction compare: ", 0), 0u) << result.err;
        EXPECT_TRUE(TestSupport::contains(result.err, c.says));
        // A bad value names what is accepted, with no usage line after it.
        if (TestSupport::contains(c.says, ": '") || TestSupport::contains(c.says, "unknown format")) {
            EXPECT_FALSE(TestSupport::contains(result.err, "usage:")) << result.err;
        }
    }
}

// Flags before, between or after the reports, in either spelling; after "--" every word is a report.
TEST(Compare, FlagsGoAnywhereAndDashDashEndsThem) {
    const Pair pair = sweepPair("flags");
    const Result reference = compare({pair.base, pair.next, "--format", "csv", "--same-within", "5%"});
    ASSERT_EQ(reference.status, 0) << reference.err;
    for (const std::vector<std::string> &args :
         {std::vector<std::string>{"--format=csv", pair.base, "--same-within", "5%", pair.next},
          {"--same-within=5%", "--format", "json", "--format", "csv", pair.base, pair.next},
          {"--format", "csv", "--same-within", "5%", "--", pair.base, pair.next}}) {
        const Result result = compare(args);
        EXPECT_EQ(result.status, 0) << result.err;
        EXPECT_EQ(result.out, reference.out);
    }
    const Result dashed = compare({pair.base, "--", "--format"});
    EXPECT_EQ(dashed.status, 2);
    EXPECT_TRUE(TestSupport::contains(dashed.err, "NEW '--format': a report to compare is the .json or .csv")) << dashed.err;
}

// One run's JSON (every digit) against its CSV (six significant digits): the same, even
// for a row without noise, and --fail-above 0% passes.
TEST(Compare, OneRunsJsonAndCsvReadTheSame) {
    const std::string json = writeFile(
        "digits.json", jsonReport("G", "cold", {"{\"op\": \"scan\", \"backend\": \"cpu\", \"size\": 1024, \"npot\": false, "
                                                "\"block_size\": null, \"median_ms\": 0.0012345678901234567, "
                                                "\"noise_pct\": 0.0, \"samples\": 5, \"verified\": \"passed\"}"}));
    const std::string csv = writeFile("digits.csv", "op,backend,size,npot,block_size,median_ms,noise_pct,samples,verified\n"
                                                    "scan,cpu,1024,false,,0.00123457,0,5,passed\n");
    const Result result = compare({json, csv, "--format", "csv", "--fail-above", "0%"});
    ASSERT_EQ(result.status, 0) << result.err;
    const auto rows = csvRows(result.out);
    ASSERT_EQ(rows.size(), 1u) << result.out;
    EXPECT_EQ(rows[0].at("verdict"), "same");
    // A change in the fifth digit is one.
    const std::string moved = writeFile("digits-moved.csv", "op,backend,size,npot,block_size,median_ms,noise_pct,samples,verified\n"
                                                            "scan,cpu,1024,false,,0.00123467,0,5,passed\n");
    EXPECT_EQ(csvRows(compare({json, moved, "--format", "csv"}).out).at(0).at("verdict"), "slower");
}

TEST(Compare, HelpSaysWhatItDoes) {
    const Result result = compare({"--help"});
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(result.out.rfind("usage: cis565_stream_compaction compare BASE NEW", 0), 0u) << result.out;
    EXPECT_TRUE(TestSupport::contains(result.out, "--fail-above T"));
    EXPECT_TRUE(TestSupport::contains(result.out, "--verdict RULE"));
    EXPECT_TRUE(TestSupport::contains(result.out, "--same-within T"));
}

// The markdown is GitHub's: a table with the header's column count on every row.
TEST(Compare, MarkdownPastesAsATable) {
    const Pair pair = sweepPair("markdown", "NVIDIA A100");
    const Result result = compare({pair.base, pair.next, "--format", "markdown"});
    ASSERT_EQ(result.status, 0) << result.err;
    const std::vector<std::string> problems = GfmCheck::problems(result.out);
    EXPECT_TRUE(problems.empty()) << GfmCheck::describe(problems) << result.out;
    EXPECT_TRUE(TestSupport::contains(
        result.out, "| op | back end | size | block | base | new | new / base | 95% interval | verdict | note |\n"
                    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n"));
    EXPECT_TRUE(TestSupport::contains(
        result.out, "| scan | cub | 2^20 | — | 1.00 | 1.20 | 1.20× | 1.19–1.21 | slower |  |\n"));
}

// The checker finds what GitHub would not render: it is what the markdown tests rely on.
TEST(GfmCheck, FindsTablesAndFootnotesGitHubWouldNotRender) {
    EXPECT_TRUE(GfmCheck::problems("text\n\n| a | b |\n| --- | ---: |\n| 1 | 2 |\n\nx[^1]\n\n[^1]: why\n").empty());
    EXPECT_TRUE(GfmCheck::problems("\n| a | b |\n| --- | ---: |\n| 1 \\| 1 | `2|3` |\n").empty());
    const std::vector<std::pair<std::string, std::string>> broken = {
        {"\n| a | b |\n| --- | ---: |\n| 1 | 2 | 3 |\n", "3 cells under a header of 2"},
        {"\n| a | b |\n| 1 | 2 |\n", "without an alignment row"},
        {"text\n| a |\n| --- |\n", "without a blank line before it"},
        {"\n| a |\n| --- |\nmore\n", "text right under a table"},
        {"cell[^1]\n", "[^1] is referenced but never defined"},
        {"[^2]: why\n", "[^2] is defined but never referenced"},
        {"x[^3]\n[^3]: a\n[^3]: b\n", "[^3] is defined 2 times"},
        {"<details><summary>Context</summary>\n- a\n</details>\n", "no blank line after </summary>"},
        {"<details><summary>Context</summary>\n\n- a\n", "not closed"},
    };
    for (const auto &[markdown, problem] : broken) {
        const std::string found = GfmCheck::describe(GfmCheck::problems(markdown));
        EXPECT_NE(found.find(problem), std::string::npos) << markdown << "\nfound: " << found;
    }
}

}  // namespace
