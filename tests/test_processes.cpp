// A sweep in several processes (--processes): each cell's figures pooled over the
// processes (poolProcesses) against the statistics of every call together, the
// children's verdicts on the parent's rows, a child's command line, and the one way a
// child process is started (child_process.h). The real program's children are run by
// run_cli_checks.sh and run_interrupt_check.sh.

#include <chrono>
#include <cmath>
#include <csignal>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <unistd.h>

#include "platform/child_process.h"
#include "report/reporters.h"
#include "sweep/processes.h"

namespace {

using namespace Harness;

// A row of the cell that these five fields name (CellKey), with nothing measured yet.
Row cell(Op op, const std::string &backend, long long size, bool npot, std::optional<int> block) {
    Row row;
    std::tie(row.op, row.backend, row.size, row.npot, row.blockSize) = std::tie(op, backend, size, npot, block);
    return row;
}

// Three processes' calls, summarized each; the pooled figures against every call
// summarized together, the median as the mean of the three medians.
TEST(ProcessPooling, PoolsTheProcessesSummariesAsTheirCallsTogether) {
    const std::vector<std::vector<double>> calls = {
        {1.0, 1.2, 1.1, 1.4, 0.9}, {2.0, 2.5, 2.2}, {1.5, 1.6, 1.7, 1.5, 1.8, 1.9, 1.6}};
    std::vector<Statistics> processes;
    std::vector<double> all, medians;
    for (const auto &each : calls) {
        processes.push_back(summarize(each));
        medians.push_back(processes.back().medianMs);
        all.insert(all.end(), each.begin(), each.end());
    }
    processes.push_back(Statistics{});  // a process without samples is left out
    const PooledRounds pooled = poolProcesses(processes);
    const Statistics together = summarize(all);
    EXPECT_EQ(pooled.all.samples, 15);
    EXPECT_NEAR(pooled.all.meanMs, together.meanMs, 1e-12);
    EXPECT_NEAR(pooled.all.stddevMs, together.stddevMs, 1e-12);
    EXPECT_DOUBLE_EQ(pooled.all.minMs, 0.9);
    EXPECT_DOUBLE_EQ(pooled.all.maxMs, 2.5);
    // medians 1.1, 2.2 and 1.6
    EXPECT_EQ(medians, (std::vector<double>{1.1, 2.2, 1.6}));
    const double mean = (1.1 + 2.2 + 1.6) / 3;
    EXPECT_NEAR(pooled.all.medianMs, mean, 1e-12);
    EXPECT_EQ(pooled.all.rounds, 3);
    const double sd = std::sqrt((std::pow(1.1 - mean, 2) + std::pow(2.2 - mean, 2) + std::pow(1.6 - mean, 2)) / 2);
    EXPECT_NEAR(pooled.all.roundsError, sd / mean / std::sqrt(3.0), 1e-12);
    EXPECT_NEAR(pooled.medianSpread, 2.2 / 1.1 - 1, 1e-12);
    // p10 and p90: the sample-weighted means of the processes' own
    const double p10 = (5 * processes[0].p10Ms + 3 * processes[1].p10Ms + 7 * processes[2].p10Ms) / 15;
    EXPECT_NEAR(pooled.all.p10Ms, p10, 1e-12);
    double callsVariance = 0;
    for (int k = 0; k < 3; ++k) callsVariance += std::pow(relativeError(processes[k].noise(), processes[k].samples), 2);
    EXPECT_NEAR(pooled.callsError, std::sqrt(callsVariance) / 3, 1e-12);
}

// A report read back has no percentiles: the pooled ones are the processes' that have them.
TEST(ProcessPooling, PercentilesComeFromTheProcessesThatGiveThem) {
    Statistics own = summarize({1.0, 2.0, 3.0});
    Statistics read = own;
    read.p10Ms = read.p90Ms = 0;
    const PooledRounds pooled = poolProcesses({read, own});
    EXPECT_DOUBLE_EQ(pooled.all.p10Ms, own.p10Ms);
    EXPECT_DOUBLE_EQ(pooled.all.p90Ms, own.p90Ms);
    EXPECT_EQ(pooled.medianSpread, 0);
    EXPECT_EQ(poolProcesses({}).all.samples, 0);
}

// Process 1 failed the compaction, process 2 was slowed by a clock limit and skipped the
// scan at 2^10; the parent's own rows passed.
TEST(ProcessVerdicts, TheChildrensVerdictsJoinTheParentsRows) {
    Row scan = cell(Op::Scan, "naive", 1024, false, 128);
    Row compact = cell(Op::Compact, "naive", 1024, false, 128);
    Row sort = cell(Op::Sort, "cub", 1024, false, std::nullopt);
    const auto child = [](Row row, Row::Status status, const std::string &note, bool throttled) {
        row.status = status;
        row.note = note;
        row.throttled = throttled;
        return row;
    };
    std::vector<ProcessCells> children(2);
    children[0][keyOf(scan)] = child(scan, Row::Status::Passed, "", false);
    children[0][keyOf(compact)] = child(compact, Row::Status::Failed, "expected 5 elements, got 6", false);
    children[0][keyOf(sort)] = child(sort, Row::Status::Passed, "", false);
    children[1][keyOf(scan)] = child(scan, Row::Status::Skipped, "no CUDA device", true);
    children[1][keyOf(compact)] = child(compact, Row::Status::Passed, "", false);
    children[1][keyOf(sort)] = child(sort, Row::Status::Passed, "", true);

    mergeChildVerdicts(compact, children, 3);
    EXPECT_EQ(compact.status, Row::Status::Failed);
    EXPECT_EQ(compact.note, "process 1 of 3: expected 5 elements, got 6");
    mergeChildVerdicts(scan, children, 3);
    EXPECT_EQ(scan.status, Row::Status::Passed);
    EXPECT_TRUE(scan.throttled);
    EXPECT_EQ(scan.note, "throttled in process 2 of 3");
    sort.note = "launch-bound: within 1.5x of its empty call";
    mergeChildVerdicts(sort, children, 3);
    EXPECT_TRUE(sort.throttled);
    EXPECT_EQ(sort.note, "launch-bound: within 1.5x of its empty call; throttled in process 2 of 3");
    const auto merged = [&children](Op op, Row::Status status, const std::string &note) {
        Row row = cell(op, "naive", 1024, false, 128);
        row.status = status;
        row.note = note;
        mergeChildVerdicts(row, children, 3);
        return row;
    };
    children[1][keyOf(scan)].throttled = false;
    EXPECT_EQ(merged(Op::Scan, Row::Status::Passed, "").note, "skipped in process 2 of 3: no CUDA device");
    // A cell the parent skipped fails when a child failed it, and stays skipped otherwise.
    const Row skippedHere = merged(Op::Compact, Row::Status::Skipped, "needs 9.0 GiB of GPU memory, 8.0 GiB free");
    EXPECT_EQ(skippedHere.status, Row::Status::Failed);
    EXPECT_EQ(skippedHere.note, "process 1 of 3: expected 5 elements, got 6");
    const Row skippedEverywhere = merged(Op::Scan, Row::Status::Skipped, "no CUDA device");
    EXPECT_EQ(skippedEverywhere.status, Row::Status::Skipped);
    EXPECT_EQ(skippedEverywhere.note, "no CUDA device");
    // A row the parent failed keeps its own verdict.
    EXPECT_EQ(merged(Op::Compact, Row::Status::Failed, "a[0] = 1, expected 0").note, "a[0] = 1, expected 0");
}

// The figures of the children that passed a cell, in process order; a cell told apart
// by its companion flag and block size.
TEST(ProcessVerdicts, TheFiguresOfEveryPassedChildInProcessOrder) {
    Row scan = cell(Op::Scan, "decoupled", 1 << 16, true, std::nullopt);
    JsonReport first, second, third;
    scan.timing.samples = 2;
    scan.timing.medianMs = 1.0;
    first.rows.push_back(scan);
    Row failed = scan;
    failed.status = Row::Status::Failed;
    second.rows.push_back(failed);
    scan.timing.medianMs = 1.3;
    third.rows.push_back(scan);
    const std::vector<ProcessCells> children = {cellsOf(first), cellsOf(second), cellsOf(third)};
    const std::vector<Statistics> figures = childFigures(keyOf(scan), children);
    ASSERT_EQ(figures.size(), 2u);
    EXPECT_EQ(figures[0].medianMs, 1.0);
    EXPECT_EQ(figures[1].medianMs, 1.3);
    EXPECT_TRUE(childFigures(keyOf(cell(Op::Scan, "decoupled", 1 << 16, false, std::nullopt)), children).empty());
    EXPECT_TRUE(childFigures(keyOf(cell(Op::Scan, "decoupled", 1 << 16, true, 128)), children).empty());
    EXPECT_EQ(processLabel(2, 4), "process 2 of 4");
}

// A child runs the ordinary command line, its report going to a JSON file alone.
TEST(ProcessVerdicts, AChildsCommandLineWritesOneJsonReport) {
    const std::vector<std::string> parent = {"--ops", "scan", "--processes", "3", "--output", "a.csv", "--format=json",
                                             "--quiet", "--output=b.md", "--processes=4", "--sizes", "2^10", "--format",
                                             "csv"};
    EXPECT_EQ(childArguments(parent, "/tmp/x.json"),
              (std::vector<std::string>{"--ops", "scan", "--sizes", "2^10", "--output", "/tmp/x.json", "--quiet"}));
    EXPECT_EQ(childArguments({"--processes-x"}, "r.json"),
              (std::vector<std::string>{"--processes-x", "--output", "r.json", "--quiet"}));
    // The parent traces its own calls; a child would trace every cell for nothing.
    EXPECT_EQ(childArguments({"--explain", "--sizes", "2^10"}, "r.json"),
              (std::vector<std::string>{"--sizes", "2^10", "--output", "r.json", "--quiet"}));
}

TEST(ChildProcess, AFunctionsMessagesAndOutputComeBackAsWritten) {
    std::vector<std::string> lines;
    std::string printed;
    ChildSettings settings;
    settings.stdoutTo = ChildSettings::Output::Capture;
    settings.stderrTo = ChildSettings::Output::Capture;
    settings.onMessage = [&lines](const std::string &line) { lines.push_back(line); };
    settings.onOutput = [&printed](std::string_view chunk) { printed.append(chunk); };
    const ChildExit exit = runChild(
        [](int messages) {
            sendLine(messages, "first");
            std::printf("to stdout\n");
            std::fflush(stdout);
            sendLine(messages, "second\tpart");
            std::fprintf(stderr, "to stderr\n");
        },
        settings);
    EXPECT_EQ(exit.status, 0);
    EXPECT_EQ(exit.signal, 0);
    EXPECT_FALSE(exit.timedOut);
    EXPECT_EQ(lines, (std::vector<std::string>{"first", "second\tpart"}));
    EXPECT_EQ(printed, "to stdout\nto stderr\n");
}

TEST(ChildProcess, HowAChildEndedIsReported) {
    ChildSettings quiet;
    EXPECT_EQ(runChild([](int) { _exit(3); }, quiet).status, 3);
    const ChildExit killed = runChild([](int) { std::raise(SIGSEGV); }, quiet);
    EXPECT_EQ(killed.signal, SIGSEGV);
    EXPECT_EQ(killed.status, 128 + SIGSEGV);
    ChildSettings limited;
    limited.silenceLimitMs = 200;
    const auto started = std::chrono::steady_clock::now();
    const ChildExit silent = runChild([](int) { std::this_thread::sleep_for(std::chrono::seconds(20)); }, limited);
    EXPECT_TRUE(silent.timedOut);
    EXPECT_EQ(silent.signal, SIGKILL);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST(ChildProcess, AStopSignalIsPassedOn) {
    volatile std::sig_atomic_t stop = SIGTERM;
    ChildSettings settings;
    settings.stop = &stop;
    const ChildExit exit = runChild([](int) { std::this_thread::sleep_for(std::chrono::seconds(20)); }, settings);
    EXPECT_EQ(exit.signal, SIGTERM);
}

TEST(ChildProcess, AProgramRunsWithItsArgumentsOrIsRefusedByName) {
    std::string printed;
    ChildSettings settings;
    settings.stdoutTo = ChildSettings::Output::Capture;
    settings.onOutput = [&printed](std::string_view chunk) { printed.append(chunk); };
    EXPECT_EQ(runProgram("sh", {"-c", "echo \"$0 $1\"; exit 4", "a b", "c"}, settings).status, 4);
    EXPECT_EQ(printed, "a b c\n");
    try {
        runProgram("/nonexistent/program", {}, ChildSettings{});
        FAIL() << "started";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("cannot start '/nonexistent/program'"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(canStartProcesses());
}

}  // namespace
