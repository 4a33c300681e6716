// The report writers: CSV and JSON written and read back, rows flushed as they arrive,
// and the text and markdown tables.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gfm_check.h"
#include "platform/platform.h"
#include "test_support.h"
#include "report/reporters.h"
#include "report/tables.h"

namespace {

using Harness::Context;
using Harness::Format;
using Harness::Op;
using Harness::Row;
using TestSupport::sampleContext;

// ---- A small JSON reader, enough to read a report back ----

struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Json> array;
    std::map<std::string, Json> object;

    const Json &operator[](const std::string &key) const { return object.at(key); }
};

class JsonReader {
public:
    explicit JsonReader(std::string text) : text_(std::move(text)) {}

    Json document() {
        Json value = parseValue();
        skipSpace();
        if (at_ != text_.size()) fail("text after the document");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string &what) const {
        throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(at_));
    }
    void skipSpace() {
        while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
    }
    void expect(char c) {
        skipSpace();
        if (at_ >= text_.size() || text_[at_] != c) fail(std::string("expected '") + c + "'");
        ++at_;
    }
    bool consume(const std::string &word) {
        skipSpace();
        if (text_.compare(at_, word.size(), word) != 0) return false;
        at_ += word.size();
        return true;
    }

    Json parseValue() {
        Json value;
        skipSpace();
        if (at_ >= text_.size()) fail("unexpected end");
        const char c = text_[at_];
        if (c == '{') {
            value.kind = Json::Kind::Object;
            ++at_;
            if (consume("}")) return value;
            do {
                skipSpace();
                const std::string key = parseString();
                expect(':');
                value.object[key] = parseValue();
            } while (consume(","));
            expect('}');
        } else if (c == '[') {
            value.kind = Json::Kind::Array;
            ++at_;
            if (consume("]")) return value;
            do value.array.push_back(parseValue());
            while (consume(","));
            expect(']');
        } else if (c == '"') {
            value.kind = Json::Kind::String;
            value.string = parseString();
        } else if (consume("null")) {
        } else if (consume("true")) {
            value.kind = Json::Kind::Bool;
            value.boolean = true;
        } else if (consume("false")) {
            value.kind = Json::Kind::Bool;
        } else {
            value.kind = Json::Kind::Number;
            std::size_t used = 0;
            value.number = std::stod(text_.substr(at_), &used);
            at_ += used;
        }
        return value;
    }

    std::string parseString() {
        if (text_[at_] != '"') fail("expected a string");
        std::string out;
        for (++at_; at_ < text_.size() && text_[at_] != '"'; ++at_) {
            char c = text_[at_];
            if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            c = text_[++at_];
            switch (c) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'u': out += static_cast<char>(std::stoi(text_.substr(at_ + 1, 4), nullptr, 16)); at_ += 4; break;
                default: out += c;
            }
        }
        expect('"');
        return out;
    }

    std::string text_;
    std::size_t at_ = 0;
};

// ---- Fixtures: a context and a few rows ----

// A timing whose calls spread from `lowMs` to `highMs`: its min and max, and its 10th and
// 90th percentiles, which the tables show.
Harness::Timing timed(double medianMs, double lowMs, double highMs, int samples) {
    Harness::Timing timing = TestSupport::timingOf(medianMs, lowMs, highMs, samples);
    timing.p10Ms = lowMs;
    timing.p90Ms = highMs;
    return timing;
}

// The rows name every field ({} where a row has none), so that each says what it leaves out.
Row cpuRow() {
    return {.op = Op::Compact, .backend = "cpu", .size = 1024, .npot = false, .blockSize = {},
            .status = Row::Status::Passed, .note = {}, .timing = timed(2.5, 2.0, 3.0, 5), .kept = 768,
            .bandwidthGBs = 2.8, .copyFraction = {}, .speedupVsCpu = {}, .speedupVsCub = {}, .copyFractionRange = {},
            .speedupVsCpuRange = {}, .speedupVsCubRange = {}, .roundSpread = {}, .roundSamplesMs = {}, .launchBound = false,
            .interleaved = false, .smClockMHz = {}, .temperatureC = {}, .powerW = {}, .throttled = false,
            .explanation = {}};
}

// The CPU's compaction on a GPU back end: a block size, ten times as fast, 1% of the copy bandwidth.
Row gpuRow() {
    return {.op = Op::Compact, .backend = "efficient", .size = 1024, .npot = false, .blockSize = 256,
            .status = Row::Status::Passed, .note = {}, .timing = timed(0.25, 0.2, 0.5, 5), .kept = 768,
            .bandwidthGBs = 2.8, .copyFraction = 0.01, .speedupVsCpu = 10, .speedupVsCub = {}, .copyFractionRange = {},
            .speedupVsCpuRange = {}, .speedupVsCubRange = {}, .roundSpread = {}, .roundSamplesMs = {}, .launchBound = false,
            .interleaved = false, .smClockMHz = {}, .temperatureC = {}, .powerW = {}, .throttled = false,
            .explanation = {}};
}

Row failedRow() {
    return {.op = Op::Compact, .backend = "naive", .size = 1024, .blockSize = 256, .status = Row::Status::Failed,
            .note = "a[17] = 3, expected \"4\"\n\tline two \x01", .timing = timed(0.25, 0.2, 0.5, 5), .kept = 768,
            .bandwidthGBs = {}, .copyFraction = {}, .speedupVsCpu = {}, .speedupVsCub = {},
            .copyFractionRange = {}, .speedupVsCpuRange = {}, .speedupVsCubRange = {}, .roundSpread = {},
            .roundSamplesMs = {}, .launchBound = false, .interleaved = false, .smClockMHz = {}, .temperatureC = {},
            .powerW = {}, .throttled = false, .explanation = {}};
}

