#include "sweep/sweep.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/cccl_version.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>
#include <stream_compaction/measurement.h>

#include "measure/device_info.h"
#include "measure/gpu_state.h"
#include "platform/platform.h"
#include "sweep/processes.h"
#include "report/reporters.h"
#include "measure/runner.h"
#include "testing_helpers.hpp"

#include "sc_git_revision.h"  // generated at build time: SC_GIT_REVISION

namespace Harness {

using StreamCompaction::Backend;
namespace Common = StreamCompaction::Common;

namespace {
CellAllocatedHook cellAllocatedHook = nullptr;
}  // namespace

void setCellAllocatedHook(CellAllocatedHook hook) { cellAllocatedHook = hook; }

std::size_t cellDeviceBytes(long long n, bool pairs) {
    const std::size_t int64Sums = pastIntSizes(n) ? sizeof(long long) - sizeof(int) : 0;
    return (pairs ? 2 : 1) * (4 * sizeof(int) + int64Sums) * static_cast<std::size_t>(n);
}

std::string memoryShortfall(long long largestSize, std::size_t freeBytes, bool pairs) {
    const std::size_t needed = cellDeviceBytes(largestSize, pairs);
    if (needed <= freeBytes) return "";
    constexpr double GiB = 1ULL << 30;
    return fmt::format("--sizes: {} needs {:.1f} GiB of GPU memory (input, output and workspace), {:.1f} GiB free",
                       formatSize(largestSize), needed / GiB, freeBytes / GiB);
}

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

std::string cellSkipReason(const Backend &backend, Op op, long long n) {
    if (pastIntSizes(n) && !offers64(backend, op)) return "n > 2^31 - 1";
    if (!backend.onGpu) return "";
    if (!Common::deviceAvailable()) return "no CUDA device";
    return Common::deviceLost();
}

namespace {

// The copy ceiling is measured on 2^28 ints, or on as many as half the free GPU memory
// holds, whatever the sweep's sizes, so that "% of copy" means the same in every run.
constexpr long long kCopyInts = 1LL << 28;
constexpr int kCopyReps = 15;
// A copy ceiling that moved by more than this between the start and the end of a sweep
// is a warning in the report.
constexpr double kCopyDrift = 0.03;
// The launch gap: a chain of this many empty kernels, timed this many times, once as each
// process starts. The figures of calls that launch many kernels move with it
// (docs/methodology.md, "Noise between runs").
constexpr int kLaunchGapKernels = 64;
constexpr int kLaunchGapReps = 31;

std::string hostCpuModel() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        const auto colon = line.find(':');
        if (line.rfind("model name", 0) == 0 && colon != std::string::npos)
            return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
    return "unknown";
}

// The run's start in UTC as "2025-01-31T12:00:00Z", and its id: that time written
// compactly with four random hex digits, so that two runs in one second differ.
void stampRun(Context &context) {
    const std::time_t now = std::time(nullptr);
    char date[32] = "";
    char compact[32] = "";
    if (const std::tm *utc = std::gmtime(&now)) {
        std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", utc);
        std::strftime(compact, sizeof compact, "%Y%m%dT%H%M%SZ", utc);
    }
    context.date = date;
    context.runId = fmt::format("{}-{:04x}", compact, std::random_device{}() & 0xFFFF);
}

CopyCeiling measureCopyCeiling(std::size_t bytes) {
    const Statistics copy = measureCopy(bytes, kCopyReps);
    return {2.0 * double(bytes) / (copy.medianMs * 1e6), copy.noise(), copy.samples};
}

// Each chosen GPU back end's empty call (n = 0) per op, measured as every cell is: the
// floor below which a cell's time is launch overhead rather than work.
Floors measureFloors(const Options &options, const RunSettings &base) {
    Floors floors;
    RunSettings settings = base;
    settings.reps = 20;
    for (Op op : options.ops) {
        for (const Backend *backend : offering(options.backends, op)) {
            if (!backend->onGpu || StreamCompaction::timedByImplementation(*backend)) continue;
            try {
                floors[{backend->name, op}] = run(*backend, op, {}, settings).timing.medianMs;
            } catch (const std::exception &) {
                // a back end that cannot run an empty call gets no floor; its cells say why
            }
        }
    }
    return floors;
}

std::string floorsText(const Floors &floors) {
    std::string text;
    for (const auto &[key, ms] : floors) {
        text += fmt::format("{}{} {} {:.4f} ms", text.empty() ? "" : ", ", key.first, opName(key.second), ms);
    }
    return text;
}

// This process's launch gap, into `context`; in a sweep in several processes the
// others' come at the end (Context::launchGapsUs).
void measureLaunchGapInto(Context &context) {
    const std::optional<Statistics> gap = measureLaunchGap(kLaunchGapKernels, kLaunchGapReps);
    context.launchGapUs = gap ? 1000 * gap->medianMs : 0;
    context.launchGapMethod =
        gap ? fmt::format("{} empty kernels of one block per SM in a row, the stream held; median of {} (noise "
                          "{:.2f}%)",
                          kLaunchGapKernels, kLaunchGapReps, 100 * gap->noise())
            : "unavailable: the stream hold timed out (as under a sanitizer, which serialises the launches behind "
              "it)";
}

Context sweepContext(const Options &options, Floors &floors, CopyCeiling &copy) {
    Context context;
    stampRun(context);
    context.commandLine = options.commandLine;
    context.version = SC_VERSION;
    context.hostCpu = hostCpuModel();
    context.hostCpus = cpuListText(allowedCpus());
    context.buildType = SC_BUILD_TYPE;
    context.gitRevision = SC_GIT_REVISION;
    context.nvccVersion = SC_NVCC_VERSION;
    const std::string flags = SC_CUDA_FLAGS, configFlags = SC_CUDA_CONFIG_FLAGS;
    context.cudaFlags = flags.empty() || configFlags.empty() ? flags + configFlags : flags + " " + configFlags;
    context.cudaArchitectures = SC_CUDA_ARCHITECTURES;
    context.ccclVersion = Common::ccclVersionText();
    context.gpuStateAtStart = readGpuState();  // before the copy measurement warms the GPU up
    context.seed = options.seed;
    context.reps = options.reps;
    context.warmup = options.warmup;
    context.keep = options.keep.name();
    context.mode = options.hot ? "hot" : "cold";
    context.sampling = samplingText(options);
    context.processes = options.processes;
    if (Common::deviceAvailable()) {
        context.gpu = deviceInfo();
        measureLaunchGapInto(context);  // as soon after the context starts as a child's
        Common::releaseWorkspaces();
        const std::size_t fits = Common::freeDeviceMemory() / 2 / 2 / sizeof(int);  // two buffers in half of it
        context.copyBytes = sizeof(int) * std::min<std::size_t>(kCopyInts, fits);
        context.copyReps = kCopyReps;
        copy = measureCopyCeiling(context.copyBytes);
        context.copyBandwidthGBs = copy.GBs;
        context.copyNoise = copy.noise;
        context.l2Flush = fmt::format("cudaMemsetAsync of {} MiB, twice the L2 cache, before every timed GPU call{}",
                                      Common::l2FlushBytes() >> 20, options.hot ? " (off: --hot)" : "");
        floors = measureFloors(options, runSettings(options));
        context.launchFloors = floorsText(floors);
    }
    return context;
}

// The chosen back ends offering `op`: the CPU first and the reference (Backend::reference)
// next, so that every other row can be compared with them when it is written; the rest
// in the registry's order.
std::vector<const Backend *> sweepBackends(const Options &options, Op op) {
    std::vector<const Backend *> chosen = offering(options.backends, op);
    const auto rank = [](const Backend *b) { return !b->onGpu ? 0 : b->reference ? 1 : 2; };
    std::stable_sort(chosen.begin(), chosen.end(),
                     [&rank](const Backend *a, const Backend *b) { return rank(a) < rank(b); });
    return chosen;
}

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

// "a; b", leaving out empty parts.
std::string joinNotes(const std::string &a, const std::string &b) {
    return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

// How many block sizes a back end is measured at: each of --block-sizes when its kernels
// run at the block size, else one (the CPU, and GPU back ends with fixed tile shapes).
std::size_t blockSizesFor(const Backend &backend, const Options &options) {
    return backend.onGpu && backend.honoursBlockSize ? options.blockSizes.size() : 1;
}

// The inputs of one op and size: the size itself, then SIZE - 3 for a power of two.
std::vector<bool> variants(const Options &options, long long size) {
    const bool powerOfTwo = (size & (size - 1)) == 0;
    return options.npot && powerOfTwo && size >= 4 ? std::vector<bool>{false, true} : std::vector<bool>{false};
}

// SIGINT and SIGTERM stop a sweep between cells: the rows already finished are in every
// output, which is closed properly, and the exit status is 128 + the signal.
volatile std::sig_atomic_t stopSignal = 0;

void onStopSignal(int signal) { stopSignal = signal; }

class StopSignals {
public:
    StopSignals() {
        stopSignal = 0;
        previousInt_ = std::signal(SIGINT, onStopSignal);
        previousTerm_ = std::signal(SIGTERM, onStopSignal);
    }
    ~StopSignals() {
        std::signal(SIGINT, previousInt_);
        std::signal(SIGTERM, previousTerm_);
    }
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;

private:
    void (*previousInt_)(int);
    void (*previousTerm_)(int);
};

// MemAvailable from /proc/meminfo, in bytes; "unlimited" where it cannot be read (not
// Linux: the CPU side of a cell is then not checked against host memory).
std::size_t availableHostMemory() {
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        if (line.rfind("MemAvailable:", 0) == 0) return std::stoull(line.substr(13)) * 1024;
    }
    return SIZE_MAX;
}

// Host memory the CPU side of one input of n ints may need: the input, the expected
// result, a back end's output and the CPU back ends' own scratch, 6n ints in all; past
// 2^31 - 1 the expected and the actual scan sums are int64, 8n bytes more; twice that for
// sort-pairs, whose values need as much again.
std::size_t inputHostBytes(long long n, bool pairs) {
    const std::size_t int64Sums = pastIntSizes(n) ? 2 * (sizeof(long long) - sizeof(int)) : 0;
    return (pairs ? 2 : 1) * (6 * sizeof(int) + int64Sums) * static_cast<std::size_t>(n);
}

// "needs 16.0 GiB, 9.5 GiB free" when `needed` does not fit in `freeBytes`, else "".
std::string shortfall(std::size_t needed, std::size_t freeBytes, const char *where) {
    if (needed <= freeBytes) return "";
    constexpr double GiB = 1ULL << 30;
    return fmt::format("needs {:.1f} GiB of {} memory, {:.1f} GiB free", needed / GiB, where, freeBytes / GiB);
}

struct FileCloser {
    void operator()(std::FILE *file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// "[k/m, 0:35 elapsed, about 1:20 left] what is running" on stderr, rewritten in place;
// only on a terminal. What is left is the elapsed time per finished cell times the
// cells still to come.
class Progress {
public:
    // `prefix` opens every line: "process 2 of 4: " in a sweep of several processes.
    Progress(long long total, bool enabled, std::string prefix = "")
        : total_(total), enabled_(enabled), prefix_(std::move(prefix)), start_(std::chrono::steady_clock::now()) {}
    ~Progress() { clear(); }  // also when an error ends the sweep
    Progress(const Progress &) = delete;
    Progress &operator=(const Progress &) = delete;

    // `number`: the cell now running, from 1; the ones before it are finished.
    void show(long long number, const std::string &what) {
        if (!enabled_) return;
        const long long done = number - 1;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        const std::string left =
            done > 0 ? fmt::format(", about {} left", clockText(elapsed / done * (total_ - done))) : "";
        fmt::print(stderr, "\r\033[K{}[{}/{}, {} elapsed{}] {}", prefix_, number, total_, clockText(elapsed), left,
                   what);
        std::fflush(stderr);
        shown_ = true;
    }
    void clear() {
        if (!shown_) return;
        fmt::print(stderr, "\r\033[K");
        std::fflush(stderr);
        shown_ = false;
    }

private:
    // "1:05", "1:02:03".
    static std::string clockText(double seconds) {
        const auto whole = static_cast<long long>(seconds);
        return whole >= 3600 ? fmt::format("{}:{:02}:{:02}", whole / 3600, whole / 60 % 60, whole % 60)
                             : fmt::format("{}:{:02}", whole / 60, whole % 60);
    }

    long long total_;
    bool enabled_;
    std::string prefix_;
    std::chrono::steady_clock::time_point start_;
    bool shown_ = false;
};

class Sweep {
public:
    // `children`: the cells of the child processes that ran the sweep before this one
    // (--processes), whose rounds each cell pools with its own; none in a child.
    Sweep(const Options &options, std::vector<Reporter *> reporters, const CopyCeiling &copy, Floors floors,
          std::vector<ChildCells> children = {})
        : options_(options),
          reporters_(std::move(reporters)),
          copy_(copy),
          floors_(std::move(floors)),
          children_(std::move(children)),
          settings_(runSettings(options)),
          progress_(cellCount(), !options.quiet && stderrIsTerminal(),
                    options.processes > 1
                        ? processLabel(thisProcess(options), options.processes, options.maxProcesses) + ": "
                        : "") {}

    // Returns how many cells passed, failed and were skipped. Stops early, between cells,
    // on SIGINT or SIGTERM.
    Tally run() {
        const int previousBlockSize = Common::blockSize();
        for (Op op : options_.ops) {
            const auto backends = sweepBackends(options_, op);
            if (backends.empty()) continue;
            for (long long size : options_.sizes) {
                if (stopSignal) break;
                if (measures(op, size)) runSize(op, size, backends);
            }
            progress_.clear();
            for (Reporter *reporter : reporters_) reporter->endOp();
            if (stopSignal) break;
        }
        Common::setBlockSize(previousBlockSize);
        progress_.clear();
        return tally_;
    }

private:
    // Whether this process measures the input: every one, except in a child given some
    // (--max-processes).
    bool measures(Op op, long long size) const {
        const auto &only = options_.childInputs;
        return only.empty() || std::find(only.begin(), only.end(), SweepInput{op, size}) != only.end();
    }

    long long cellCount() const {
        long long cells = 0;
        for (Op op : options_.ops) {
            for (const Backend *backend : sweepBackends(options_, op)) {
                const auto perInput = static_cast<long long>(blockSizesFor(*backend, options_));
                for (long long size : options_.sizes)
                    if (measures(op, size)) cells += perInput * static_cast<long long>(variants(options_, size).size());
            }
        }
        return cells;
    }

    // One input of an op and its expected result, computed once for every back end.
    struct Case {
        Op op;
        const std::vector<int> &input;
        bool npot;
        const Expected &want;
    };

    // The figures that a row is compared with, when they were measured: the CPU's and the
    // reference back end's (Backend::reference).
    struct Baselines {
        std::optional<Statistics> cpu;
        std::optional<Statistics> reference;
    };

    // The input of `size` and its SIZE - 3 companion (the input's first elements). A size
    // that no chosen back end can run, or whose CPU side does not fit in host memory, is
    // reported skipped, cell by cell, and nothing is allocated for it.
    void runSize(Op op, long long size, const std::vector<const Backend *> &backends) {
        const std::string hostShortfall =
            shortfall(inputHostBytes(size, describe(op).pairs), availableHostMemory(), "host");
        if (!anyCellRuns(op, size, backends) || !hostShortfall.empty()) {
            for (bool npot : variants(options_, size)) skipAll(op, npot ? size - 3 : size, npot, backends, hostShortfall);
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
            if (stopSignal) return;
            runCase({op, input, npot, want}, backends, label);
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

    // One cell of a case: a back end, and its block size where it takes one.
    struct Planned {
        const Backend *backend;
        std::optional<int> block;
    };

    // The CPU first, once; then the GPU back ends with fixed tile shapes, once, the
    // reference first; then those that run at the block size, at every block size. The
    // cells take turns call by call (interleaved) when --interleave and the GPU cells'
    // buffers fit in GPU memory together; else each runs alone. With --rounds, all of that
    // is done once a round, every cell's buffers and the back ends' cached device memory
    // allocated again for each; where the cells take turns, a GPU cell's input and output
    // are allocated while the last round's are still held, so that they cannot land at
    // the same addresses (the cached memory can). A cell's row pools its rounds, the child
    // processes' first (poolRounds), and a cell whose output fails in a round is reported
    // from that round.
    // Rows are reported in the plan's order once every cell of the input is done, with
    // the speed-ups over the CPU's and the reference's medians of the same input.
    void runCase(const Case &c, const std::vector<const Backend *> &backends, const std::string &label) {
        std::vector<Planned> plan;
        for (const Backend *backend : backends) {
            if (!backend->onGpu) plan.push_back({backend, std::nullopt});
        }
        for (const Backend *backend : backends) {
            if (backend->onGpu && !backend->honoursBlockSize) plan.push_back({backend, std::nullopt});
        }
        for (int block : options_.blockSizes) {
            for (const Backend *backend : backends) {
                if (backend->onGpu && backend->honoursBlockSize) plan.push_back({backend, block});
            }
        }
        std::vector<Row> rows;
        std::vector<std::unique_ptr<Measurement>> cells(plan.size());
        // With --rounds and cells taking turns: each GPU cell's last round, freed once this
        // round's cell has allocated its buffers, or when the cell ends (interleaves()
        // counts one cell more than the input has).
        std::vector<std::unique_ptr<Measurement>> held(plan.size());
        // The GPU's clocks, temperature and clock limits around each cell, or around the
        // whole input when its cells take turns.
        std::vector<GpuState> before(plan.size());
        for (const Planned &p : plan) rows.push_back(startRow(*p.backend, c, p.block));
        const bool together = interleaves(c, plan, rows);  // which frees the previous input's cached memory
        const auto cellLabel = [&](std::size_t i) {
            return fmt::format("{} {}{}", plan[i].backend->name, label,
                               plan[i].block ? fmt::format(", block {}", *plan[i].block) : std::string());
        };
        // `step(i)` for cell i at its block size; an exception fails or skips the cell
        // alone (a sticky CUDA error then skips every later GPU cell, through
        // cellSkipReason).
        const auto attempt = [&](std::size_t i, auto step) {
            if (plan[i].block) Common::setBlockSize(*plan[i].block);
            Row::Status status = Row::Status::Failed;
            std::string why;
            try {
                step();
                return true;
            } catch (const StreamCompaction::CudaError &e) {
                why = e.what();
            } catch (const StreamCompaction::Unsupported &e) {
                status = Row::Status::Skipped;  // nothing ran: "needs 98 KiB ..."
                why = e.what();
            } catch (const StreamCompaction::ImplementationError &e) {
                why = e.what();  // a submission's exception
            }
            held[i].reset();  // the cell ends: its last round's buffers too
            endCell(rows[i], cells[i], status, why);
            return false;
        };
        const int rounds = options_.rounds;
        int round = 0;
        std::vector<std::vector<std::vector<double>>> roundSamples(plan.size());  // per cell, per round
        const auto start = [&](std::size_t i) {
            if (rows[i].status != Row::Status::Passed || stopSignal) return false;
            if (!cellSkipReason(*plan[i].backend, c.op, rows[i].size).empty()) {
                held[i].reset();
                rows[i].status = Row::Status::Skipped;
                rows[i].note = cellSkipReason(*plan[i].backend, c.op, rows[i].size);
                return false;
            }
            if (plan[i].backend->onGpu && round == 0) before[i] = readGpuState();
            return attempt(i, [&] {
                cells[i] = std::make_unique<Measurement>(*plan[i].backend, c.op, c.input, settings_);
                held[i].reset();
                if (cellAllocatedHook && plan[i].backend->onGpu) {
                    cellAllocatedHook(plan[i].backend->name, round, cells[i]->deviceOutput());
                }
                cells[i]->warmUp();
            });
        };
        // A round's end for cell i: its row is complete after the last round, or after a
        // round whose output failed; before that, its samples wait for the next round's.
        const auto finish = [&](std::size_t i) {
            attempt(i, [&] {
                Run result = cells[i]->finish();
                std::unique_ptr<Measurement> last = std::move(cells[i]);  // freed on return, unless held
                roundSamples[i].push_back(std::move(result.timing.samplesMs));
                if (round + 1 < rounds && verify(c.op, result, c.want).passed()) {
                    if (together && last->deviceOutput()) held[i] = std::move(last);
                    return;
                }
                int childProcesses = 0;
                std::vector<std::vector<double>> all = childRounds(keyOf(rows[i]), children_, &childProcesses);
                all.insert(all.end(), roundSamples[i].begin(), roundSamples[i].end());
                std::optional<PooledRounds> pooled;
                if (all.size() > 1) {
                    pooled = poolRounds(all);
                    static_cast<Statistics &>(result.timing) = pooled->all;
                    rows[i].roundSpread = pooled->medianSpread;
                }
                completeRow(rows[i], *plan[i].backend, c, result, together);
                rows[i].roundSamplesMs = std::move(all);
                if (pooled && rows[i].status == Row::Status::Passed) {
                    const std::string where =
                        childProcesses == 0 ? "" : fmt::format(" in {} processes", childProcesses + 1);
                    rows[i].note = joinNotes(rows[i].note, fmt::format("{} rounds{}: medians {:.1f}% apart",
                                                                       pooled->all.rounds, where,
                                                                       100 * pooled->medianSpread));
                }
                if (plan[i].backend->onGpu) noteGpuState(rows[i], together ? before.front() : before[i]);
                mergeChildVerdicts(rows[i], children_, options_.processes);
            });
        };
        const bool anyGpu = std::any_of(plan.begin(), plan.end(), [](const Planned &p) { return p.backend->onGpu; });
        for (; round < rounds && !stopSignal; ++round) {
            const std::string roundLabel = rounds > 1 ? fmt::format(", round {} of {}", round + 1, rounds) : "";
            if (round > 0 && anyGpu) Common::releaseWorkspaces();  // allocated again by this round's warm-ups
            if (together) {
                if (round == 0) before.front() = readGpuState();
                for (std::size_t i = 0; i < plan.size(); ++i) {
                    progress_.show(done_ + static_cast<long long>(i) + 1, "warming up " + cellLabel(i) + roundLabel);
                    start(i);
                }
                progress_.show(done_ + 1, fmt::format("{}: {} cells taking turns{}", label, plan.size(), roundLabel));
                for (bool more = true; more && !stopSignal;) {
                    more = false;
                    for (std::size_t i = 0; i < plan.size(); ++i) {
                        if (!cells[i] || cells[i]->done()) continue;
                        more = attempt(i, [&] { cells[i]->sample(); }) || more;
                    }
                }
                for (std::size_t i = 0; i < plan.size(); ++i) {
                    if (cells[i]) finish(i);
                }
            } else {
                for (std::size_t i = 0; i < plan.size(); ++i) {
                    progress_.show(done_ + static_cast<long long>(i) + 1, cellLabel(i) + roundLabel);
                    if (plan[i].backend->onGpu) Common::releaseWorkspaces();  // the previous cell's cached device memory
                    if (plan[i].backend->onGpu && rows[i].status == Row::Status::Passed) {
                        rows[i].note = shortfall(cellDeviceBytes(rows[i].size, describe(rows[i].op).pairs),
                                                 Common::freeDeviceMemory(), "GPU");
                        if (!rows[i].note.empty()) rows[i].status = Row::Status::Skipped;
                    }
                    if (!start(i)) continue;
                    while (!stopSignal && !cells[i]->done()) {
                        if (!attempt(i, [&] { cells[i]->sample(); })) break;
                    }
                    if (cells[i]) finish(i);
                }
            }
        }
        done_ += static_cast<long long>(plan.size());
        Baselines baselines;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            if (rows[i].status != Row::Status::Passed) continue;
            if (!plan[i].backend->onGpu && !StreamCompaction::timedByImplementation(*plan[i].backend)) {
                baselines.cpu = rows[i].timing;  // the project's CPU, not a submission's
            }
            if (plan[i].backend->reference) baselines.reference = rows[i].timing;
        }
        for (std::size_t i = 0; i < plan.size(); ++i) {
            if (stopSignal && rows[i].status == Row::Status::Passed && rows[i].timing.samples == 0) continue;
            if (rows[i].status == Row::Status::Passed && rows[i].timing.medianMs > 0) {
                // No row is compared with itself, and the CPU's rows with nothing: the
                // speed-ups are the GPU back ends' (and a submission's CPU's).
                const bool isCpu = !plan[i].backend->onGpu && !StreamCompaction::timedByImplementation(*plan[i].backend);
                const bool overReference = plan[i].backend->onGpu && !plan[i].backend->reference;
                addFigures(rows[i], c.want.kept, isCpu ? std::nullopt : baselines.cpu,
                           overReference ? baselines.reference : std::nullopt, copy_);
            }
            report(rows[i]);
        }
    }

    // The GPU's state after a cell (or after an input's cells taking turns) on its row, and
    // a note when a clock limit slowed the GPU or the SM clock moved ("throttled: SW power
    // cap; SM clock 1980 -> 1755 MHz").
    static void noteGpuState(Row &row, const GpuState &before) {
        const GpuState after = readGpuState();
        row.smClockMHz = after.smClockMHz;
        row.temperatureC = after.temperatureC;
        row.powerW = after.powerW;
        row.throttled = throttled(before, after);
        if (row.throttled) row.note = joinNotes(row.note, gpuStateNote(before, after));
    }

    // Whether the cells of an input take turns: asked for, more than one cell, and every
    // GPU cell's buffers (cellDeviceBytes) fit in free GPU memory at once, and one cell
    // more with --rounds (a round allocates each cell while the last round's is held).
    bool interleaves(const Case &c, const std::vector<Planned> &plan, const std::vector<Row> &rows) const {
        if (!options_.interleave) return false;
        std::size_t gpuCells = 0, runnable = 0;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            if (rows[i].status != Row::Status::Passed) continue;
            ++runnable;
            if (plan[i].backend->onGpu) ++gpuCells;
        }
        if (runnable < 2) return false;
        if (gpuCells == 0) return true;
        Common::releaseWorkspaces();
        const std::size_t cellsHeld = gpuCells + (options_.rounds > 1 ? 1 : 0);
        return cellsHeld * cellDeviceBytes(static_cast<long long>(c.input.size()), describe(c.op).pairs) <=
               Common::freeDeviceMemory();
    }

    // A row for a cell, Passed until a check says otherwise: skipped for the back end's
    // own reason (cellSkipReason) or the course compaction's predicate.
    Row startRow(const Backend &backend, const Case &c, std::optional<int> block) const {
        Row row;
        row.op = c.op;
        row.backend = backend.name;
        row.size = static_cast<long long>(c.input.size());
        row.npot = c.npot;
        row.blockSize = block;
        row.note = cellSkipReason(backend, c.op, row.size);
        if (row.note.empty() && c.op == Op::Compact && StreamCompaction::timedByImplementation(backend) &&
            settings_.keep.kind != StreamCompaction::Predicate::Kind::NonZero) {
            row.note = "the course's compaction keeps the non-zero elements only";
        }
        if (!row.note.empty()) row.status = Row::Status::Skipped;
        return row;
    }

    // A cell that an exception ended: its measurement is dropped, then the error cleared
    // (Common::afterError, which marks the device lost after a sticky one).
    static void endCell(Row &row, std::unique_ptr<Measurement> &cell, Row::Status status, const std::string &why) {
        cell.reset();
        Common::afterError();
        row.status = status;
        row.note = why;
    }

    // A finished cell's verdict, timing and notes.
    void completeRow(Row &row, const Backend &backend, const Case &c, const Run &result, bool together) const {
        const Verdict verdict = verify(c.op, result, c.want);
        row.timing = result.timing;
        row.status = verdict.passed() ? Row::Status::Passed : Row::Status::Failed;
        row.note = verdict.detail;
        row.interleaved = together;
        if (c.op == Op::Compact || c.op == Op::Partition) row.kept = result.kept;
        if (row.status != Row::Status::Passed) return;
        const bool ownTimer = StreamCompaction::timedByImplementation(backend);
        if (backend.onGpu && !backend.honoursBlockSize && options_.blockSizes.size() > 1) {
            row.note = ownTimer ? kFixedBlockSize : kFixedTileShape;
        }
        if (ownTimer) row.note = joinNotes(joinNotes(kTimedByImplementation, row.timing.note), row.note);
        if (backend.onGpu && !ownTimer && row.timing.synchronizes) {
            row.note = joinNotes(kHostSynchronisation, row.note);
        }
        if (row.timing.outOfTime) {
            row.note = joinNotes(row.note, fmt::format("--max-time reached: noise {:.1f}% after {} calls",
                                                       100 * row.timing.noise(), row.timing.samples));
        }
        const auto floor = floors_.find({backend.name, c.op});
        if (floor != floors_.end() && row.timing.medianMs < 1.5 * floor->second) {
            row.launchBound = true;
            row.note = joinNotes(row.note, "launch-bound: within 1.5x of its empty call");
        }
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
                report(row);
            }
        }
    }

