#pragma once
// A sweep's rows: how a cell's row starts, what a finished cell's row says (verdict,
// timing, notes, GPU state), and the figures that compare it with the CPU's, the
// reference's and the copy bandwidth.

#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "measure/context.h"
#include "measure/gpu_state.h"
#include "sweep/plan.h"

namespace Harness {

/**
 * Bytes an op reads and writes, as counted for effective bandwidth: scan 8n (12n past
 * 2^31 - 1, where its sums are int64), compact 4n + 4 x kept, partition 8n, sort and
 * sort-unsigned 8n (the least any sort can move), sort-pairs 16n.
 */
double trafficBytes(Op op, long long n, long long kept);

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
 * addFigures for every passed row of one input (rows[i] the cell plan[i]): the CPU's rows
 * compared with nothing, the reference's with the CPU's, every other GPU row (and a
 * submission's CPU row) with both.
 */
void addInputFigures(std::vector<Row> &rows, const std::vector<PlannedCell> &plan, long long kept,
                     const CopyCeiling &copy);

/** "a; b", leaving out empty parts. */
std::string joinNotes(const std::string &a, const std::string &b);

/**
 * A row for a cell of n elements, Passed until a check says otherwise: skipped for the
 * back end's own reason (cellSkipReason) or the course compaction's predicate.
 */
Row startRow(const PlannedCell &cell, Op op, long long n, bool npot, const RunSettings &settings);

/**
 * A finished cell's verdict, timing and notes: fixed tile shape or block size, timed by
 * the implementation, host synchronisation, --max-time reached, launch-bound (within
 * 1.5x of its floor).
 */
void completeRow(Row &row, const StreamCompaction::Backend &backend, const Verdict &verdict, const Run &result,
                 bool together, const Options &options, const Floors &floors);

/**
 * The GPU's state after a cell (or after an input's cells taking turns) on its row, and
 * a note when a clock limit slowed the GPU or the SM clock moved ("throttled: SW power
 * cap; SM clock 1980 -> 1755 MHz").
 */
void noteGpuState(Row &row, const GpuState &before);

}  // namespace Harness