// Skipped: no timing, and the other numbers of a measured row left in.
Row skippedRow() {
    return {.op = Op::Compact, .backend = "thrust", .size = 1021, .npot = true, .blockSize = 256,
            .status = Row::Status::Skipped, .note = "no CUDA device", .timing = {}, .kept = 768,
            .bandwidthGBs = 2.8, .copyFraction = 0.01, .speedupVsCpu = 10, .speedupVsCub = {},
            .copyFractionRange = {}, .speedupVsCpuRange = {}, .speedupVsCubRange = {}, .roundSpread = {},
            .roundSamplesMs = {}, .launchBound = false, .interleaved = false, .smClockMHz = {}, .temperatureC = {},
            .powerW = {}, .throttled = false, .explanation = {}};
}

// Writes a whole report with `format` and returns it; cut short saying `stoppedBy`
// unless that is empty.
std::string report(Format format, const std::vector<Row> &rows, const std::string &stoppedBy = "") {
    std::FILE *file = std::tmpfile();
    auto reporter = Harness::makeReporter(format, file, "the test file");
    reporter->begin(sampleContext());
    for (const Row &row : rows) reporter->add(row);
    reporter->endOp();
    if (!stoppedBy.empty()) reporter->stop(stoppedBy);
    reporter->end();
    return TestSupport::readAndClose(file);
}

// RFC 4180 fields of one record; a quoted field may hold commas, quotes and newlines.
std::vector<std::vector<std::string>> readCsv(const std::string &text, std::vector<std::string> &comments) {
    std::vector<std::vector<std::string>> records;
    std::istringstream in(text);
    while (in.peek() != EOF) {
        if (in.peek() == '#') {
            std::string line;
            std::getline(in, line);
            comments.push_back(line);
            continue;
        }
        std::vector<std::string> fields(1);
        bool quoted = false;
        for (int c = in.get(); c != EOF; c = in.get()) {
            if (quoted) {
                if (c == '"' && in.peek() == '"') fields.back() += static_cast<char>(in.get());
                else if (c == '"') quoted = false;
                else fields.back() += static_cast<char>(c);
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.emplace_back();
            } else if (c == '\n') {
                break;
            } else {
                fields.back() += static_cast<char>(c);
            }
        }
        records.push_back(fields);
    }
    return records;
}

// The fields of sampleContext() as a report's JSON writes them.
void expectSampleContext(const Json &context) {
    EXPECT_EQ(context["run_id"].string, "20250131T120000Z-3fa2");
    EXPECT_EQ(context["date"].string, "2025-01-31T12:00:00Z");
    EXPECT_EQ(context["command_line"].string, sampleContext().commandLine);
    EXPECT_EQ(context["mode"].string, "cold");
    EXPECT_EQ(context["gpu"].string, "NVIDIA H200");
    EXPECT_EQ(context["sm_count"].number, 132);
    EXPECT_EQ(context["copy_bandwidth_GBps"].number, 3900.5);
    EXPECT_EQ(context["launch_gap_us"].number, 1.25);
    EXPECT_EQ(context["launch_gap_method"].string, "64 empty kernels");
    EXPECT_EQ(context["processes"].number, 3);
    EXPECT_EQ(context["theoretical_bandwidth_GBps"].number, 4800);
    EXPECT_EQ(context["driver_version"].string, "13.0");
    EXPECT_EQ(context["runtime_version"].string, "12.8");
    EXPECT_EQ(context["git_revision"].string, "abc1234");
    EXPECT_EQ(context["build_type"].string, "Release");
    EXPECT_EQ(context["host_cpu"].string, "AMD EPYC");
    EXPECT_EQ(context["host_cpus"].string, "2 (1 CPU)");
    EXPECT_EQ(context["seed"].number, 565);
}

TEST(Formats, NamesAndExtensions) {
    using Named = std::vector<std::pair<std::string, Format>>;
    for (const auto &[name, format] :
         Named{{"text", Format::Text}, {"markdown", Format::Markdown}, {"csv", Format::Csv}, {"json", Format::Json}}) {
        EXPECT_EQ(Harness::parseFormat(name), format) << name;
    }
    EXPECT_THROW(Harness::parseFormat("md"), std::invalid_argument);
    for (const auto &[path, format] : Named{{"results/h200/sizes.md", Format::Markdown}, {"a.csv", Format::Csv},
                                            {"a.json", Format::Json}, {"a.txt", Format::Text}, {"A.CSV", Format::Csv},
                                            {"a.Md", Format::Markdown}}) {
        EXPECT_EQ(Harness::formatForPath(path), format) << path;
    }
    for (const char *path : {".CSV", "a.dat", ".csv", "csv"}) EXPECT_FALSE(Harness::formatForPath(path)) << path;
}

TEST(HostCpus, RangesAndCount) {
    EXPECT_EQ(Harness::cpuListText({}), "unknown");
    EXPECT_EQ(Harness::cpuListText({2}), "2 (1 CPU)");
    EXPECT_EQ(Harness::cpuListText({0, 1}), "0-1 (2 CPUs)");
    EXPECT_EQ(Harness::cpuListText({0, 1, 2, 5, 7, 8}), "0-2,5,7-8 (6 CPUs)");
    EXPECT_EQ(Harness::cpuListText({3, 5, 7}), "3,5,7 (3 CPUs)");
}

// The CPUs read back are those the process was pinned to (as taskset pins it): one, then
// two where there are two, then all of them again.
TEST(HostCpus, ReadsTheAffinitySet) {
#if defined(__linux__)
    const std::vector<int> all = Harness::allowedCpus();
    ASSERT_FALSE(all.empty());
    cpu_set_t original;
    ASSERT_EQ(sched_getaffinity(0, sizeof original, &original), 0);
    const auto pin = [](const std::vector<int> &cpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int cpu : cpus) CPU_SET(cpu, &set);
        return sched_setaffinity(0, sizeof set, &set) == 0;
    };
    const std::vector<int> last{all.back()};
    ASSERT_TRUE(pin(last));
    EXPECT_EQ(Harness::allowedCpus(), last);
    EXPECT_EQ(Harness::cpuListText(Harness::allowedCpus()), std::to_string(all.back()) + " (1 CPU)");
    if (all.size() >= 2) {
        const std::vector<int> two{all.front(), all.back()};
        ASSERT_TRUE(pin(two));
        EXPECT_EQ(Harness::allowedCpus(), two);
    }
    ASSERT_EQ(sched_setaffinity(0, sizeof original, &original), 0);
    EXPECT_EQ(Harness::allowedCpus(), all);
