#include "sweep/sweep.h"

#include <cstdio>

#include <fmt/format.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>

#include "platform/platform.h"
#include "platform/progress.h"
#include "platform/signals.h"
#include "sweep/outputs.h"
#include "testing_helpers.hpp"

namespace Harness {

using StreamCompaction::Backend;
namespace Common = StreamCompaction::Common;

namespace {

// Every op and size of the options, input by input, each input's rows reported once all
// its cells are done.
class Sweep {
public:
    // `children`: the cells of the child processes that ran the sweep before this one
    // (--processes), whose figures each cell pools with its own.
    Sweep(const Options &options, std::vector<Reporter *> reporters, const CopyCeiling &copy, const Floors &floors,
          const std::vector<ProcessCells> &children)
        : options_(options),
          reporters_(std::move(reporters)),
          settings_(runSettings(options)),
          progress_(cellCount(options), !options.quiet && stderrIsTerminal(),
                    options.processes > 1 ? processLabel(options.processes, options.processes) + ": " : ""),
          shared_{options, settings_, floors, copy, children, progress_} {}

    // Returns how many cells passed, failed and were skipped. Stops early, between cells,
    // on SIGINT or SIGTERM.
    Tally run() {
        const int previousBlockSize = Common::blockSize();
        for (Op op : options_.ops) {
            const auto backends = sweepBackends(options_, op);
            if (backends.empty()) continue;
            for (long long size : options_.sizes) {
                if (stopSignal()) break;
                runSize(op, size, backends);
            }
            progress_.clear();
            for (Reporter *reporter : reporters_) reporter->endOp();
            if (stopSignal()) break;
        }
        Common::setBlockSize(previousBlockSize);
        progress_.clear();
        return tally_;
    }

private:
    // The input of `size` and its SIZE - 3 companion (the input's first elements). A size
    // that no chosen back end can run, or whose CPU side does not fit in host memory, is
    // reported skipped, cell by cell, and nothing is allocated for it.
    void runSize(Op op, long long size, const std::vector<const Backend *> &backends) {
        const std::string hostProblem = hostShortfall(op, size);
        if (!anyCellRuns(op, size, backends) || !hostProblem.empty()) {
            for (bool npot : variants(options_, size)) skipAll(op, npot ? size - 3 : size, npot, backends, hostProblem);
            return;
        }
        TestingHelpers::setSeed(options_.seed);
        std::vector<int> input = randomInput(op, size);
        for (bool npot : variants(options_, size)) {
            if (npot) input.resize(static_cast<std::size_t>(size - 3));
            const auto n = static_cast<long long>(input.size());
            const std::string label = fmt::format("{} {}", opName(op), sizeLabel(n, npot));
            progress_.show(done_ + 1, "CPU reference for " + label);
            const Expected want = expected(op, input, options_.keep, uses64BitApi(n, settings_));
            if (stopSignal()) return;
            InputCells cells(shared_, {op, input, npot, want, label}, backends, done_);
            for (Row &row : cells.run()) report(std::move(row));
            done_ += static_cast<long long>(cells.size());
        }
    }

    // Whether a back end can run an input of `size` or its companion.
    bool anyCellRuns(Op op, long long size, const std::vector<const Backend *> &backends) const {
        for (bool npot : variants(options_, size)) {
            for (const Backend *backend : backends) {
                if (cellSkipReason(*backend, op, npot ? size - 3 : size).empty()) return true;
            }
        }
        return false;
    }

    // Every cell of one input reported skipped: for the back end's own reason
    // (cellSkipReason) when it has one, else for `why`.
    void skipAll(Op op, long long size, bool npot, const std::vector<const Backend *> &backends,
                 const std::string &why) {
        for (const Backend *backend : backends) {
            const bool perBlock = backend->onGpu && backend->honoursBlockSize;
            for (std::size_t i = 0; i < blockSizesFor(*backend, options_); ++i) {
                Row row;
                row.op = op;
                row.backend = backend->name;
                row.size = size;
                row.npot = npot;
                if (perBlock) row.blockSize = options_.blockSizes[i];
                row.status = Row::Status::Skipped;
                row.note = cellSkipReason(*backend, op, size);
                if (row.note.empty()) row.note = why;
                ++done_;
                report(std::move(row));
            }
        }
    }

