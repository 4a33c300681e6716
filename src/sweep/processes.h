#pragma once
// A sweep measured in several processes (--processes N). A GPU's launches run a few
// percent faster or slower for the whole life of a process (docs/methodology.md, "Noise
// between runs"), so one process's figures differ from the next one's by more than their
// calls' noise. With N processes the program runs the same sweep N - 1 times in child
// processes of itself, one after another, each the program with the ordinary command
// line writing an ordinary JSON report (childArguments); then it runs the sweep itself
// and pools each of its cells with the children's rows of the same cell (poolProcesses),
// every process one replicate.

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cli/cli.h"
#include "platform/child_process.h"
#include "report/json_report.h"

namespace Harness {

/** What tells a sweep's cells apart: op, back end, size, companion and block size. */
struct CellKey {
    Op op = Op::Scan;
    std::string backend;
    long long size = 0;
    bool npot = false;
    int blockSize = 0;  // 0: the cell has none (the CPU, fixed tile shapes)

    bool operator<(const CellKey &other) const {
        return std::tie(op, backend, size, npot, blockSize) <
               std::tie(other.op, other.backend, other.size, other.npot, other.blockSize);
    }
};

CellKey keyOf(const Row &row);

/** One child process's rows, by cell. */
using ProcessCells = std::map<CellKey, Row>;

/** A child's report's rows by cell (a cell written twice keeps its last row). */
ProcessCells cellsOf(const JsonReport &report);

/** "process 2 of 4". */
std::string processLabel(int index, int processes);

/**
 * One cell's figures from several processes, each a summary of its own calls (its own
 * rounds pooled, poolRounds), every process one replicate, as poolRounds pools rounds:
 * all.medianMs is the mean of the processes' medians, all.rounds the processes with
 * samples, all.roundsError the relative standard error of that mean, medianSpread the
 * largest median over the smallest less 1, callsError each median's noise / sqrt(samples)
 * combined. The other figures pool the calls: samples add up; the mean (weighted by
 * samples), the standard deviation (within and between the processes), min and max are
 * exact; p10 and p90 are the sample-weighted means of the processes' own (a quantile of a
 * union is not a function of the parts' quantiles), over the processes that give them
 * (a JSON report gives none). Processes without samples are left out.
 */
PooledRounds poolProcesses(const std::vector<Statistics> &processes);

/** The figures of the cell `key` from the children (`children[k]`: process k + 1) that passed it. */
std::vector<Statistics> childFigures(const CellKey &key, const std::vector<ProcessCells> &children);

/**
 * The children's verdicts on a finished row of the parent's: a child that failed the
 * cell fails the row ("process 2 of 4: a[17] = 3, expected 4"), a row the parent skipped
 * included; on a row that passed, one that was slowed by a clock limit marks it
 * throttled, and one that skipped the cell says so in the note. `children[k]` is process
 * k + 1's cells; a row the parent failed keeps its own verdict.
 */
void mergeChildVerdicts(Row &row, const std::vector<ProcessCells> &children, int processes);

/**
 * A child's command line (argv[1] on): the parent's `arguments` less --processes,
 * --output and --format (with their values, as "--flag value" or "--flag=value"),
 * --quiet and --explain (the parent alone traces), then "--output `reportPath` --quiet".
 */
std::vector<std::string> childArguments(const std::vector<std::string> &arguments, const std::string &reportPath);

/**
 * For tests: each child process a sweep would start is this call instead, given the
 * child's index (from 1) and its arguments (childArguments), and returning its report;
 * nullptr, the default, starts them.
 */
using ChildRunner = std::function<JsonReport(int index, const std::vector<std::string> &arguments)>;
void setChildRunnerForTesting(const ChildRunner *runner);

/**
 * The N - 1 child processes of a sweep in N (options.processes), one after another, each
 * the program (options.program) with childArguments; returns their cells, process by
 * process. A caught stop signal (`*stop`) is passed on to the child running, and the
 * children stop there, with what they have. Throws std::runtime_error naming the process
 * and how it ended when a child ends other than as a sweep does (its error output is
 * printed first), or readJsonReport's error for a report that cannot be read.
 */
std::vector<ProcessCells> runChildren(const Options &options, const volatile std::sig_atomic_t *stop);

}  // namespace Harness