#else
    GTEST_SKIP() << "the affinity is read on Linux only";
#endif
}

TEST(SizeLabel, PowersAndCompanions) {
    EXPECT_EQ(Harness::sizeLabel(1 << 20, false), "2^20");
    EXPECT_EQ(Harness::sizeLabel((1 << 20) - 3, true), "2^20 - 3");
    EXPECT_EQ(Harness::sizeLabel(1000, false), "1000");
}

// That each of `expected`'s columns holds its text in `row`; a failure names the column.
void expectColumns(const std::map<std::string, std::string> &row,
                   const std::vector<std::pair<std::string, std::string>> &expected) {
    for (const auto &[column, text] : expected) {
        const auto found = row.find(column);
        ASSERT_NE(found, row.end()) << column;
        EXPECT_EQ(found->second, text) << column;
    }
}

// A plain CSV: no comment lines, the header first, every row naming its run.
TEST(CsvReporter, ReadsBackHeaderAndRows) {
    std::vector<std::string> comments;
    const auto records = readCsv(report(Format::Csv, {cpuRow(), gpuRow(), failedRow(), skippedRow()}), comments);
    EXPECT_TRUE(comments.empty());

    ASSERT_EQ(records.size(), 5u);
    const std::vector<std::string> header = {
        "run_id", "date", "gpu", "mode", "op", "backend", "size", "npot", "block_size", "median_ms", "mean_ms",
        "stddev_ms", "noise_pct", "min_ms", "max_ms", "p10_ms", "p90_ms", "samples", "round_spread_pct", "rounds",
        "rounds_error_pct", "rounds_error", "timed", "held", "synchronizes", "by_implementation", "cold",
        "out_of_time", "launch_bound", "interleaved", "sm_clock_MHz", "temperature_C", "power_W", "throttled",
        "bandwidth_GBps", "copy_fraction", "copy_fraction_low", "copy_fraction_high", "speedup_vs_cpu",
        "speedup_vs_cpu_low", "speedup_vs_cpu_high", "speedup_vs_cub", "speedup_vs_cub_low", "speedup_vs_cub_high",
        "kernels", "kernel_ms", "between_ms", "traced_ms", "explain", "kept", "verified", "note"};
    EXPECT_EQ(records[0], header);
    std::vector<std::map<std::string, std::string>> rows;
    for (std::size_t r = 1; r < records.size(); ++r) {
        ASSERT_EQ(records[r].size(), header.size()) << r;
        std::map<std::string, std::string> row;
        for (std::size_t c = 0; c < header.size(); ++c) row[header[c]] = records[r][c];
        rows.push_back(row);
    }
    for (const auto &row : rows) {
        expectColumns(row, {{"run_id", "20250131T120000Z-3fa2"}, {"date", "2025-01-31T12:00:00Z"},
                            {"gpu", "NVIDIA H200"}, {"mode", "cold"}});
    }
    expectColumns(rows[0], {{"op", "compact"}, {"backend", "cpu"}, {"size", "1024"}, {"npot", "false"},
                            {"block_size", ""}, {"median_ms", "2.5"}, {"min_ms", "2"}, {"max_ms", "3"},
                            {"samples", "5"},
                            {"timed", "host timer"},  // the CPU row, neither cold nor held
                            {"bandwidth_GBps", "2.8"}, {"kept", "768"}, {"verified", "passed"}});
    expectColumns(rows[1], {{"block_size", "256"}, {"speedup_vs_cpu", "10"}, {"copy_fraction", "0.01"},
                            {"speedup_vs_cub", ""}});
    expectColumns(rows[2], {{"verified", "FAIL"}, {"note", failedRow().note}});  // commas, quotes and newlines survive
    expectColumns(rows[3], {{"verified", "skipped"}, {"npot", "true"}, {"median_ms", ""}});
}

// The context of a CSV report, in the JSON file beside it.
TEST(ContextReporter, WritesTheContextAsOneJsonObject) {
    std::FILE *file = std::tmpfile();
    auto reporter = Harness::makeContextReporter(file, "the test file");
    reporter->begin(sampleContext());
    reporter->add(cpuRow());
    reporter->endOp();
    reporter->end();
    const std::string text = TestSupport::readAndClose(file);
    const Json context = JsonReader(text).document();
    expectSampleContext(context);
    EXPECT_EQ(context.object.count("rows"), 0u);
}

// What the run learns by its end, the copy measured again, in the CSV's context file and
// at the end of a JSON report (its context was written first).
TEST(ClosingContext, TheLastCopyComesAtTheEnd) {
    Context closing = sampleContext();
    closing.copyBandwidthEndGBs = 3890.25;
    std::FILE *contextFile = std::tmpfile();
    std::FILE *jsonFile = std::tmpfile();
    std::vector<std::unique_ptr<Harness::Reporter>> reporters;
    reporters.push_back(Harness::makeContextReporter(contextFile, "the context file"));
    reporters.push_back(Harness::makeReporter(Format::Json, jsonFile, "the JSON file"));
    for (const auto &reporter : reporters) {
        reporter->begin(sampleContext());
        reporter->add(cpuRow());
        reporter->endOp();
        reporter->closingContext(closing);
        reporter->end();
    }
    const Json context = JsonReader(TestSupport::readAndClose(contextFile)).document();
    EXPECT_EQ(context["copy_bandwidth_end_GBps"].number, 3890.25);
    const Json json = JsonReader(TestSupport::readAndClose(jsonFile)).document();
    EXPECT_EQ(json["copy_bandwidth_end_GBps"].number, 3890.25);
    EXPECT_EQ(json["context"]["copy_bandwidth_end_GBps"].kind, Json::Kind::Null);
}

