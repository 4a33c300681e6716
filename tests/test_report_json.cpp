// A JSON report read back (readJsonReport): rows written through the JSON reporter come
// back equal, to the last bit of every figure, with the context they were written with;
// text that is not such a report is refused naming what is wrong.

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/json_report.h"
#include "report/reporters.h"
#include "test_support.h"

namespace {

using Harness::Context;
using Harness::Row;

// Figures that six significant digits would not keep.
Row measuredRow() {
    Row row;
    row.op = Harness::Op::Partition;
    row.backend = "decoupled";
    row.size = (1LL << 31) + 17;
    row.npot = true;
    row.blockSize = 512;
    row.note = "6 rounds in 3 processes: \"medians\"\n\t\u00b5s";
    Harness::Timing &t = row.timing;
    t.samples = 4097;
    t.medianMs = 0.1 + 0.2;
    t.meanMs = 1.0 / 3;
    t.stddevMs = 2.718281828459045e-5;
    t.minMs = 0.29999999999999993;
    t.maxMs = 18.000000000000004;
    t.p10Ms = 0.2999999999999999;
    t.p90Ms = 0.31415926535897931;
    t.rounds = 6;
    t.roundsError = 0.07;  // 7.000000000000001% as a percentage
    t.held = true;
    t.cold = true;
    t.outOfTime = true;
    row.kept = 1234567891LL;
    row.bandwidthGBs = 4321.123456789;
    row.copyFraction = 0.8765432109876;
    row.copyFractionRange = Harness::Interval{0.8765432109876, 0.81234567, 0.91234567};
    row.speedupVsCpu = 123.456789012;
    row.speedupVsCub = 0.987654321;
    row.speedupVsCubRange = Harness::Interval{0.987654321, 0.95, 1.0000001};
    row.launchBound = true;
    row.interleaved = true;
    row.smClockMHz = 1980;
    row.temperatureC = 61;
    row.powerW = 612.75;
    row.throttled = true;
    return row;
}

Row otherRows(Row::Status status) {
    Row row;
    row.op = Harness::Op::Scan;
    row.backend = "cpu";
    row.size = 1024;
    row.status = status;
    row.note = status == Row::Status::Skipped ? "no CUDA device" : "a[3] is 1; expected 2";
    if (status == Row::Status::Failed) {
        row.timing = TestSupport::timingOf(0.7, 0.6, 0.9, 5);
        row.timing.rounds = 1;
        row.timing.synchronizes = true;
        row.timing.byImplementation = true;
    }
    return row;
}

void expectSameRow(const Row &a, const Row &b) {
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.backend, b.backend);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.npot, b.npot);
    EXPECT_EQ(a.blockSize, b.blockSize);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.note, b.note);
    EXPECT_EQ(a.kept, b.kept);
    const Harness::Timing &s = a.timing, &t = b.timing;
    EXPECT_EQ(s.samples, t.samples);
    for (const auto &[x, y] : {std::pair{s.medianMs, t.medianMs}, {s.meanMs, t.meanMs}, {s.stddevMs, t.stddevMs},
                               {s.minMs, t.minMs}, {s.maxMs, t.maxMs}, {s.p10Ms, t.p10Ms}, {s.p90Ms, t.p90Ms},
                               {s.roundsError, t.roundsError}}) {
        EXPECT_EQ(x, y);  // bit for bit
    }
    EXPECT_EQ(s.rounds, t.rounds);
    EXPECT_EQ(s.held, t.held);
    EXPECT_EQ(s.synchronizes, t.synchronizes);
    EXPECT_EQ(s.byImplementation, t.byImplementation);
    EXPECT_EQ(s.cold, t.cold);
    EXPECT_EQ(s.outOfTime, t.outOfTime);
    EXPECT_EQ(a.bandwidthGBs, b.bandwidthGBs);
    EXPECT_EQ(a.copyFraction, b.copyFraction);
    EXPECT_EQ(a.speedupVsCpu, b.speedupVsCpu);
    EXPECT_EQ(a.speedupVsCub, b.speedupVsCub);
    for (const auto &[x, y] : {std::pair{&a.copyFractionRange, &b.copyFractionRange},
                               {&a.speedupVsCpuRange, &b.speedupVsCpuRange},
                               {&a.speedupVsCubRange, &b.speedupVsCubRange}}) {
        ASSERT_EQ(x->has_value(), y->has_value());
        if (*x) {
            EXPECT_TRUE((*x)->value == (*y)->value && (*x)->low == (*y)->low && (*x)->high == (*y)->high);
        }
    }
    EXPECT_EQ(a.launchBound, b.launchBound);
    EXPECT_EQ(a.interleaved, b.interleaved);
    EXPECT_EQ(a.smClockMHz, b.smClockMHz);
    EXPECT_EQ(a.temperatureC, b.temperatureC);
    EXPECT_EQ(a.powerW, b.powerW);
    EXPECT_EQ(a.throttled, b.throttled);
}