    void report(Row row) {
        // A cell this process skipped fails when a child's output failed it (a ran cell's
        // children's verdicts joined its row when it finished).
        if (row.status == Row::Status::Skipped) mergeChildVerdicts(row, children_, options_.processes);
        tally_.count(row.status);
        progress_.clear();
        for (Reporter *reporter : reporters_) reporter->add(row);
    }

    // Which process of the sweep this is, from 1: a child's index, else the last.
    static int thisProcess(const Options &options) {
        return options.childCells.empty() ? options.processes : options.childIndex;
    }

    const Options &options_;
    std::vector<Reporter *> reporters_;
    CopyCeiling copy_;
    Floors floors_;
    std::vector<ChildCells> children_;
    RunSettings settings_;
    Progress progress_;
    long long done_ = 0;
    Tally tally_;
};

// The largest cell, in device memory, that a chosen GPU back end can run
// (cellSkipReason): its size (0 when there is none) and whether it sorts pairs.
struct LargestCell {
    long long n = 0;
    bool pairs = false;
};

LargestCell largestGpuCell(const Options &options) {
    LargestCell largest;
    for (Op op : options.ops) {
        for (const Backend *backend : sweepBackends(options, op)) {
            for (long long size : options.sizes) {
                for (bool npot : variants(options, size)) {
                    const long long n = npot ? size - 3 : size;
                    const bool pairs = describe(op).pairs;
                    if (backend->onGpu && cellSkipReason(*backend, op, n).empty() &&
                        cellDeviceBytes(n, pairs) > cellDeviceBytes(largest.n, largest.pairs)) {
                        largest = {n, pairs};
                    }
                }
            }
        }
    }
    return largest;
}

// Whether the largest GPU cell fits in free GPU memory; returns a one-line error or "".
std::string checkMemory(const Options &options) {
    const LargestCell largest = largestGpuCell(options);
    if (largest.n == 0 || !Common::deviceAvailable()) return "";
    return memoryShortfall(largest.n, Common::freeDeviceMemory(), largest.pairs);
}

// A file a report goes to: an --output, or the context beside a CSV one.
struct Destination {
    std::string path;
    bool context = false;  // FILE.context.json beside FILE.csv
    File file;
};

// Opens every --output file and, beside each CSV, its context file; returns a one-line
// error or "".
std::string openOutputs(const Options &options, std::vector<Destination> &files) {
    const auto open = [&files](const std::string &path, bool context) {
        files.push_back({path, context, File(std::fopen(path.c_str(), "w"))});
        if (!files.back().file) return fmt::format("--output: cannot write '{}': {}", path, std::strerror(errno));
        return std::string();
    };
    for (const std::string &path : options.outputs) {
        std::string problem = open(path, false);
        if (problem.empty() && formatForPath(path) == Format::Csv) problem = open(contextPathFor(path), true);
        if (!problem.empty()) return problem;
    }
    return "";
}

// Ends every open report (the current op's table, JSON's closing brackets) after an
// error; a report that fails again is left as it is, the first error being the one
// reported.
void endAfterError(const std::vector<Reporter *> &open, const std::string &why) noexcept {
    for (Reporter *reporter : open) {
        try {
            reporter->endOp();
            reporter->stop(why);
            reporter->end();
        } catch (...) {
        }
    }
}

// A child process of a sweep in several processes (--processes): the sweep, its cells
// written to options.childCells for the parent (makeChildRecorder), nothing else: no
// report, no copy ceiling, no floors, no summary line.
int runChildSweep(const Options &options) {
    const std::string problem = checkMemory(options);
    if (!problem.empty()) {
        fmt::print(stderr, "cis565_stream_compaction: {}\n", problem);
        return kExitBadInput;
    }
    const File file(std::fopen(options.childCells.c_str(), "w"));
    if (!file) {
        fmt::print(stderr, "cis565_stream_compaction: --child-cells: cannot write '{}': {}\n", options.childCells,
                   std::strerror(errno));
        return kExitBadInput;
    }
    const std::unique_ptr<Reporter> recorder = makeChildRecorder(file.get(), "'" + options.childCells + "'");
    endWithParent();
    const StopSignals stopSignals;
    Context context;  // the launch gap alone, for the parent's report
    if (Common::deviceAvailable()) measureLaunchGapInto(context);
    recorder->begin(context);
    Tally tally;
    try {
        tally = Sweep(options, {recorder.get()}, CopyCeiling{}, Floors{}).run();
    } catch (...) {
        endAfterError({recorder.get()}, "an error");
        throw;
    }
    if (stopSignal) recorder->stop("stopped");
    recorder->end();
    return stopSignal ? 128 + stopSignal : tally.exitStatus();
}

using CellLists = std::vector<std::unique_ptr<TemporaryFile>>;

// A file for each child process's cells, made before anything runs; returns a one-line
// error, or "".
std::string makeCellLists(const Options &options, CellLists &lists) {
    try {
        for (int k = 1; k < std::max(options.processes, options.maxProcesses); ++k) {
            lists.push_back(std::make_unique<TemporaryFile>());
        }
    } catch (const std::runtime_error &e) {
        return fmt::format("--processes: {}", e.what());
    }
    return "";
}

// Set by a test: what stands in for each child process.
const ChildRunner *childRunnerForTesting = nullptr;

// Every input of the sweep, op by op.
std::vector<SweepInput> sweepInputs(const Options &options) {
    std::vector<SweepInput> inputs;
    for (Op op : options.ops) {
        for (long long size : options.sizes) inputs.push_back({op, size});
    }
    return inputs;
}

// The child processes of a sweep in several processes, one after another, each running
// the sweep this one was asked for and writing its cells to its file of `lists`; past the
// first processes - 1, with --max-processes, each measures only the inputs that the
// children before it left unsettled (unsettledInputs), and they stop when none is. Returns
// their cells, process by process, and adds their launch gaps to `gaps` (0 where one was
// not measured). Stops, with what it has, when a signal stops the sweep; throws when a
// child ends before its sweep did (its error is on stderr).
std::vector<ChildCells> runChildren(const Options &options, const CellLists &lists, std::vector<double> &gaps) {
    std::vector<ChildCells> children;
    if (!lists.empty() && Common::deviceAvailable()) Common::releaseWorkspaces();  // the children's memory
    const std::string program = thisProgram(options.program);
    const std::vector<SweepInput> inputs = sweepInputs(options);
    for (std::size_t k = 1; k <= lists.size() && !stopSignal; ++k) {
        std::vector<SweepInput> only;  // empty: every input
        if (static_cast<int>(k) >= options.processes) {
            only = unsettledInputs(inputs, children, options.maxProcessError);
            if (only.empty()) break;
            if (only.size() == inputs.size()) only.clear();
        }
        const std::string &path = lists[k - 1]->path();
        std::vector<std::string> arguments = options.arguments;
        arguments.insert(arguments.end(), {"--child-cells", path, "--child-index", std::to_string(k)});
        if (!only.empty()) arguments.insert(arguments.end(), {"--child-inputs", sweepInputsText(only)});
        if (childRunnerForTesting) {
            children.push_back((*childRunnerForTesting)(static_cast<int>(k), arguments));
            gaps.push_back(0);
            continue;
        }
        const int status = runProcess(program, arguments, &stopSignal);
        if (stopSignal) break;
        std::ifstream in(path);
        double gap = 0;
        children.push_back(readChildCells(
            in, processLabel(static_cast<int>(k), options.processes, options.maxProcesses), status, &gap));
        gaps.push_back(gap);
    }
    return children;
}

}  // namespace