TEST(ContextReporter, SitsBesideTheCsv) {
    EXPECT_EQ(Harness::contextPathFor("results/sweep.csv"), "results/sweep.context.json");
    EXPECT_EQ(Harness::contextPathFor("a.b.csv"), "a.b.context.json");
}

TEST(CsvReporter, RowsAreOnDiskAsSoonAsTheyArrive) {
    const std::string path = testing::TempDir() + "reporter_flush.csv";
    std::FILE *file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    auto reporter = Harness::makeReporter(Format::Csv, file, "the test file");
    reporter->begin(sampleContext());
    reporter->add(cpuRow());
    std::ifstream partial(path);  // a sweep stopped here leaves a CSV with the header and one row
    std::vector<std::string> comments;
    std::stringstream content;
    content << partial.rdbuf();
    EXPECT_EQ(readCsv(content.str(), comments).size(), 2u);
    reporter->end();
    std::fclose(file);
    std::remove(path.c_str());
}

TEST(JsonReporter, ReadsBackContextAndRows) {
    const std::string text = report(Format::Json, {cpuRow(), gpuRow(), failedRow(), skippedRow()});
    const Json document = JsonReader(text).document();
    expectSampleContext(document["context"]);

    const std::vector<Json> &rows = document["rows"].array;
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0]["op"].string, "compact");
    EXPECT_EQ(rows[0]["backend"].string, "cpu");
    EXPECT_EQ(rows[0]["size"].number, 1024);
    EXPECT_EQ(rows[0]["npot"].kind, Json::Kind::Bool);
    EXPECT_FALSE(rows[0]["npot"].boolean);
    EXPECT_EQ(rows[0]["block_size"].kind, Json::Kind::Null);
    EXPECT_EQ(rows[0]["median_ms"].number, 2.5);
    EXPECT_EQ(rows[0]["kept"].number, 768);
    EXPECT_EQ(rows[1]["block_size"].number, 256);
    EXPECT_EQ(rows[1]["speedup_vs_cpu"].number, 10);
    EXPECT_EQ(rows[1]["speedup_vs_cub"].kind, Json::Kind::Null);
    EXPECT_EQ(rows[2]["verified"].string, "FAIL");
    EXPECT_EQ(rows[2]["note"].string, failedRow().note);  // escapes survive
    EXPECT_TRUE(rows[3]["npot"].boolean);
    EXPECT_EQ(rows[3]["median_ms"].kind, Json::Kind::Null);
}

TEST(JsonReporter, SaysWhetherItIsComplete) {
    const Json whole = JsonReader(report(Format::Json, {cpuRow()})).document();
    EXPECT_EQ(whole["complete"].kind, Json::Kind::Bool);
    EXPECT_TRUE(whole["complete"].boolean);
    EXPECT_EQ(whole.object.count("stopped"), 0u);
    const Json cut = JsonReader(report(Format::Json, {cpuRow()}, "stopped by SIGINT")).document();
    EXPECT_EQ(cut["complete"].kind, Json::Kind::Bool);
    EXPECT_FALSE(cut["complete"].boolean);
    EXPECT_EQ(cut["stopped"].string, "stopped by SIGINT");
    EXPECT_EQ(cut["rows"].array.size(), 1u);
}

// An interrupted table report ends with a line saying so; a whole one does not.
TEST(TableReporters, AnInterruptedReportSaysSoUnderItsLastTable) {
    const std::string whole = report(Format::Markdown, {cpuRow()});
    EXPECT_EQ(whole.find("Incomplete"), std::string::npos) << whole;
    const std::string markdown = report(Format::Markdown, {cpuRow()}, "stopped by SIGTERM");
    const std::string line =
        "**Incomplete: stopped by SIGTERM; the tables hold the cells finished before it.**\n";
    ASSERT_GE(markdown.size(), line.size());
    EXPECT_EQ(markdown.substr(markdown.size() - line.size()), line) << markdown;
    const std::string text = report(Format::Text, {cpuRow()}, "stopped by SIGINT");
    const std::string textLine = "Incomplete: stopped by SIGINT; the tables hold the cells finished before it.\n";
    ASSERT_GE(text.size(), textLine.size());
    EXPECT_EQ(text.substr(text.size() - textLine.size()), textLine) << text;
}

TEST(Tally, ExitStatusAndSummaryLines) {
    Harness::Tally tally;
    EXPECT_EQ(tally.exitStatus(), Harness::kExitVerified);
    tally.count(Row::Status::Skipped);
    tally.count(Row::Status::Skipped);
    EXPECT_EQ(tally.exitStatus(), Harness::kExitNothingRan);  // every one skipped
    tally.count(Row::Status::Passed);
    EXPECT_EQ(tally.exitStatus(), Harness::kExitVerified);  // some skipped, the rest verified
    EXPECT_EQ(tally.sweepSummary(), "1 cells verified, 0 failed, 2 skipped");
    EXPECT_EQ(tally.courseSummary(), "1 passed, 0 failed, 2 skipped");
    tally.count(Row::Status::Failed);
    EXPECT_EQ(tally.exitStatus(), Harness::kExitFailed);
    EXPECT_EQ(tally.sweepSummary(), "1 cells verified, 1 failed, 2 skipped");
    Harness::Tally failedOnly;
    failedOnly.count(Row::Status::Failed);
    EXPECT_EQ(failedOnly.exitStatus(), Harness::kExitFailed);
    EXPECT_EQ(Harness::kExitBadInput, 2);
    EXPECT_EQ(Harness::kExitNothingRan, 3);
}

