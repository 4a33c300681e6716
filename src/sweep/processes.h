#pragma once
// A sweep measured in several processes (--processes N). A GPU's launches run a few
// percent faster or slower for the whole life of a process (docs/methodology.md, "Noise
// between runs"), so one process's figures differ from the next one's by more than their
// calls' noise. With N processes the program runs the same sweep N - 1 times in child
// processes of itself, one after another, each child writing its cells, every round's
// readings included, to a file (makeChildRecorder); then it runs the sweep itself and
// pools each of its cells' rounds with the children's (readChildCells, mergeChildCells).

#include <csignal>
#include <cstdio>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "measure/operations.h"
#include "report/reporters.h"

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

/** One cell as a child process measured it. */
struct ChildCell {
    Row::Status status = Row::Status::Passed;
    std::string note;  // why it failed or was skipped
    bool throttled = false;
    std::vector<std::vector<double>> rounds;  // each round's readings, in ms
};

/** One child's cells. */
using ChildCells = std::map<CellKey, ChildCell>;

/**
 * A reporter for a child process: writes the child's launch gap (the context's), then each
 * row's key, status, note, throttle flag and rounds' readings (Row::roundSamplesMs) to
 * `out` (not owned), in a line format that readChildCells reads back exactly, and a last
 * line saying the sweep ended. A write that fails throws std::runtime_error naming `where`.
 */
std::unique_ptr<Reporter> makeChildRecorder(std::FILE *out, const std::string &where);

/**
 * What a child's recorder wrote, the child having exited with `exitStatus`; the child's
 * launch gap (Context::launchGapUs) in `*launchGapUs` where it wrote one and that is
 * given. Throws std::runtime_error naming `who` ("process 2 of 4") and how it ended when
 * the list is not whole (a child that stopped before its sweep ended writes no last
 * line), or naming the line it cannot read.
 */
ChildCells readChildCells(std::istream &in, const std::string &who, int exitStatus, double *launchGapUs = nullptr);

/** "process 2 of 4"; "process 14 of up to 64" where `maxProcesses` is above `processes`. */
std::string processLabel(int index, int processes, int maxProcesses = 0);

/**
 * Every process's launch gap, in the order they ran: the children's (`childGaps`, 0 where
 * one wrote none) and this process's last; empty unless all `processes` were measured.
 */
std::vector<double> everyLaunchGap(const std::vector<double> &childGaps, double ownGap, int processes);

/**
 * The children's verdicts on a finished row of the parent's: a child that failed the
 * cell fails the row ("process 2 of 4: a[17] = 3, expected 4"), a row the parent skipped
 * included; on a row that passed, one that was slowed by a clock limit marks it
 * throttled, and one that skipped the cell says so in the note. `children[k]` is process
 * k + 1's cells; a row the parent failed keeps its own verdict.
 */
void mergeChildVerdicts(Row &row, const std::vector<ChildCells> &children, int processes);

/**
 * Every child's rounds of the cell `key`, process by process, from the children whose
 * cell passed; how many children those are in `*processes`, when given.
 */
std::vector<std::vector<double>> childRounds(const CellKey &key, const std::vector<ChildCells> &children,
                                             int *processes = nullptr);

/**
 * The inputs of `inputs` that need more processes (--max-processes): those with a cell
 * that one child alone has passed so far, or whose figures over the children that passed
 * it (each child's the mean of its rounds' medians) have a mean whose 95% interval
 * (Student's t) reaches further than +-maxError from it; the interval is never taken
 * narrower than the figures' calls' noise makes it (noise / sqrt(samples) of each
 * round's median). A cell that no child passed, or that one
 * failed, is left to its row's verdict; a SIZE - 3 companion's cell speaks for its input.
 * In the order of `inputs`.
 */
std::vector<SweepInput> unsettledInputs(const std::vector<SweepInput> &inputs, const std::vector<ChildCells> &children,
                                        double maxError);

/**
 * An empty file with a unique name in $TMPDIR (or /tmp), for a child's cells, removed when
 * this goes. Throws std::runtime_error when it cannot be made.
 */
class TemporaryFile {
public:
    TemporaryFile();
    ~TemporaryFile();
    TemporaryFile(const TemporaryFile &) = delete;
    TemporaryFile &operator=(const TemporaryFile &) = delete;

    const std::string &path() const { return path_; }

private:
    std::string path_;
};

/** Whether this build can start child processes (POSIX); --processes above 1 needs it. */
bool canStartProcesses();

/** How long a child may take to stop after the parent passed a signal on, in ms. */
constexpr int kStopGraceMs = 10000;

/**
 * Runs `program` with `arguments` (argv[1] on) and waits for it. While it runs, a
 * non-zero `*stop` (a signal the parent caught) is passed on to it, and SIGKILL follows
 * when it has not ended kStopGraceMs later. Returns its exit status, or 128 + the signal
 * that ended it. Throws std::runtime_error when it cannot be started.
 */
int runProcess(const std::string &program, const std::vector<std::string> &arguments,
               const volatile std::sig_atomic_t *stop);

/**
 * The executable of this process: /proc/self/exe on Linux (the running file, even where
 * it was since replaced), else `argv0`, which runProcess then looks up on PATH when it
 * names no directory.
 */
std::string thisProgram(const std::string &argv0);

/** In a child: ends it with SIGTERM when its parent dies (Linux; nothing elsewhere). */
void endWithParent();

}  // namespace Harness
