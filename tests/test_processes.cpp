// A sweep in several processes (--processes): a child's cells written and read back
// exactly, lists that are cut short or malformed refused with a line naming the process,
// the children's verdicts on the parent's rows, and their rounds pooled process by
// process. The real program's children are run by run_cli_checks.sh and
// run_interrupt_check.sh.

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sweep/processes.h"
#include "report/reporters.h"

namespace {

using namespace Harness;

Row cell(Op op, const std::string &backend, long long size, bool npot, std::optional<int> block) {
    Row row;
    row.op = op;
    row.backend = backend;
    row.size = size;
    row.npot = npot;
    row.blockSize = block;
    return row;
}

// What a child's recorder writes for `rows`, as text; `complete`: the sweep ended;
// `launchGapUs`: the child's launch gap (0: not measured).
std::string recorded(const std::vector<Row> &rows, bool complete = true, double launchGapUs = 0) {
    std::FILE *file = std::tmpfile();
    EXPECT_NE(file, nullptr);
    {
        const auto recorder = makeChildRecorder(file, "a test file");
        Context context;
        context.launchGapUs = launchGapUs;
        recorder->begin(context);
        for (const Row &row : rows) recorder->add(row);
        recorder->endOp();
        if (!complete) recorder->stop("stopped by SIGINT");
        recorder->end();
    }
    std::string text;
    std::rewind(file);
    for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
    std::fclose(file);
    return text;
}

ChildCells readBack(const std::string &text, int exitStatus = 0) {
    std::istringstream in(text);
    return readChildCells(in, "process 2 of 4", exitStatus);
}

std::string refusal(const std::string &text, int exitStatus = 0) {
    try {
        readBack(text, exitStatus);
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    return "(read without an error)";
}

// Readings that a decimal format could round: they come back to the last bit.
TEST(ChildCells, WhatAChildWritesReadsBackExactly) {
    Row scan = cell(Op::Scan, "naive", 1 << 20, false, 256);
    scan.roundSamplesMs = {{0.1, 1.0 / 3, 1e-7, 123.456789012345678}, {}, {2.5}};
    Row failed = cell(Op::Compact, "student-efficient", 1021, true, std::nullopt);
    failed.status = Row::Status::Failed;
    failed.note = "a[17] = 3, expected 4\nsecond line";
    Row skipped = cell(Op::SortUnsigned, "onesweep", 1LL << 32, false, std::nullopt);
    skipped.status = Row::Status::Skipped;
    skipped.note = "n > 2^31 - 1";
    Row throttled = cell(Op::SortPairs, "cub", 4096, false, std::nullopt);
    throttled.throttled = true;
    throttled.roundSamplesMs = {{7, 8}};

    const ChildCells cells = readBack(recorded({scan, failed, skipped, throttled}));
    ASSERT_EQ(cells.size(), 4u);
    const ChildCell &s = cells.at(keyOf(scan));
    EXPECT_EQ(s.status, Row::Status::Passed);
    EXPECT_EQ(s.rounds, scan.roundSamplesMs);  // exact, the empty round included
    EXPECT_EQ(s.note, "");
    EXPECT_FALSE(s.throttled);
    const ChildCell &f = cells.at(keyOf(failed));
    EXPECT_EQ(f.status, Row::Status::Failed);
    EXPECT_EQ(f.note, "a[17] = 3, expected 4 second line");
    EXPECT_TRUE(f.rounds.empty());
    EXPECT_EQ(cells.at(keyOf(skipped)).status, Row::Status::Skipped);
    EXPECT_EQ(cells.at(keyOf(skipped)).note, "n > 2^31 - 1");
    EXPECT_TRUE(cells.at(keyOf(throttled)).throttled);
    EXPECT_EQ(cells.at(keyOf(throttled)).rounds, throttled.roundSamplesMs);
    // The key tells apart what the sweep tells apart: the block size, the companion.
    EXPECT_EQ(cells.count(keyOf(cell(Op::Scan, "naive", 1 << 20, false, 128))), 0u);
    EXPECT_EQ(cells.count(keyOf(cell(Op::Scan, "naive", 1 << 20, true, 256))), 0u);
}

// The child's launch gap comes back to the last bit; a child that measured none leaves
// the parent's value as it was.
TEST(ChildCells, TheChildsLaunchGapReadsBack) {
    const Row scan = cell(Op::Scan, "cpu", 16, false, std::nullopt);
    double gap = -1;
    std::istringstream in(recorded({scan}, true, 1.0 / 0.7));
    EXPECT_EQ(readChildCells(in, "process 1 of 2", 0, &gap).size(), 1u);
    EXPECT_EQ(gap, 1.0 / 0.7);
    double none = -1;
    std::istringstream without(recorded({scan}));
    readChildCells(without, "process 1 of 2", 0, &none);
    EXPECT_EQ(none, -1);
}

// The run's list: the children's gaps in order, this process's last; none unless every
// process's is known, nor for a run in one process.
TEST(ChildCells, EveryProcesssLaunchGapInOrder) {
    EXPECT_EQ(everyLaunchGap({1.5, 1.35}, 1.4, 3), (std::vector<double>{1.5, 1.35, 1.4}));
    EXPECT_TRUE(everyLaunchGap({1.5, 0}, 1.4, 3).empty());  // a child wrote none
    EXPECT_TRUE(everyLaunchGap({1.5, 1.35}, 0, 3).empty());  // this process's unknown
    EXPECT_TRUE(everyLaunchGap({1.5}, 1.4, 3).empty());       // a child missing
    EXPECT_TRUE(everyLaunchGap({}, 1.4, 1).empty());          // one process: no list
}

TEST(ChildCells, AListCutShortNamesTheProcessAndHowItEnded) {
    const std::string stopped = recorded({cell(Op::Scan, "cpu", 16, false, std::nullopt)}, false);
    EXPECT_EQ(refusal(stopped, 130), "process 2 of 4 ended before its sweep did (signal 2)");
    EXPECT_EQ(refusal("", 137), "process 2 of 4 ended before its sweep did (signal 9)");
    EXPECT_EQ(refusal("", 2), "process 2 of 4 ended before its sweep did (exit status 2; its error is above)");
    const std::string whole = recorded({cell(Op::Scan, "cpu", 16, false, std::nullopt)});
    EXPECT_EQ(refusal(whole.substr(0, whole.size() - 4), 1),
              "process 2 of 4 ended before its sweep did (exit status 1; its error is above)");
}

TEST(ChildCells, ALineItCannotReadIsRefusedByNumber) {
    const std::string header = "cis565_stream_compaction child cells 1\n";
    EXPECT_NE(refusal("cis565_stream_compaction child cells 2\nend\n").find("line 1"), std::string::npos);
    for (const char *line : {"cell reduce cpu 16 0 0 p 0", "cell scan cpu 16 0 0 x 0", "cell scan cpu 16 0",
                             "cell scan cpu 16 0 0 p 0 extra",
                             "round 1.5", "cell scan cpu 16 0 0 p 0\nround 1.5 fast", "what", "gap", "gap fast",
                             "gap 0", "gap -1.4", "gap 1.4 us", "cell scan cpu 16 0 0 p 0\ngap 1.4",
                             "gap 1.4\ngap 1.5"}) {
        SCOPED_TRACE(line);
        const std::string message = refusal(header + line + "\nend\n");
        EXPECT_NE(message.find("process 2 of 4 wrote a cell list this program cannot read"), std::string::npos)
            << message;
    }
    EXPECT_NE(refusal(header + "end\ncell scan cpu 16 0 0 p 0\n").find("line 3"), std::string::npos);
}

// Process 1 failed the compaction, process 2 was slowed by a clock limit and skipped the
// scan at 2^10; the parent's own rows passed.
TEST(ChildCells, TheChildrensVerdictsJoinTheParentsRows) {
    Row scan = cell(Op::Scan, "naive", 1024, false, 128);
    Row compact = cell(Op::Compact, "naive", 1024, false, 128);
    Row sort = cell(Op::Sort, "cub", 1024, false, std::nullopt);
    std::vector<ChildCells> children(2);
    children[0][keyOf(scan)].rounds = {{1.0}};
    children[0][keyOf(compact)] = {Row::Status::Failed, "expected 5 elements, got 6", false, {}};
    children[0][keyOf(sort)].rounds = {{3.0}};
    children[1][keyOf(scan)] = {Row::Status::Skipped, "no CUDA device", true, {}};
    children[1][keyOf(compact)].rounds = {{2.0}};
    children[1][keyOf(sort)] = {Row::Status::Passed, "", true, {{4.0}}};

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
    // The parent's row of `op` at 2^10 with its own status and note, the children's merged in.
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

// Every passed child's rounds, process by process; a failed or skipped child's none.
TEST(ChildCells, TheRoundsOfEveryPassedChildInProcessOrder) {
    const Row scan = cell(Op::Scan, "decoupled", 1 << 16, true, std::nullopt);
    std::vector<ChildCells> children(3);
    children[0][keyOf(scan)].rounds = {{1.0, 1.1}, {1.2}};
    children[1][keyOf(scan)] = {Row::Status::Failed, "a[3] = 0, expected 1", false, {{9.0}}};
    children[2][keyOf(scan)].rounds = {{1.3}};
    int processes = -1;
    EXPECT_EQ(childRounds(keyOf(scan), children, &processes),
              (std::vector<std::vector<double>>{{1.0, 1.1}, {1.2}, {1.3}}));
    EXPECT_EQ(processes, 2);
    EXPECT_TRUE(childRounds(keyOf(cell(Op::Scan, "cub", 1 << 16, true, std::nullopt)), children).empty());
    EXPECT_TRUE(childRounds(keyOf(scan), {}).empty());
}

TEST(ChildCells, ProcessesAreCountedFromOne) {
    EXPECT_EQ(processLabel(1, 8), "process 1 of 8");
    EXPECT_EQ(processLabel(14, 8, 64), "process 14 of up to 64");
    EXPECT_EQ(processLabel(3, 8, 8), "process 3 of 8");
}

}  // namespace