void setChildRunnerForTesting(const ChildRunner *runner) { childRunnerForTesting = runner; }

int runSweep(const Options &options) {
    if (!options.childCells.empty()) return runChildSweep(options);
    std::vector<Destination> files;
    CellLists cellLists;
    std::string problem = checkMemory(options);
    if (problem.empty()) problem = makeCellLists(options, cellLists);
    if (problem.empty()) problem = openOutputs(options, files);
    if (!problem.empty()) {
        fmt::print(stderr, "cis565_stream_compaction: {}\n", problem);
        return kExitBadInput;
    }

    std::vector<std::unique_ptr<Reporter>> owned;
    owned.push_back(makeReporter(options.format, stdout, "stdout"));
    for (const Destination &to : files) {
        const std::string where = "'" + to.path + "'";
        owned.push_back(to.context ? makeContextReporter(to.file.get(), where)
                                   : makeReporter(*formatForPath(to.path), to.file.get(), where));
    }
    std::vector<Reporter *> reporters;
    for (const auto &reporter : owned) reporters.push_back(reporter.get());

    const StopSignals stopSignals;
    Floors floors;
    CopyCeiling copy;
    Context context = sweepContext(options, floors, copy);
    std::vector<Reporter *> open;  // begun and not yet ended
    Tally tally;
    try {
        for (Reporter *reporter : reporters) {
            reporter->begin(context);
            open.push_back(reporter);
        }
        std::vector<double> gaps;
        std::vector<ChildCells> children = runChildren(options, cellLists, gaps);
        // Stopped before this process's own sweep: no cell has been measured by every process.
        const int stoppedInChild =
            stopSignal && options.processes > 1 ? static_cast<int>(children.size()) + 1 : 0;
        // This process is the last: with --max-processes, the count is known only now.
        Options own = options;
        if (options.processes > 1) own.processes = static_cast<int>(children.size()) + 1;
        own.maxProcesses = 0;
        if (!stopSignal) tally = Sweep(own, reporters, copy, std::move(floors), std::move(children)).run();
        const std::string stoppedBy = stopSignal == 0 ? "" : stopSignal == SIGINT ? "SIGINT" : "SIGTERM";
        if (context.gpu && stoppedBy.empty()) {
            // The ceiling again: a GPU whose copy bandwidth moved during the sweep (clocks,
            // heat, another process) makes the figures of its start and end disagree.
            Common::releaseWorkspaces();
            const CopyCeiling end = measureCopyCeiling(context.copyBytes);
            const double drift = end.GBs / copy.GBs - 1;
            if (std::abs(drift) > kCopyDrift) {
                const std::string warning = fmt::format(
                    "the copy bandwidth moved by {:+.1f}% during the sweep ({:.0f} GB/s at the start, {:.0f} GB/s at "
                    "the end): compare its first and last figures with care",
                    100 * drift, copy.GBs, end.GBs);
                for (Reporter *reporter : open) reporter->warn(warning);
                fmt::print(stderr, "cis565_stream_compaction: warning: {}\n", warning);
            }
            context.copyBandwidthEndGBs = end.GBs;
            for (Reporter *reporter : open) reporter->closingContext(context);
        }
        while (!open.empty()) {
            Reporter *reporter = open.front();
            open.erase(open.begin());
            if (!stoppedBy.empty()) reporter->stop("stopped by " + stoppedBy);
            reporter->end();
        }
        std::fflush(stdout);
        fmt::print(stderr, "{}\n", tally.sweepSummary());
        if (!stoppedBy.empty()) {
            if (stoppedInChild > 0) {
                fmt::print(stderr,
                           "cis565_stream_compaction: stopped by {} while {} ran; a cell is reported once every "
                           "process has measured it, so the report has no rows\n",
                           stoppedBy, processLabel(stoppedInChild, options.processes, options.maxProcesses));
            } else {
                fmt::print(stderr,
                           "cis565_stream_compaction: stopped by {}; the rows finished before it are in the report\n",
                           stoppedBy);
            }
            return 128 + stopSignal;
        }
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
    return tally.exitStatus();
}

}  // namespace Harness