// The reports' sample context with figures that six significant digits would not keep,
// and every field that the reader takes back set.
Context sampleContext() {
    Context c = TestSupport::sampleContext();
    c.mode = "hot";
    c.gpu->globalMemoryBytes = 150ULL << 30;
    c.gpu->theoreticalBandwidthGBs = 4800.5;
    c.copyBandwidthGBs = 3900.123456789;
    c.copyNoise = 0.0125;
    c.launchFloors = "cub scan 0.0031 ms";
    c.launchGapUs = 1.4191;
    c.l2Flush = "a 120 MiB buffer";
    c.gitRevision = "abc1234-dirty";
    c.gpuStateAtStart.memoryClockMHz.reset();  // written "unavailable"
    c.reps = 0;  // until the noise is known
    c.warmup = 2;
    c.sampling = "until the noise is below 0.5%";
    return c;
}

std::string written(const Context &context, const std::vector<Row> &rows, const std::string &stoppedBy,
                    double copyEnd) {
    std::FILE *file = std::tmpfile();
    auto reporter = Harness::makeReporter(Harness::Format::Json, file, "the test file");
    reporter->begin(context);
    for (const Row &row : rows) reporter->add(row);
    reporter->endOp();
    Context closing = context;
    closing.copyBandwidthEndGBs = copyEnd;
    reporter->closingContext(closing);
    if (!stoppedBy.empty()) reporter->stop(stoppedBy);
    reporter->end();
    return TestSupport::readAndClose(file);
}

Harness::JsonReport readBack(const std::string &text) {
    std::istringstream in(text);
    return Harness::readJsonReport(in, "'r.json'");
}

}  // namespace

TEST(JsonReportRead, RowsComeBackEqual) {
    const std::vector<Row> rows = {measuredRow(), otherRows(Row::Status::Failed), otherRows(Row::Status::Skipped)};
    const Harness::JsonReport report = readBack(written(sampleContext(), rows, "", 0));
    ASSERT_EQ(report.rows.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        SCOPED_TRACE(i);
        expectSameRow(report.rows[i], rows[i]);
    }
    EXPECT_TRUE(report.complete);
    EXPECT_EQ(report.stopReason, "");
}

