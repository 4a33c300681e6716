#pragma once
// The sweep: every chosen op, size (with the SIZE - 3 companion of each power of two),
// block size and back end, timed, checked against the CPU reference and reported as
// each cell finishes.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "sweep/processes.h"

namespace Harness {

/**
 * Device memory a cell of n ints may need: input, output and up to 2n ints of workspace;
 * past 2^31 - 1, 4n bytes more, for a scan's int64 sums (counted for every op); twice
 * that for sort-pairs, whose values need as much again.
 */
std::size_t cellDeviceBytes(long long n, bool pairs = false);

/**
 * For tests: called with each GPU cell's back end, round (0 first) and device output as
 * a sweep allocates the cell, before its warm-up; nullptr, the default, calls nothing.
 * The output is nullptr for a back end that takes host arrays (a course submission); a
 * back end measured at several block sizes calls it once for each.
 */
using CellAllocatedHook = void (*)(const std::string &backend, int round, const void *deviceOutput);
void setCellAllocatedHook(CellAllocatedHook hook);

/**
 * The one-line error for a sweep whose largest cell needs more than `freeBytes` of GPU
 * memory ("--sizes: 2^30 needs 16.0 GiB of GPU memory, 9.5 GiB free"), or "" when it fits.
 */
std::string memoryShortfall(long long largestSize, std::size_t freeBytes, bool pairs = false);

/**
 * Bytes an op reads and writes, as counted for effective bandwidth: scan 8n (12n past
 * 2^31 - 1, where its sums are int64), compact 4n + 4 x kept, partition 8n, sort and
 * sort-unsigned 8n (the least any sort can move), sort-pairs 16n.
 */
double trafficBytes(Op op, long long n, long long kept);

/** The measured copy bandwidth a sweep compares with: GB/s, and its noise and sample count. */
struct CopyCeiling {
    double GBs = 0;  // 0: not measured (no GPU)
    double noise = 0;
    int samples = 0;
};

/** Each GPU back end's empty-call time (n = 0) per op, in ms. */
using Floors = std::map<std::pair<std::string, Op>, double>;

/**
 * A passed row's figures, from its timing and the kept count (compact): effective
 * bandwidth, trafficBytes / median; its fraction of the measured copy bandwidth (when
 * measured); and the speed-ups over the CPU's and the reference's medians of the same
 * input (when measured), each that median / this median; each ratio with its 95%
 * interval (ratioInterval).
 */
void addFigures(Row &row, long long kept, const std::optional<Statistics> &cpu,
                const std::optional<Statistics> &reference, const CopyCeiling &copy);

/**
 * Why a cell of n elements cannot run on the back end, or "" when it can: first
 * "n > 2^31 - 1" when the back end has no 64-bit entry point for the op and n needs
 * one (decided from the registry alone, on any machine); then, for a GPU back end,
 * "no CUDA device" or why the device was lost. Memory is checked apart from this.
 */
std::string cellSkipReason(const StreamCompaction::Backend &backend, Op op, long long n);

/**
 * For tests: each child process a sweep would start is this call instead, given the
 * child's index (from 1) and the arguments it would have been started with, and returning
 * its cells; nullptr, the default, starts them.
 */
using ChildRunner = std::function<ChildCells(int index, const std::vector<std::string> &arguments)>;
void setChildRunnerForTesting(const ChildRunner *runner);

/**
 * Runs the sweep `options` describe, writing the report to stdout in options.format and
 * to every options.outputs file in the format its extension names (and the context of
 * each CSV beside it), then "N cells verified, N failed, N skipped" on stderr, where it
 * leaves a CSV or JSON stdout machine-readable. Returns the exit status (ExitStatus):
 * kExitBadInput when the largest cell a GPU back end would run does not fit in free GPU
 * memory or an output cannot be opened (one line on stderr; nothing run), kExitFailed
 * when a cell failed, kExitNothingRan when every cell was skipped, 128 + the signal
 * after SIGINT or SIGTERM, else kExitVerified. Cells that cannot run (cellSkipReason)
 * are reported as skipped, and nothing is allocated for a size that no chosen back end
 * can run.
 */
int runSweep(const Options &options);

}  // namespace Harness
