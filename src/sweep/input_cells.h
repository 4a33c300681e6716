#pragma once
// The cells of one input (an op on one size, or its SIZE - 3 companion), run as named
// steps: plan (which back ends x block sizes), start (allocate, warm up), sample (the
// cells taking turns call by call, or each alone), finish (verify, pool the rounds and
// the other processes' figures), report (rows in plan order, compared with the CPU's and
// the reference's).

#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "measure/context.h"
#include "measure/gpu_state.h"
#include "platform/progress.h"
#include "sweep/plan.h"
#include "sweep/processes.h"

namespace Harness {

/**
 * For tests: called with each GPU cell's back end, round (0 first) and device output as
 * a sweep allocates the cell, before its warm-up; nullptr, the default, calls nothing.
 * The output is nullptr for a back end that takes host arrays (a course submission); a
 * back end measured at several block sizes calls it once for each.
 */
using CellAllocatedHook = void (*)(const std::string &backend, int round, const void *deviceOutput);
void setCellAllocatedHook(CellAllocatedHook hook);

/** One input and its expected result, computed once for every back end. */
struct InputCase {
    Op op;
    const std::vector<int> &input;
    bool npot;
    const Expected &want;
    std::string label;  // "scan 2^20 - 3"
};

/** What every input's cells take from the sweep. */
struct SweepShared {
    const Options &options;
    const RunSettings &settings;
    const Floors &floors;
    const CopyCeiling &copy;
    const std::vector<ProcessCells> &children;  // the child processes' cells (--processes)
    Progress &progress;
};

/** One cell of an input as it runs. */
struct SweepCell {
    PlannedCell plan;
    Row row;                                   // Passed until a step says otherwise
    std::unique_ptr<Measurement> measurement;  // the round under way
    // With --rounds and cells taking turns: the last round's, freed once this round's has
    // allocated its buffers (so that they cannot land at the same addresses), or when
    // the cell ends.
    std::unique_ptr<Measurement> held;
    GpuState before;                          // the GPU's state before the cell's first round
    std::vector<std::vector<double>> rounds;  // each finished round's readings, in ms
};

/**
 * The cells of one input. They take turns call by call (interleaved) when --interleave
 * and the GPU cells' buffers fit in GPU memory together, one cell more with --rounds;
 * else each runs alone, after a check that it fits. With --rounds, all of that is done
 * once a round, every cell's buffers and the back ends' cached device memory allocated
 * again for each. A cell's row pools its rounds (poolRounds), then the child processes'
 * figures with its own (poolProcesses); a cell whose output fails in a round is reported
 * from that round. An exception fails or skips the cell alone (a sticky CUDA error then
 * skips every later GPU cell, through cellSkipReason).
 */
class InputCells {
public:
    /** Plans the cells; `firstCell` is how many cells of the sweep came before them. */
    InputCells(const SweepShared &shared, const InputCase &input,
               const std::vector<const StreamCompaction::Backend *> &backends, long long firstCell);

    /** Runs every round; returns the rows in plan order, each with its figures (addInputFigures). */
    std::vector<Row> run();

    /** How many cells the input has. */
    std::size_t size() const { return cells_.size(); }

private:
    bool interleaves() const;
    void roundTogether();
    void runAlone(std::size_t i);
    bool start(SweepCell &cell);
    void finish(SweepCell &cell);
    void explainCell(SweepCell &cell, Measurement &measurement, long long kept) const;
    std::string pool(SweepCell &cell, Statistics &timing) const;
    template <typename Step>
    bool attempt(SweepCell &cell, Step step);
    std::vector<Row> report();
    std::string cellLabel(std::size_t i) const;
    std::string roundLabel() const;

    const SweepShared &shared_;
    InputCase input_;  // a copy: callers pass a temporary
    long long firstCell_;
    std::vector<SweepCell> cells_;
    bool together_ = false;
    int round_ = 0;
    GpuState beforeTogether_;  // the GPU's state before the cells' first round together
};

}  // namespace Harness