TEST(JsonReportRead, TheContextComesBack) {
    const Context c = sampleContext();
    const Harness::JsonReport report = readBack(written(c, {measuredRow()}, "stopped by SIGINT", 3890.25));
    const Context &r = report.context;
    EXPECT_FALSE(report.complete);
    EXPECT_EQ(report.stopReason, "stopped by SIGINT");
    for (const auto &[x, y] : {std::pair{r.runId, c.runId}, {r.date, c.date}, {r.mode, c.mode},
                               {r.commandLine, c.commandLine}, {r.version, c.version}, {r.launchFloors, c.launchFloors},
                               {r.launchGapMethod, c.launchGapMethod}, {r.l2Flush, c.l2Flush}, {r.hostCpu, c.hostCpu},
                               {r.hostCpus, c.hostCpus}, {r.buildType, c.buildType}, {r.gitRevision, c.gitRevision},
                               {r.nvccVersion, c.nvccVersion}, {r.cudaFlags, c.cudaFlags},
                               {r.cudaArchitectures, c.cudaArchitectures}, {r.ccclVersion, c.ccclVersion},
                               {r.keep, c.keep}, {r.sampling, c.sampling}}) {
        EXPECT_EQ(x, y);
    }
    ASSERT_TRUE(r.gpu.has_value());
    EXPECT_EQ(r.gpu->name, c.gpu->name);
    EXPECT_EQ(r.gpu->uuid, c.gpu->uuid);
    EXPECT_EQ(r.gpu->computeMajor, 9);
    EXPECT_EQ(r.gpu->computeMinor, 0);
    EXPECT_EQ(r.gpu->multiprocessors, 132);
    EXPECT_EQ(r.gpu->globalMemoryBytes, c.gpu->globalMemoryBytes);
    EXPECT_EQ(r.gpu->l2CacheBytes, c.gpu->l2CacheBytes);
    EXPECT_EQ(r.gpu->theoreticalBandwidthGBs, c.gpu->theoreticalBandwidthGBs);
    EXPECT_EQ(r.gpu->driverVersion, 13000);
    EXPECT_EQ(r.gpu->runtimeVersion, 12080);
    EXPECT_EQ(r.copyBandwidthGBs, c.copyBandwidthGBs);
    EXPECT_EQ(r.copyBandwidthEndGBs, 3890.25);  // measured after the last row
    EXPECT_EQ(r.copyBytes, c.copyBytes);
    EXPECT_EQ(r.copyReps, 15);
    EXPECT_DOUBLE_EQ(r.copyNoise, 0.0125);
    EXPECT_EQ(r.launchGapUs, c.launchGapUs);
    EXPECT_EQ(r.processes, 3);
    EXPECT_EQ(r.gpuStateAtStart.smClockMHz, 1980u);
    EXPECT_FALSE(r.gpuStateAtStart.memoryClockMHz.has_value());  // "unavailable"
    EXPECT_EQ(r.gpuStateAtStart.temperatureC, 34u);
    EXPECT_EQ(r.gpuStateAtStart.powerW, 75.5);
    EXPECT_EQ(r.seed, 565u);
    EXPECT_EQ(r.reps, 0);
    EXPECT_EQ(r.warmup, 2);

    Context cpuOnly = c;
    cpuOnly.gpu.reset();
    EXPECT_FALSE(readBack(written(cpuOnly, {}, "", 0)).context.gpu.has_value());
}

TEST(JsonReportRead, TextThatIsNotAReportIsRefusedNamingWhy) {
    const std::string good = written(sampleContext(), {measuredRow()}, "", 0);
    const struct {
        std::string text, says;
    } cases[] = {
        {good.substr(0, good.size() / 2), "'r.json' is not JSON"},
        {"[1, 2]", "'r.json' is not an object"},
        {"{\"context\": {}}", "it has no \"rows\" list"},
        {"{\"context\": {}, \"rows\": [3]}", "row 1 is not an object"},
        {"{\"context\": {}, \"rows\": [{\"op\": \"scan\", \"size\": 4, \"verified\": \"passed\"}]}", "row 1 has no \"backend\""},
        {"{\"context\": {}, \"rows\": [{\"op\": \"scna\", \"backend\": \"cpu\", \"size\": 4, \"verified\": \"passed\"}]}",
         "\"op\" is 'scna'"},
        {"{\"context\": {}, \"rows\": [{\"op\": \"scan\", \"backend\": \"cpu\", \"size\": \"4\", \"verified\": \"passed\"}]}",
         "row 1: \"size\" is \"4\", not an integer"},
        {"{\"context\": {}, \"rows\": [{\"op\": \"scan\", \"backend\": \"cpu\", \"size\": 4, \"verified\": \"ok\"}]}",
         "\"verified\" is 'ok'; expected passed, FAIL or skipped"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.text);
        try {
            readBack(c.text);
            ADD_FAILURE() << "read";
        } catch (const std::runtime_error &e) {
            EXPECT_TRUE(TestSupport::contains(e.what(), c.says)) << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        }
    }
}