TEST(JsonReporter, WithoutAGpuTheGpuFieldsAreNull) {
    std::FILE *file = std::tmpfile();
    auto reporter = Harness::makeReporter(Format::Json, file, "the test file");
    Context context = sampleContext();
    context.gpu.reset();
    reporter->begin(context);
    reporter->end();
    const std::string text = TestSupport::readAndClose(file);
    const Json document = JsonReader(text).document();
    EXPECT_EQ(document["context"]["gpu"].string, "none (no CUDA device)");
    EXPECT_EQ(document["context"]["sm_count"].kind, Json::Kind::Null);
    EXPECT_EQ(document["context"]["copy_bandwidth_GBps"].kind, Json::Kind::Null);
    EXPECT_EQ(document["context"]["launch_gap_us"].kind, Json::Kind::Null);
    EXPECT_TRUE(document["rows"].array.empty());
}

// The context of a JSON report, as a program reads it back.
Json jsonContext(const Context &context) {
    std::FILE *file = std::tmpfile();
    auto reporter = Harness::makeReporter(Format::Json, file, "the test file");
    reporter->begin(context);
    reporter->end();
    return JsonReader(TestSupport::readAndClose(file)).document()["context"];
}

// A fixed count is named; calls until the noise is known say so, not "0".
TEST(TextReporter, TheContextSaysHowManyCallsAFigureTakes) {
    Context fixed = sampleContext();
    EXPECT_EQ(jsonContext(fixed)["reps"].number, 5);
    Context adaptive = sampleContext();
    adaptive.reps = 0;
    EXPECT_EQ(jsonContext(adaptive)["reps"].string, "until the noise is known");
    std::FILE *file = std::tmpfile();
    auto reporter = Harness::makeReporter(Format::Text, file, "the test file");
    reporter->begin(adaptive);
    reporter->end();
    const std::string text = TestSupport::readAndClose(file);
    EXPECT_NE(text.find("Timed calls per cell: until the noise is known\n"), std::string::npos) << text;
}

