#include "sweep/input_cells.h"

#include <algorithm>

#include <fmt/format.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>

#include "platform/signals.h"
#include "sweep/memory.h"
#include "sweep/rows.h"

namespace Harness {

namespace Common = StreamCompaction::Common;

namespace {
CellAllocatedHook cellAllocatedHook = nullptr;
}  // namespace

void setCellAllocatedHook(CellAllocatedHook hook) { cellAllocatedHook = hook; }

InputCells::InputCells(const SweepShared &shared, const InputCase &input,
                       const std::vector<const StreamCompaction::Backend *> &backends, long long firstCell)
    : shared_(shared), input_(input), firstCell_(firstCell) {
    const auto n = static_cast<long long>(input.input.size());
    for (const PlannedCell &planned : planCells(shared.options, backends)) {
        SweepCell cell;
        cell.plan = planned;
        cell.row = startRow(planned, input.op, n, input.npot, shared.settings);
        cells_.push_back(std::move(cell));
    }
    together_ = interleaves();  // which frees the previous input's cached memory
}

std::vector<Row> InputCells::run() {
    const bool anyGpu =
        std::any_of(cells_.begin(), cells_.end(), [](const SweepCell &cell) { return cell.plan.backend->onGpu; });
    for (round_ = 0; round_ < shared_.options.rounds && !stopSignal(); ++round_) {
        if (round_ > 0 && anyGpu) Common::releaseWorkspaces();  // allocated again by this round's warm-ups
        if (together_) {
            roundTogether();
        } else {
            for (std::size_t i = 0; i < cells_.size(); ++i) runAlone(i);
        }
    }
    return report();
}

// Whether the cells take turns: asked for, more than one cell, and every GPU cell's
// buffers (cellDeviceBytes) fit in free GPU memory at once, and one cell more with
// --rounds (a round allocates each cell while the last round's is held).
bool InputCells::interleaves() const {
    if (!shared_.options.interleave) return false;
    std::size_t gpuCells = 0, runnable = 0;
    for (const SweepCell &cell : cells_) {
        if (cell.row.status != Row::Status::Passed) continue;
        ++runnable;
        if (cell.plan.backend->onGpu) ++gpuCells;
    }
    if (runnable < 2) return false;
    if (gpuCells == 0) return true;
    Common::releaseWorkspaces();
    const std::size_t cellsHeld = gpuCells + (shared_.options.rounds > 1 ? 1 : 0);
    return cellsHeld * cellDeviceBytes(static_cast<long long>(input_.input.size()), describe(input_.op).pairs) <=
           Common::freeDeviceMemory();
}

// One round of the cells taking turns: every cell started, then one call of each in
// turn until all are done, then every cell finished.
void InputCells::roundTogether() {
    if (round_ == 0) beforeTogether_ = readGpuState();
    for (std::size_t i = 0; i < cells_.size(); ++i) {
        shared_.progress.show(firstCell_ + static_cast<long long>(i) + 1, "warming up " + cellLabel(i) + roundLabel());
        start(cells_[i]);
    }
    shared_.progress.show(firstCell_ + 1,
                          fmt::format("{}: {} cells taking turns{}", input_.label, cells_.size(), roundLabel()));
    for (bool more = true; more && !stopSignal();) {
        more = false;
        for (SweepCell &cell : cells_) {
            if (!cell.measurement || cell.measurement->done()) continue;
            more = attempt(cell, [&cell] { cell.measurement->sample(); }) || more;
        }
    }
    for (SweepCell &cell : cells_) {
        if (cell.measurement) finish(cell);
    }
}

// One round of cell i alone: the previous cell's cached device memory freed, the cell
// skipped when it does not fit in what is free, else started, sampled and finished.
void InputCells::runAlone(std::size_t i) {
    SweepCell &cell = cells_[i];
    shared_.progress.show(firstCell_ + static_cast<long long>(i) + 1, cellLabel(i) + roundLabel());
    if (cell.plan.backend->onGpu) Common::releaseWorkspaces();
    if (cell.plan.backend->onGpu && cell.row.status == Row::Status::Passed) {
        cell.row.note = gpuShortfall(input_.op, cell.row.size);
        if (!cell.row.note.empty()) cell.row.status = Row::Status::Skipped;
    }
    if (!start(cell)) return;
    while (!stopSignal() && !cell.measurement->done()) {
        if (!attempt(cell, [&cell] { cell.measurement->sample(); })) break;
    }
    if (cell.measurement) finish(cell);
}

// Allocates the cell's buffers for this round and warms it up; false when it does not
// run (finished, skipped, failed or stopped).
bool InputCells::start(SweepCell &cell) {
    if (cell.row.status != Row::Status::Passed || stopSignal()) return false;
    const StreamCompaction::Backend &backend = *cell.plan.backend;
    const std::string why = cellSkipReason(backend, input_.op, cell.row.size);
    if (!why.empty()) {
        cell.held.reset();
        cell.row.status = Row::Status::Skipped;
        cell.row.note = why;
        return false;
    }
    if (backend.onGpu && round_ == 0) cell.before = readGpuState();
    return attempt(cell, [&] {
        cell.measurement = std::make_unique<Measurement>(backend, input_.op, input_.input, shared_.settings);
        cell.held.reset();
        if (cellAllocatedHook && backend.onGpu) cellAllocatedHook(backend.name, round_, cell.measurement->deviceOutput());
        cell.measurement->warmUp();
    });
}

// A round's end for the cell: its row is complete after the last round, or after a round
// whose output failed; before that, its readings wait for the next round's.
void InputCells::finish(SweepCell &cell) {
    attempt(cell, [&] {
        Run result = cell.measurement->finish();
        std::unique_ptr<Measurement> last = std::move(cell.measurement);  // freed on return, unless held
        cell.rounds.push_back(std::move(result.timing.samplesMs));
        const Verdict verdict = verify(input_.op, result, input_.want, rulesFor(*cell.plan.backend));
        if (round_ + 1 < shared_.options.rounds && verdict.passed()) {
            if (together_ && last->deviceOutput()) cell.held = std::move(last);
            return;
        }
        const std::string pooled = pool(cell, result.timing);
        completeRow(cell.row, *cell.plan.backend, verdict, result, together_, shared_.options, shared_.floors);
        if (shared_.options.explain) explainCell(cell, *last, result.kept);
        if (!pooled.empty() && cell.row.status == Row::Status::Passed) cell.row.note = joinNotes(cell.row.note, pooled);
        if (cell.plan.backend->onGpu) noteGpuState(cell.row, together_ ? beforeTogether_ : cell.before);
        mergeChildVerdicts(cell.row, shared_.children, shared_.options.processes);
    });
}

// --explain: one more call of the cell after its last round's timed calls, traced
// (Measurement::trace), its kernels' bytes compared with the sweep's copy ceiling.
void InputCells::explainCell(SweepCell &cell, Measurement &measurement, long long kept) const {
    const ExplainFigures figures{describe(input_.op).trafficBytes(cell.row.size, kept), shared_.copy.GBs};
    cell.row.explanation = explain(measurement.trace(), figures);
}

// The cell's figures from its rounds (poolRounds), then from every process (poolProcesses),
// into `timing`; returns the note that says so ("3 rounds: medians 1.2% apart"), or "".
std::string InputCells::pool(SweepCell &cell, Statistics &timing) const {
    std::string note;
    if (cell.rounds.size() > 1) {
        const PooledRounds own = poolRounds(cell.rounds);
        timing = own.all;
        cell.row.roundSpread = own.medianSpread;
        note = fmt::format("{} rounds: medians {:.1f}% apart", own.all.rounds, 100 * own.medianSpread);
    }
    std::vector<Statistics> figures = childFigures(keyOf(cell.row), shared_.children);
    if (figures.empty()) return note;
    figures.push_back(timing);
    const PooledRounds pooled = poolProcesses(figures);
    timing = pooled.all;
    cell.row.roundSpread = pooled.medianSpread;
    const int rounds = shared_.options.rounds;
    return fmt::format("{} processes{}: medians {:.1f}% apart", pooled.all.rounds,
                       rounds > 1 ? fmt::format(" of {} rounds", rounds) : "", 100 * pooled.medianSpread);
}

// `step()` for the cell at its block size; an exception ends the cell, failed, or
// skipped when nothing could run ("needs 98 KiB ..."), and clears the error
// (Common::afterError, which marks the device lost after a sticky one).
template <typename Step>
bool InputCells::attempt(SweepCell &cell, Step step) {
    if (cell.plan.block) Common::setBlockSize(*cell.plan.block);
    Row::Status status = Row::Status::Failed;
    std::string why;
    try {
        step();
        return true;
    } catch (const StreamCompaction::CudaError &e) {
        why = e.what();
    } catch (const StreamCompaction::Unsupported &e) {
        status = Row::Status::Skipped;
        why = e.what();
    } catch (const StreamCompaction::ImplementationError &e) {
        why = e.what();  // a submission's exception
    }
    cell.held.reset();
    cell.measurement.reset();
    Common::afterError();
    cell.row.status = status;
    cell.row.note = why;
    return false;
}

// The rows in plan order with their figures; after a stop, a cell that never ran is left out.
std::vector<Row> InputCells::report() {
    std::vector<Row> rows;
    std::vector<PlannedCell> plan;
    for (SweepCell &cell : cells_) {
        cell.held.reset();
        rows.push_back(std::move(cell.row));
        plan.push_back(cell.plan);
    }
    addInputFigures(rows, plan, input_.want.kept, shared_.copy);
    if (stopSignal()) {
        std::erase_if(rows, [](const Row &row) { return row.status == Row::Status::Passed && row.timing.samples == 0; });
    }
    return rows;
}

std::string InputCells::cellLabel(std::size_t i) const {
    const PlannedCell &planned = cells_[i].plan;
    return fmt::format("{} {}{}", planned.backend->name, input_.label,
                       planned.block ? fmt::format(", block {}", *planned.block) : std::string());
}

std::string InputCells::roundLabel() const {
    const int rounds = shared_.options.rounds;
    return rounds > 1 ? fmt::format(", round {} of {}", round_ + 1, rounds) : "";
}

}  // namespace Harness