    void report(Row row) {
        // A cell this process skipped fails when a child's output failed it (a ran cell's
        // children's verdicts joined its row when it finished).
        if (row.status == Row::Status::Skipped) mergeChildVerdicts(row, shared_.children, options_.processes);
        tally_.count(row.status);
        progress_.clear();
        for (Reporter *reporter : reporters_) reporter->add(row);
    }

    const Options &options_;
    std::vector<Reporter *> reporters_;
    RunSettings settings_;
    Progress progress_;
    SweepShared shared_;
    long long done_ = 0;
    Tally tally_;
};

// The end of a sweep on stderr: the summary, and what a stop left out.
// `inChild`: the process running when the stop came, from 1, when it was a child; else 0.
int endSweep(const Tally &tally, int stopped, int inChild, int processes) {
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", tally.sweepSummary());
    if (stopped == 0) return tally.exitStatus();
    if (inChild > 0) {
        fmt::print(stderr,
                   "cis565_stream_compaction: stopped by {} while {} ran; a cell is reported once every process has "
                   "measured it, so the report has no rows\n",
                   stopSignalName(stopped), processLabel(inChild, processes));
    } else {
        fmt::print(stderr, "cis565_stream_compaction: stopped by {}; the rows finished before it are in the report\n",
                   stopSignalName(stopped));
    }
    return 128 + stopped;
}

// The context, the children, then this process's own sweep, into `reporters`, each in
// `open` from its beginning to its end; returns the exit status.
int measure(const Options &options, const std::vector<Reporter *> &reporters, std::vector<Reporter *> &open) {
    Floors floors;
    CopyCeiling copy;
    Context context = sweepContext(options, floors, copy);
    for (Reporter *reporter : reporters) {
        reporter->begin(context);
        open.push_back(reporter);
    }
    if (options.processes > 1 && Common::deviceAvailable()) Common::releaseWorkspaces();  // the children's memory
    const std::vector<ProcessCells> children = runChildren(options, stopFlag());
    // Stopped before this process's own sweep: no cell has been measured by every process.
    const int stoppedInChild =
        stopSignal() != 0 && options.processes > 1 ? static_cast<int>(children.size()) + 1 : 0;
    Tally tally;
    if (!stopSignal()) tally = Sweep(options, open, copy, floors, children).run();
    if (context.gpu && !stopSignal()) {
        const std::string warning = remeasureCopyCeiling(context, copy);
        if (!warning.empty()) {
            for (Reporter *reporter : open) reporter->warn(warning);
            fmt::print(stderr, "cis565_stream_compaction: warning: {}\n", warning);
        }
        for (Reporter *reporter : open) reporter->closingContext(context);
    }
    const int stopped = stopSignal();
    while (!open.empty()) {
        Reporter *reporter = open.front();
        open.erase(open.begin());
        if (stopped) reporter->stop("stopped by " + stopSignalName(stopped));
        reporter->end();
    }
    return endSweep(tally, stopped, stoppedInChild, options.processes);
}

}  // namespace

int runSweep(const Options &options) {
    Outputs outputs;
    std::string problem = checkMemory(options);
    if (problem.empty()) problem = outputs.open(options);
    if (!problem.empty()) {
        fmt::print(stderr, "cis565_stream_compaction: {}\n", problem);
        return kExitBadInput;
    }
    const StopSignals stopSignals;
    std::vector<Reporter *> open;  // begun and not yet ended
    try {
        return measure(options, outputs.reporters(), open);
    } catch (const std::exception &e) {
        // An error that is not one cell's (a report that cannot be written, host memory
        // running out): every other report still gets its finished rows and its ending,
        // so a JSON file stays valid; then main prints the error.
        endAfterError(open, e.what());
        throw;
    } catch (...) {
        endAfterError(open, "an error");
        throw;
    }
}

}  // namespace Harness
