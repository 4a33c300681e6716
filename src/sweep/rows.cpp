#include "sweep/rows.h"

#include <fmt/format.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/launch.h>

namespace Harness {

using StreamCompaction::Backend;

namespace {

// The note on a GPU back end's row in a block-size sweep when its tile shapes are fixed,
// or, for a course submission without the block-size hook, its block size.
constexpr const char *kFixedTileShape = "fixed tile shape: measured once, for every block size";
constexpr const char *kFixedBlockSize = "fixed block size: measured once, for every block size";

// The note on every figure of a back end timed by the implementation (a submission's).
constexpr const char *kTimedByImplementation = "timed by the implementation";

// The note on a GPU figure whose calls wait for the device (a compaction's or partition's
// count returned to the host: Backend::countsOnHost, or the 64-bit API; or a call found
// waiting): timed without the stream held.
constexpr const char *kHostSynchronisation = "includes a host synchronisation";

// The project's CPU, not a submission's.
bool projectCpu(const Backend &backend) { return !backend.onGpu && !StreamCompaction::timedByImplementation(backend); }

}  // namespace

double trafficBytes(Op op, long long n, long long kept) { return describe(op).trafficBytes(n, kept); }

void addFigures(Row &row, long long kept, const std::optional<Statistics> &cpu,
                const std::optional<Statistics> &reference, const CopyCeiling &copy) {
    const Statistics &t = row.timing;
    const double ms = t.medianMs;
    row.bandwidthGBs = trafficBytes(row.op, row.size, kept) / (ms * 1e6);
    if (copy.GBs > 0) {
        row.copyFraction = *row.bandwidthGBs / copy.GBs;
        // bandwidth / copy bandwidth = (copy's time / this time) x a constant: the width
        // of that ratio, scaled to the fraction.
        Interval range = ratioIntervalOfErrors(1, relativeError(copy.noise, copy.samples), 1, t.relativeError());
        row.copyFractionRange = Interval{*row.copyFraction, range.low * *row.copyFraction, range.high * *row.copyFraction};
    }
    if (cpu) {
        row.speedupVsCpuRange = ratioInterval(*cpu, t);
        row.speedupVsCpu = row.speedupVsCpuRange->value;
    }
    if (reference) {
        row.speedupVsCubRange = ratioInterval(*reference, t);
        row.speedupVsCub = row.speedupVsCubRange->value;
    }
}

void addInputFigures(std::vector<Row> &rows, const std::vector<PlannedCell> &plan, long long kept,
                     const CopyCeiling &copy) {
    std::optional<Statistics> cpu, reference;
    for (std::size_t i = 0; i < plan.size(); ++i) {
        if (rows[i].status != Row::Status::Passed) continue;
        if (projectCpu(*plan[i].backend)) cpu = rows[i].timing;
        if (plan[i].backend->reference) reference = rows[i].timing;
    }
    for (std::size_t i = 0; i < plan.size(); ++i) {
        if (rows[i].status != Row::Status::Passed || !(rows[i].timing.medianMs > 0)) continue;
        // No row is compared with itself, and the CPU's rows with nothing: the speed-ups
        // are the GPU back ends' (and a submission's CPU's).
        const bool overReference = plan[i].backend->onGpu && !plan[i].backend->reference;
        addFigures(rows[i], kept, projectCpu(*plan[i].backend) ? std::nullopt : cpu,
                   overReference ? reference : std::nullopt, copy);
    }
}

std::string joinNotes(const std::string &a, const std::string &b) { return a.empty() ? b : b.empty() ? a : a + "; " + b; }

Row startRow(const PlannedCell &cell, Op op, long long n, bool npot, const RunSettings &settings) {
    const Backend &backend = *cell.backend;
    Row row;
    row.op = op;
    row.backend = backend.name;
    row.size = n;
    row.npot = npot;
    row.blockSize = cell.block;
    row.note = cellSkipReason(backend, op, n);
    if (row.note.empty() && op == Op::Compact && StreamCompaction::timedByImplementation(backend) &&
        settings.keep.kind != StreamCompaction::Predicate::Kind::NonZero) {
        row.note = "the course's compaction keeps the non-zero elements only";
    }
    if (!row.note.empty()) row.status = Row::Status::Skipped;
    return row;
}

void completeRow(Row &row, const Backend &backend, const Verdict &verdict, const Run &result, bool together,
                 const Options &options, const Floors &floors) {
    row.timing = result.timing;
    row.status = verdict.passed() ? Row::Status::Passed : Row::Status::Failed;
    row.note = joinNotes(verdict.detail, verdict.hint.empty() ? "" : "hint: " + verdict.hint);
    row.interleaved = together;
    if (row.op == Op::Compact || row.op == Op::Partition) row.kept = result.kept;
    if (row.status != Row::Status::Passed) return;
    const bool ownTimer = StreamCompaction::timedByImplementation(backend);
    if (backend.onGpu && !backend.honoursBlockSize && options.blockSizes.size() > 1) {
        row.note = ownTimer ? kFixedBlockSize : kFixedTileShape;
    }
    if (ownTimer) row.note = joinNotes(joinNotes(kTimedByImplementation, row.timing.note), row.note);
    if (!verdict.note.empty()) row.note = joinNotes(row.note, "note: " + verdict.note);
    if (backend.onGpu && !ownTimer && row.timing.synchronizes) row.note = joinNotes(kHostSynchronisation, row.note);
    if (row.timing.outOfTime) {
        row.note = joinNotes(row.note, fmt::format("--max-time reached: noise {:.1f}% after {} calls",
                                                   100 * row.timing.noise(), row.timing.samples));
    }
    const auto floor = floors.find({backend.name, row.op});
    if (floor != floors.end() && row.timing.medianMs < 1.5 * floor->second) {
        row.launchBound = true;
        row.note = joinNotes(row.note, "launch-bound: within 1.5x of its empty call");
    }
}

void noteGpuState(Row &row, const GpuState &before) {
    const GpuState after = readGpuState();
    row.smClockMHz = after.smClockMHz;
    row.temperatureC = after.temperatureC;
    row.powerW = after.powerW;
    row.throttled = throttled(before, after);
    if (row.throttled) row.note = joinNotes(row.note, gpuStateNote(before, after));
}

}  // namespace Harness
