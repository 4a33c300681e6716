// A sweep's reports with --explain (src/report/row_schema.cpp, text_report.cpp): a row's
// traced call in the CSV's and JSON's columns, and in a table of its own in text and
// markdown; a report without it has empty columns and no such table.

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gfm_check.h"
#include "measure/explain.h"
#include "report/json_report.h"
#include "report/reporters.h"
#include "report/row_schema.h"
#include "test_support.h"

namespace {

using Harness::Explanation;
using Harness::Row;
using Harness::Trace;
using Harness::TraceEvent;

// Naive's scan at 2^20: 20 kernels of 10 us, 2 us apart, the stream held.
Explanation naiveExplanation() {
    Trace trace;
    trace.held = true;
    trace.callEndNs = 50000;
    for (int i = 0; i < 20; ++i) {
        TraceEvent kernel;
        kernel.name = "kernScanPass<false>";
        kernel.startNs = 100000 + i * 12000LL;
        kernel.endNs = kernel.startNs + 10000;
        trace.events.push_back(kernel);
    }
    return Harness::explain(trace, {8.0 * (1 << 20), 200});
}

Row explainedRow(const std::string &backend, std::optional<Explanation> explanation) {
    Row row;
    row.op = Harness::Op::Scan;
    row.backend = backend;
    row.size = 1 << 20;
    row.blockSize = 128;
    row.timing = TestSupport::timingOf(0.25, 0.24, 0.26, 10);
    row.explanation = std::move(explanation);
    return row;
}

std::vector<Row> rows() {
    Trace none;
    none.unavailable = "another tool holds CUPTI (Nsight Systems, Nsight Compute, cuda-gdb or compute-sanitizer)";
    return {explainedRow("naive", naiveExplanation()), explainedRow("cub", Harness::explain(none, {})),
            explainedRow("efficient", std::nullopt)};
}

std::string report(Harness::Format format, const std::vector<Row> &all) {
    std::FILE *file = std::tmpfile();
    auto reporter = Harness::makeReporter(format, file, "the test file");
    reporter->begin(TestSupport::sampleContext());
    for (const Row &row : all) reporter->add(row);
    reporter->endOp();
    reporter->end();
    return TestSupport::readAndClose(file);
}

std::string field(const Row &row, const std::string &key) {
    for (const Harness::Field &f : Harness::rowFields(row)) {
        if (f.key == key) return Harness::plainText(f.value);
    }
    ADD_FAILURE() << "no field " << key;
    return "";
}

TEST(ExplainReports, RowFields) {
    const std::vector<Row> all = rows();
    EXPECT_EQ(field(all[0], "kernels"), "20");
    EXPECT_EQ(field(all[0], "kernel_ms"), "0.2");
    EXPECT_EQ(field(all[0], "between_ms"), "0.038");
    EXPECT_EQ(field(all[0], "traced_ms"), "0.238");
    EXPECT_EQ(field(all[0], "explain"), "kernel-bound: 20 kernels busy 84% of the call, at 21% of copy");
    // Unavailable: no figures, the reason in its place.
    EXPECT_EQ(field(all[1], "kernels"), "");
    EXPECT_EQ(field(all[1], "traced_ms"), "");
    EXPECT_EQ(field(all[1], "explain"), "unavailable: another tool holds CUPTI (Nsight Systems, Nsight Compute, "
                                        "cuda-gdb or compute-sanitizer)");
    // Without --explain: every column empty.
    for (const char *key : {"kernels", "kernel_ms", "between_ms", "traced_ms", "explain"}) {
        EXPECT_EQ(field(all[2], key), "") << key;
    }
}

TEST(ExplainReports, JsonMembers) {
    const nlohmann::json document = nlohmann::json::parse(report(Harness::Format::Json, rows()));
    const nlohmann::json &first = document.at("rows").at(0);
    EXPECT_EQ(first.at("kernels"), 20);
    EXPECT_EQ(first.at("explain"), "kernel-bound: 20 kernels busy 84% of the call, at 21% of copy");
    EXPECT_TRUE(document.at("rows").at(2).at("kernels").is_null());
    EXPECT_TRUE(document.at("rows").at(2).at("explain").is_null());
}

// A JSON report read back keeps each row's verdict, its bound (from the verdict's first
// words) and the traced call's figures; an untraced row keeps none.
TEST(ExplainReports, ReadBackFromJson) {
    std::istringstream in(report(Harness::Format::Json, rows()));
    const Harness::JsonReport back = Harness::readJsonReport(in, "the test file");
    ASSERT_EQ(back.rows.size(), 3u);
    const Explanation &naive = *back.rows[0].explanation;
    EXPECT_EQ(naive.verdict, "kernel-bound: 20 kernels busy 84% of the call, at 21% of copy");
    EXPECT_EQ(naive.bound, Harness::Bound::KernelBound);
    EXPECT_TRUE(naive.traced());
    EXPECT_EQ(naive.kernels, 20);
    EXPECT_DOUBLE_EQ(naive.kernelMs, naiveExplanation().kernelMs);
    EXPECT_DOUBLE_EQ(naive.betweenMs, naiveExplanation().betweenMs);
    EXPECT_DOUBLE_EQ(naive.callMs, naiveExplanation().callMs);
    EXPECT_EQ(back.rows[1].explanation->bound, Harness::Bound::Unavailable);
    EXPECT_FALSE(back.rows[2].explanation.has_value());
    EXPECT_EQ(Harness::boundOfVerdict("most of the time in 1 cudaMalloc inside the timer (60% of the call)"),
              Harness::Bound::InsideTimer);
    EXPECT_EQ(Harness::boundOfVerdict("launch-bound: 21 kernels, 78% of the call between them"),
              Harness::Bound::LaunchBound);
    EXPECT_EQ(Harness::boundOfVerdict("host only: a CPU back end launches no GPU work (not traced)"),
              Harness::Bound::HostOnly);
}

// Text: a table of the traced calls after the op's other tables, a line per row that has one.
TEST(ExplainReports, TextTable) {
    const std::string text = report(Harness::Format::Text, rows());
    const std::size_t table = text.find("scan: one traced call of each figure (--explain), µs\n");
    ASSERT_NE(table, std::string::npos) << text;
    EXPECT_GT(table, text.find("scan: effective bandwidth")) << text;
    EXPECT_NE(text.find("  2^20    128  naive          20         200     38.0     238  kernel-bound: 20 kernels "
                        "busy 84% of the call, at 21% of copy\n",
                        table),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  2^20    128  cub             —           —        —       —  unavailable: another "
                        "tool holds CUPTI",
                        table),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("efficient", table), std::string::npos) << text;  // no traced call, no line
}

TEST(ExplainReports, MarkdownTableOfItsOwn) {
    const std::string text = report(Harness::Format::Markdown, rows());
    EXPECT_NE(text.find("**scan: one traced call of each figure (--explain), µs**\n\n| size | block | back end | kernels | "
                        "in kernels | between | traced | verdict |\n| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |\n"
                        "| 2^20 | 128 | naive | 20 | 200 | 38.0 | 238 | kernel-bound: 20 kernels busy 84% of the call, "
                        "at 21% of copy |\n"),
              std::string::npos)
        << text;
    const std::vector<std::string> problems = GfmCheck::problems(text);
    EXPECT_TRUE(problems.empty()) << GfmCheck::describe(problems) << text;
}

TEST(ExplainReports, NoTableWithoutExplain) {
    const std::vector<Row> plain = {explainedRow("naive", std::nullopt)};
    for (Harness::Format format : {Harness::Format::Text, Harness::Format::Markdown}) {
        EXPECT_EQ(report(format, plain).find("traced call"), std::string::npos);
    }
}

}  // namespace