TEST(JsonReporter, ContextNamesTheGpuTheBuildAndTheGpuStateAtTheStart) {
    const Json context = jsonContext(sampleContext());
    EXPECT_EQ(context["gpu_uuid"].string, "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
    EXPECT_EQ(context["l2_cache_MiB"].number, 60);
    EXPECT_EQ(context["nvcc_version"].string, "13.0.88");
    EXPECT_EQ(context["cuda_flags"].string, "-O3 -DNDEBUG");
    EXPECT_EQ(context["cuda_architectures"].string, "75-real,90-real,120");
    EXPECT_EQ(context["cccl_version"].string, "CCCL 3.0.1 (CUB 3.0.1, Thrust 3.0.1)");
    EXPECT_EQ(context["sm_clock_MHz_at_start"].number, 1980);
    EXPECT_EQ(context["memory_clock_MHz_at_start"].number, 2619);
    EXPECT_EQ(context["temperature_C_at_start"].number, 34);
    EXPECT_EQ(context["power_W_at_start"].number, 75.5);
    EXPECT_EQ(context["throttle_at_start"].string, "SW power cap");  // idle is not named

    const std::string text = report(Format::Text, {});
    EXPECT_NE(text.find("  GPU UUID: GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9\n"), std::string::npos) << text;
    EXPECT_NE(text.find("  SM clock at the start, MHz: 1980\n"), std::string::npos) << text;
    EXPECT_NE(text.find("  CCCL: CCCL 3.0.1 (CUB 3.0.1, Thrust 3.0.1)\n"), std::string::npos) << text;
}

// Without NVML every reading of the state at the start says so; without a limiting
// reason the limits read "none".
TEST(JsonReporter, WithoutNvmlTheGpuStateReadsUnavailable) {
    Context context = sampleContext();
    context.gpuStateAtStart = {};
    Json fields = jsonContext(context);
    for (const char *key : {"sm_clock_MHz_at_start", "memory_clock_MHz_at_start", "temperature_C_at_start",
                            "power_W_at_start", "throttle_at_start"}) {
        EXPECT_EQ(fields[key].kind, Json::Kind::String) << key;
        EXPECT_EQ(fields[key].string, "unavailable") << key;
    }
    context.gpuStateAtStart.throttleReasons = Harness::ThrottleReason::kGpuIdle;
    EXPECT_EQ(jsonContext(context)["throttle_at_start"].string, "none");
}

TEST(DeviceInfo, UuidReadsAsNvidiaSmiWritesIt) {
    const unsigned char bytes[16] = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
                                     0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9};
    EXPECT_EQ(Harness::gpuUuidText(bytes), "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
    const unsigned char zeros[16] = {};
    EXPECT_EQ(Harness::gpuUuidText(zeros), "GPU-00000000-0000-0000-0000-000000000000");
}

TEST(MarkdownReporter, TablesPasteIntoAReadme) {
    const std::string text = report(Format::Markdown, {cpuRow(), gpuRow(), failedRow(), skippedRow()});
    const std::vector<std::string> problems = GfmCheck::problems(text);
    EXPECT_TRUE(problems.empty()) << GfmCheck::describe(problems) << text;
    // A line that says where and when, then the whole context folded away.
    EXPECT_NE(text.find("## cis565_stream_compaction sweep\n\n"
                        "GPU: NVIDIA H200 · mode: cold · commit: abc1234 · date: 2025-01-31T12:00:00Z\n\n"
                        "<details><summary>Context</summary>\n\n- Run: 20250131T120000Z-3fa2\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("- GPU: NVIDIA H200\n"), std::string::npos) << text;
    EXPECT_NE(text.find("- Command: `cis565_stream_compaction --sizes 2^10 --output 'a \"b\".csv'`\n"), std::string::npos)
        << text;
    EXPECT_LT(text.find("</details>"), text.find("### compact")) << text;
    EXPECT_NE(text.find("**compact: median time, ms (10th–90th percentile)**"), std::string::npos) << text;
    EXPECT_NE(text.find("| size | block | cpu | efficient | naive | thrust |"), std::string::npos) << text;
    EXPECT_NE(text.find("| --- | ---: | ---: | ---: | ---: | ---: |"), std::string::npos) << text;
    // Three significant digits; the failure and the skip point to their footnotes.
    EXPECT_NE(text.find("| 2^10 | 256 | 2.50 (2.00–3.00) | 0.250 (0.200–0.500) | FAIL[^1] | — |"), std::string::npos)
        << text;
    EXPECT_NE(text.find("| 2^10 - 3 | 256 | — | — | — | skipped[^2] |"), std::string::npos) << text;
    EXPECT_NE(text.find("| 2^10 | 256 | 2.80 | 2.80 (1%) | FAIL[^1] | — |"), std::string::npos) << text;
    EXPECT_NE(text.find("| 2^10 | 256 | 10× cpu | FAIL[^1] | — |"), std::string::npos) << text;
    // A footnote is one line: the note's line breaks and control characters are spaces.
    EXPECT_NE(text.find("\n[^1]: naive compact, size 2^10, block 256: a[17] = 3, expected \"4\"  line two  \n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\n[^2]: no CUDA device\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("- FAIL"), std::string::npos) << text;
}

// Footnotes are numbered through the report: each op lists its own under its tables,
// a reason shared by several cells once, and a passed cell's note on its time.
TEST(MarkdownReporter, FootnotesAreNumberedThroughTheReport) {
    std::FILE *file = std::tmpfile();
    auto reporter = Harness::makeReporter(Format::Markdown, file, "the test file");
    reporter->begin(sampleContext());
    Row noted = gpuRow();
    noted.note = "the timer read 0 ms on 1 of 5 calls";
    Row otherSkip = skippedRow();
    otherSkip.backend = "cub";
    for (const Row &row : {cpuRow(), noted, skippedRow(), otherSkip}) reporter->add(row);
    reporter->endOp();
    Row scanSkip = skippedRow();
    scanSkip.op = Op::Scan;
    Row scanCpu = cpuRow();
    scanCpu.op = Op::Scan;
    scanCpu.kept.reset();
    for (const Row &row : {scanCpu, scanSkip}) reporter->add(row);
    reporter->endOp();
    reporter->end();
    const std::string text = TestSupport::readAndClose(file);

    const std::vector<std::string> problems = GfmCheck::problems(text);
    EXPECT_TRUE(problems.empty()) << GfmCheck::describe(problems) << text;
    EXPECT_NE(text.find("| 2^10 | 256 | 2.50 (2.00–3.00) | 0.250 (0.200–0.500)[^1] | — | — |"), std::string::npos)
        << text;
    EXPECT_NE(text.find("| 2^10 - 3 | 256 | — | — | skipped[^2] | skipped[^2] |"), std::string::npos) << text;
    EXPECT_NE(text.find("| 2^10 | 256 | 2.80 | 2.80 (1%) | — | — |"), std::string::npos) << text;  // the note is on the time
    EXPECT_NE(text.find("[^1]: efficient compact, size 2^10, block 256: the timer read 0 ms on 1 of 5 calls\n"
                        "[^2]: no CUDA device\n"),
              std::string::npos)
        << text;
    const std::size_t scan = text.find("### scan");
    ASSERT_NE(scan, std::string::npos) << text;
    EXPECT_NE(text.find("skipped[^3]", scan), std::string::npos) << text;
    EXPECT_NE(text.find("\n[^3]: no CUDA device\n", scan), std::string::npos) << text;
}

// The checker is no formality: a report made to break it is caught.
TEST(MarkdownReporter, TheCheckerCatchesACellTooMany) {
    std::string text = report(Format::Markdown, {cpuRow(), gpuRow()});
    const std::size_t row = text.find("| 2^10 | 256 | 2.50");
    ASSERT_NE(row, std::string::npos) << text;
    text.insert(row, "| x ");
    EXPECT_FALSE(GfmCheck::problems(text).empty()) << text;
}

TEST(TextReporter, ColumnsLineUp) {
    const std::string text = report(Format::Text, {cpuRow(), gpuRow()});
    std::istringstream lines(text);
    std::vector<std::string> table;
    bool inTable = false;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("compact: median time", 0) == 0) inTable = true;
        else if (inTable && line.empty()) break;
        else if (inTable) table.push_back(line);
    }
    ASSERT_EQ(table.size(), 3u) << text;  // header, rule, one row
    EXPECT_NE(table[0].find("size"), std::string::npos);
    const auto width = [](const std::string &s) {
        return std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
    };
    EXPECT_EQ(width(table[0]), width(table[1]));
    EXPECT_EQ(width(table[1]), width(table[2]));
}

// Every character that CSV or JSON must quote or escape, alone and together, in a row's
// note and in the context's command line: each reads back as it was written.
TEST(Reports, QuotesBackslashesCommasAndNewlinesRoundTrip) {
    const std::vector<std::string> texts = {"say \"hi\"", "C:\\temp\\new", "a,b", "line\nnext", "cr\rhere",
                                            "tab\there", "\"", "\\", "ends with \\", "all: \"a,b\"\\\n\r\t\x01 end"};
    for (const std::string &text : texts) {
        SCOPED_TRACE(testing::PrintToString(text));
        Row row = cpuRow();
        row.note = text;
        std::vector<std::string> comments;
        const auto records = readCsv(report(Format::Csv, {row}), comments);
        ASSERT_EQ(records.size(), 2u);
        ASSERT_EQ(records[1].size(), records[0].size());
        EXPECT_EQ(records[1].back(), text);  // the note is the last column
        const Json document = JsonReader(report(Format::Json, {row})).document();
        ASSERT_EQ(document["rows"].array.size(), 1u);
        EXPECT_EQ(document["rows"].array[0]["note"].string, text);

        std::FILE *file = std::tmpfile();
        auto reporter = Harness::makeReporter(Format::Json, file, "the test file");
        Context context = sampleContext();
        context.commandLine = text;
        reporter->begin(context);
        reporter->end();
        const std::string json = TestSupport::readAndClose(file);
        EXPECT_EQ(JsonReader(json).document()["context"]["command_line"].string, text);
    }
}

// The timed column names how the calls were timed, from the row's timing alone.
TEST(CsvReporter, TimedNamesHowTheCallsWereTimed) {
    struct Case {
        bool cold, held, synchronizes, byImplementation;
        const char *says;
    };
    for (const Case &c : {Case{false, false, false, false, "host timer"}, Case{true, true, false, false, "events (stream held)"},
                          Case{true, false, true, false, "events (host synchronisation)"},
                          Case{true, false, false, false, "events"}, Case{false, false, false, true, "implementation"}}) {
        Row row = gpuRow();
        row.timing.cold = c.cold;
        row.timing.held = c.held;
        row.timing.synchronizes = c.synchronizes;
        row.timing.byImplementation = c.byImplementation;
        std::vector<std::string> comments;
        const auto records = readCsv(report(Format::Csv, {row}), comments);
        ASSERT_EQ(records.size(), 2u);
        const auto column = std::find(records[0].begin(), records[0].end(), "timed") - records[0].begin();
        EXPECT_EQ(records[1][static_cast<std::size_t>(column)], c.says);
    }
}

// A speed-up whose 95% interval covers 1 reads as a tie; one whose interval lies above or
// below 1 reads as the ratio alone.
TEST(TextReporter, ASpeedupWhoseIntervalCoversOneIsATie) {
    Row gpu = gpuRow();
    gpu.speedupVsCub = 1.01;
    gpu.speedupVsCubRange = Harness::Interval{1.01, 0.98, 1.04};
    gpu.speedupVsCpuRange = Harness::Interval{10, 9.5, 10.5};
    const std::string tie = report(Format::Text, {cpuRow(), gpu});
    EXPECT_TRUE(TestSupport::contains(tie, "10× cpu, 1.01× cub (tie)"));
    gpu.speedupVsCubRange = Harness::Interval{1.01, 1.005, 1.015};
    const std::string faster = report(Format::Text, {cpuRow(), gpu});
    EXPECT_TRUE(TestSupport::contains(faster, "10× cpu, 1.01× cub\n"));
    EXPECT_FALSE(TestSupport::contains(faster, "(tie)"));
}

// The text table, line by line: sizes left-aligned, every other column right-aligned to
// its widest cell, and two spaces between columns.
TEST(TextReporter, NumbersAlignRightAndSizesLeft) {
    Row cpu = cpuRow(), gpu = gpuRow();
    Row cpuCompanion = cpu, gpuCompanion = gpu;
    cpuCompanion.size = gpuCompanion.size = 1021;
    cpuCompanion.npot = gpuCompanion.npot = true;
    cpuCompanion.timing = timed(12.5, 10, 15, 5);
    gpuCompanion.timing = timed(125.5, 100.25, 150, 5);
    gpuCompanion.bandwidthGBs = 1234.5;
    gpuCompanion.speedupVsCpu = 123.4;
    gpuCompanion.speedupVsCub = 0.5;
    const std::string text = report(Format::Text, {cpu, gpu, cpuCompanion, gpuCompanion});
    const std::string tables =
        "compact: median time, ms (10th–90th percentile)\n"
        "  size      block   cpu    p10–p90  efficient      p10–p90\n"
        "  --------  -----  ----  ---------  ---------  -----------\n"
        "  2^10        256  2.50  2.00–3.00      0.250  0.200–0.500\n"
        "  2^10 - 3    256  12.5  10.0–15.0        126      100–150\n"
        "\n"
        "compact: effective bandwidth, GB/s (% of measured copy bandwidth)\n"
        "  size      block   cpu  efficient\n"
        "  --------  -----  ----  ---------\n"
        "  2^10        256  2.80  2.80 (1%)\n"
        "  2^10 - 3    256  2.80  1230 (1%)\n"
        "\n"
        "compact: speed-up (over cpu, over cub)\n"
        "  size      block           efficient\n"
        "  --------  -----  ------------------\n"
        "  2^10        256             10× cpu\n"
        "  2^10 - 3    256  123× cpu, 0.5× cub\n"
        "\n";
    const auto at = text.find("compact: median time");
    ASSERT_NE(at, std::string::npos) << text;
    EXPECT_EQ(text.substr(at), tables);
}

// Times, bandwidths and ratios at the boundaries where their formats change.
TEST(MarkdownReporter, FiguresChangeFormatAtTheirBoundaries) {
    struct Case {
        double ms;
        double gbs;
        double ratio;
        const char *time, *bandwidth, *speedup;
    };
    // Times in µs when the table's largest is below 1 ms (999.4 µs still is), else in ms.
    const Case cases[] = {
        {0.123456, 99.94, 99.94, "123 (123–123)", "99.9", "99.9× cpu"},
        {0.00123, 0.001234, 1.5, "1.23 (1.23–1.23)", "0.00123", "1.5× cpu"},
        {0.9994, 999.4, 1.5, "999 (999–999)", "999", "1.5× cpu"},
        {0.9996, 999.6, 1.5, "1.00 (1.00–1.00)", "1000", "1.5× cpu"},
        {1, 100, 100, "1.00 (1.00–1.00)", "100", "100× cpu"},
        {9.996, 9.996, 1.5, "10.0 (10.0–10.0)", "10.0", "1.5× cpu"},
        {99.99, 1234.4, 1234.4, "100 (100–100)", "1230", "1234× cpu"},
        {100, 5, 2.5, "100 (100–100)", "5.00", "2.5× cpu"},
        {250, 0.5, 999.7, "250 (250–250)", "0.500", "1000× cpu"},
        {12345.6, 45678, 1.5, "12300 (12300–12300)", "45700", "1.5× cpu"},
    };
    for (const Case &c : cases) {
        Row row = gpuRow();
        row.timing = timed(c.ms, c.ms, c.ms, 5);
        row.bandwidthGBs = c.gbs;
        row.copyFraction.reset();
        row.speedupVsCpu = c.ratio;
        const std::string text = report(Format::Markdown, {row});
        EXPECT_NE(text.find(c.ms < 0.9995 ? "median time, µs" : "median time, ms"), std::string::npos) << text;
        EXPECT_NE(text.find("| 2^10 | 256 | " + std::string(c.time) + " |"), std::string::npos) << text;
        EXPECT_NE(text.find("| 2^10 | 256 | " + std::string(c.bandwidth) + " |"), std::string::npos) << text;
        EXPECT_NE(text.find("| 2^10 | 256 | " + std::string(c.speedup) + " |"), std::string::npos) << text;
    }
}

// Three significant digits, trailing zeros kept, no exponent; rounding may step a decade.
TEST(Tables, ThreeSignificantDigits) {
    const std::pair<double, const char *> cases[] = {
        {0.00123, "0.00123"}, {0.05, "0.0500"},   {1.2, "1.20"},      {45.6, "45.6"},   {789, "789"},
        {1234, "1230"},       {1235.5, "1240"},   {9.996, "10.0"},    {0.09996, "0.100"}, {999.6, "1000"},
        {-2.5, "-2.50"},      {0, "0"},           {123456789, "123000000"}};
    for (const auto &[value, text] : cases) EXPECT_EQ(Harness::threeDigits(value), text) << value;
    EXPECT_EQ(Harness::threeDigits(std::numeric_limits<double>::infinity()), "");
    EXPECT_EQ(Harness::threeDigits(std::nan("")), "");
}

// A text table pads each column to its widest cell, labels left, figures right; a
// markdown table escapes a '|' inside a cell.
TEST(Tables, TextAndMarkdownLayout) {
    Harness::Table table{"title", {"name", "n", "verdict"}, {{"a", "1", "same"}, {"bb|c", "100", "x"}},
                         {Harness::Table::Align::Left, Harness::Table::Align::Right, Harness::Table::Align::Left}};
    EXPECT_EQ(Harness::textTable(table),
              "title\n"
              "  name    n  verdict\n"
              "  ----  ---  -------\n"
              "  a       1  same\n"
              "  bb|c  100  x\n"
              "\n");
    EXPECT_EQ(Harness::markdownTable(table),
              "**title**\n\n"
              "| name | n | verdict |\n"
              "| --- | ---: | --- |\n"
              "| a | 1 | same |\n"
              "| bb\\|c | 100 | x |\n"
              "\n");
}

// A stream whose every write fails as on a full disk (ENOSPC), on any machine.
ssize_t writeToFullDisk(void *, const char *, size_t) {
    errno = ENOSPC;
    return -1;
}

// A report that cannot be written throws at its first write, naming where it was going
// and why, in every format.
TEST(Reports, AWriteThatFailsThrowsNamingTheDestinationAndWhy) {
    for (Format format : {Format::Text, Format::Markdown, Format::Csv, Format::Json}) {
        cookie_io_functions_t io{};
        io.write = writeToFullDisk;
        std::FILE *file = fopencookie(nullptr, "w", io);
        ASSERT_NE(file, nullptr);
        auto reporter = Harness::makeReporter(format, file, "'full.csv'");
        try {
            reporter->begin(sampleContext());
            ADD_FAILURE() << "no exception";
        } catch (const std::runtime_error &e) {
            EXPECT_EQ(std::string(e.what()), std::string("cannot write 'full.csv': ") + std::strerror(ENOSPC));
        }
        std::fclose(file);
    }
}

}  // namespace

// One slow call (18 ms) among calls of 0.3 µs: the table keeps µs, chosen by the medians,
// and shows the 10th to 90th percentile, which the outlier does not reach; CSV and JSON
// keep the max beside the percentiles.
TEST(Tables, OneOutlierMovesNeitherTheUnitNorTheSpread) {
    Row row = gpuRow();
    row.timing = timed(0.0003, 0.00028, 0.00033, 200);
    row.timing.maxMs = 18;
    for (Format format : {Format::Text, Format::Markdown}) {
        const std::string text = report(format, {row});
        EXPECT_NE(text.find("compact: median time, µs (10th–90th percentile)"), std::string::npos) << text;
        EXPECT_NE(text.find(format == Format::Text ? "0.300  0.280–0.330" : "| 0.300 (0.280–0.330) |"),
                  std::string::npos)
            << text;
        EXPECT_EQ(text.find("18000"), std::string::npos) << text;
    }
    std::vector<std::string> comments;
    const auto records = readCsv(report(Format::Csv, {row}), comments);
    ASSERT_EQ(records.size(), 2u);
    const auto column = [&records](const std::string &key) {
        const auto at = std::find(records[0].begin(), records[0].end(), key);
        return at == records[0].end() ? std::string("missing") : records[1][static_cast<std::size_t>(at - records[0].begin())];
    };
    EXPECT_EQ(column("max_ms"), "18");
    EXPECT_EQ(column("p10_ms"), "0.00028");
    EXPECT_EQ(column("p90_ms"), "0.00033");
}

TEST(Tables, TheUnitFollowsTheLargestMedian) {
    EXPECT_STREQ(Harness::timeUnitFor(0.9994).name, "µs");
    EXPECT_STREQ(Harness::timeUnitFor(0.9996).name, "ms");
}
