#include "sweep.h"

#include <algorithm>
#include <cerrno>
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

#include "device_info.h"
#include "gpu_state.h"
#include "platform.h"
#include "reporters.h"
#include "runner.h"
#include "testing_helpers.hpp"

#include "sc_git_revision.h"  // generated at build time: SC_GIT_REVISION

namespace Harness {

using StreamCompaction::Backend;
namespace Common = StreamCompaction::Common;

std::size_t cellDeviceBytes(long long n) {
    const std::size_t int64Sums = pastIntSizes(n) ? sizeof(long long) - sizeof(int) : 0;
    return (4 * sizeof(int) + int64Sums) * static_cast<std::size_t>(n);
}

std::string memoryShortfall(long long largestSize, std::size_t freeBytes) {
    const std::size_t needed = cellDeviceBytes(largestSize);
    if (needed <= freeBytes) return "";
    constexpr double GiB = 1ULL << 30;
    return fmt::format("--sizes: {} needs {:.1f} GiB of GPU memory (input, output and workspace), {:.1f} GiB free",
                       formatSize(largestSize), needed / GiB, freeBytes / GiB);
}

double trafficBytes(Op op, long long n, long long kept) { return describe(op).trafficBytes(n, kept); }

void addFigures(Row &row, long long kept, std::optional<double> cpuMs, std::optional<double> cubMs, double copyGBs) {
    const double ms = row.timing.medianMs;
    row.bandwidthGBs = trafficBytes(row.op, row.size, kept) / (ms * 1e6);
    if (copyGBs > 0) row.copyFraction = *row.bandwidthGBs / copyGBs;
    if (cpuMs) row.speedupVsCpu = *cpuMs / ms;
    if (cubMs) row.speedupVsCub = *cubMs / ms;
}

std::string cellSkipReason(const Backend &backend, Op op, long long n) {
    if (pastIntSizes(n) && !offers64(backend, op)) return "n > 2^31 - 1";
    if (!backend.onGpu) return "";
    if (!Common::deviceAvailable()) return "no CUDA device";
    return Common::deviceLost();
}

namespace {

// The copy ceiling is measured on at least 2^24 ints (past the L2 cache) and at most 2^28.
constexpr long long kCopyMinInts = 1LL << 24;
constexpr long long kCopyMaxInts = 1LL << 28;
constexpr int kCopyReps = 15;

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

Context sweepContext(const Options &options, long long largestSize) {
    Context context;
    stampRun(context);
    context.commandLine = options.commandLine;
    context.version = SC_VERSION;
    context.hostCpu = hostCpuModel();
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
    if (Common::deviceAvailable()) {
        context.gpu = deviceInfo();
        context.copyBytes = sizeof(int) * static_cast<std::size_t>(std::clamp(largestSize, kCopyMinInts, kCopyMaxInts));
        context.copyReps = kCopyReps;
        const double ms = measureCopyMs(context.copyBytes, kCopyReps);
        context.copyBandwidthGBs = 2.0 * double(context.copyBytes) / (ms * 1e6);
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
// 2^31 - 1 the expected and the actual scan sums are int64, 8n bytes more.
std::size_t inputHostBytes(long long n) {
    const std::size_t int64Sums = pastIntSizes(n) ? 2 * (sizeof(long long) - sizeof(int)) : 0;
    return (6 * sizeof(int) + int64Sums) * static_cast<std::size_t>(n);
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

// "[k/m] what is running" on stderr, rewritten in place; only on a terminal.
class Progress {
public:
    Progress(long long total, bool enabled) : total_(total), enabled_(enabled) {}
    ~Progress() { clear(); }  // also when an error ends the sweep
    Progress(const Progress &) = delete;
    Progress &operator=(const Progress &) = delete;

    void show(long long done, const std::string &what) {
        if (!enabled_) return;
        fmt::print(stderr, "\r\033[K[{}/{}] {}", done, total_, what);
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
    long long total_;
    bool enabled_;
    bool shown_ = false;
};

class Sweep {
public:
    Sweep(const Options &options, std::vector<Reporter *> reporters, double copyBandwidthGBs)
        : options_(options),
          reporters_(std::move(reporters)),
          copyGBs_(copyBandwidthGBs),
          progress_(cellCount(), !options.quiet && stderrIsTerminal()) {
        settings_.warmup = options.warmup;
        settings_.reps = options.reps;
        settings_.keep = options.keep;
    }

    // Returns how many cells passed, failed and were skipped. Stops early, between cells,
    // on SIGINT or SIGTERM.
    Tally run() {
        const int previousBlockSize = Common::blockSize();
        for (Op op : options_.ops) {
            const auto backends = sweepBackends(options_, op);
            if (backends.empty()) continue;
            for (long long size : options_.sizes) {
                if (stopSignal) break;
                runSize(op, size, backends);
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
    long long cellCount() const {
        long long cells = 0;
        for (Op op : options_.ops) {
            for (const Backend *backend : sweepBackends(options_, op)) {
                const auto perInput = static_cast<long long>(blockSizesFor(*backend, options_));
                for (long long size : options_.sizes)
                    cells += perInput * static_cast<long long>(variants(options_, size).size());
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

    // The medians that a row is compared with, when they were measured: the CPU's and the
    // reference back end's (Backend::reference).
    struct Baselines {
        std::optional<double> cpuMs;
        std::optional<double> referenceMs;
    };

    // The input of `size` and its SIZE - 3 companion (the input's first elements). A size
    // that no chosen back end can run, or whose CPU side does not fit in host memory, is
    // reported skipped, cell by cell, and nothing is allocated for it.
    void runSize(Op op, long long size, const std::vector<const Backend *> &backends) {
        const std::string hostShortfall = shortfall(inputHostBytes(size), availableHostMemory(), "host");
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
            progress_.show(done_, "CPU reference for " + label);
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

    // The CPU first, once; then the GPU back ends with fixed tile shapes, once, the
    // reference first; then those that run at the block size, at every block size.
    void runCase(const Case &c, const std::vector<const Backend *> &backends, const std::string &label) {
        Baselines baselines;
        const auto runOnce = [&](const Backend &backend) {
            progress_.show(++done_, fmt::format("{} {}", backend.name, label));
            const Row row = measure(backend, c, std::nullopt, baselines);
            if (row.status == Row::Status::Passed) {
                if (!backend.onGpu && !StreamCompaction::timedByImplementation(backend)) {
                    baselines.cpuMs = row.timing.medianMs;  // the project's CPU, not a submission's
                }
                if (backend.reference) baselines.referenceMs = row.timing.medianMs;
            }
            report(row);
        };
        for (const Backend *backend : backends) {
            if (!backend->onGpu && !stopSignal) runOnce(*backend);
        }
        for (const Backend *backend : backends) {
            if (backend->onGpu && !backend->honoursBlockSize && !stopSignal) runOnce(*backend);
        }
        for (int block : options_.blockSizes) {
            Common::setBlockSize(block);
            for (const Backend *backend : backends) {
                if (!backend->onGpu || !backend->honoursBlockSize || stopSignal) continue;
                progress_.show(++done_, fmt::format("{} {}, block {}", backend->name, label, block));
                report(measure(*backend, c, block, baselines));
            }
        }
    }

    // Runs and checks one cell; a CUDA error fails the cell and the sweep goes on.
    Row measure(const Backend &backend, const Case &c, std::optional<int> block, const Baselines &baselines) const {
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
        if (!row.note.empty()) {
            row.status = Row::Status::Skipped;
            return row;
        }
        if (backend.onGpu) {
            Common::releaseWorkspaces();  // the previous cell's cached device memory
            row.note = shortfall(cellDeviceBytes(row.size), Common::freeDeviceMemory(), "GPU");
            if (!row.note.empty()) {
                row.status = Row::Status::Skipped;
                return row;
            }
        }
        try {
            const Run result = Harness::run(backend, c.op, c.input, settings_);
            const Verdict verdict = verify(c.op, result, c.want);
            row.timing = result.timing;
            row.status = verdict.passed() ? Row::Status::Passed : Row::Status::Failed;
            row.note = verdict.detail;
            if (c.op == Op::Compact || c.op == Op::Partition) row.kept = result.kept;
        } catch (const StreamCompaction::CudaError &e) {
            // The sweep goes on; after a sticky error every later GPU cell is skipped with
            // the reason Common::deviceLost() gives.
            row.status = Row::Status::Failed;
            row.note = e.what();
        } catch (const StreamCompaction::Unsupported &e) {
            row.status = Row::Status::Skipped;  // nothing ran: "needs 98 KiB of shared memory ..."
            row.note = e.what();
        } catch (const StreamCompaction::ImplementationError &e) {
            row.status = Row::Status::Failed;  // a submission's exception fails its cell only
            row.note = e.what();
        }
        if (row.status == Row::Status::Passed && row.timing.medianMs > 0) {
            addFigures(row, c.want.kept, baselines.cpuMs, baselines.referenceMs, copyGBs_);
        }
        const bool ownTimer = StreamCompaction::timedByImplementation(backend);
        if (row.status == Row::Status::Passed && backend.onGpu && !backend.honoursBlockSize &&
            options_.blockSizes.size() > 1) {
            row.note = ownTimer ? kFixedBlockSize : kFixedTileShape;
        }
        if (row.status == Row::Status::Passed && ownTimer) {
            row.note = joinNotes(joinNotes(kTimedByImplementation, row.timing.note), row.note);
        }
        return row;
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

    void report(const Row &row) {
        tally_.count(row.status);
        progress_.clear();
        for (Reporter *reporter : reporters_) reporter->add(row);
    }

    const Options &options_;
    std::vector<Reporter *> reporters_;
    double copyGBs_;
    RunSettings settings_;
    Progress progress_;
    long long done_ = 0;
    Tally tally_;
};

// The size of the largest cell a chosen GPU back end can run (cellSkipReason), or 0
// when there is none.
long long largestGpuCell(const Options &options) {
    long long largest = 0;
    for (Op op : options.ops) {
        for (const Backend *backend : sweepBackends(options, op)) {
            for (long long size : options.sizes) {
                for (bool npot : variants(options, size)) {
                    const long long n = npot ? size - 3 : size;
                    if (backend->onGpu && cellSkipReason(*backend, op, n).empty()) largest = std::max(largest, n);
                }
            }
        }
    }
    return largest;
}

// Whether the largest GPU cell fits in free GPU memory; returns a one-line error or "".
std::string checkMemory(const Options &options) {
    const long long largest = largestGpuCell(options);
    if (largest == 0 || !Common::deviceAvailable()) return "";
    return memoryShortfall(largest, Common::freeDeviceMemory());
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

}  // namespace

int runSweep(const Options &options) {
    const long long largestSize = *std::max_element(options.sizes.begin(), options.sizes.end());
    std::vector<Destination> files;
    std::string problem = checkMemory(options);
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
    const Context context = sweepContext(options, largestSize);
    std::vector<Reporter *> open;  // begun and not yet ended
    Tally tally;
    try {
        for (Reporter *reporter : reporters) {
            reporter->begin(context);
            open.push_back(reporter);
        }
        tally = Sweep(options, reporters, context.copyBandwidthGBs).run();
        const std::string stoppedBy = stopSignal == 0 ? "" : stopSignal == SIGINT ? "SIGINT" : "SIGTERM";
        while (!open.empty()) {
            Reporter *reporter = open.front();
            open.erase(open.begin());
            if (!stoppedBy.empty()) reporter->stop("stopped by " + stoppedBy);
            reporter->end();
        }
        std::fflush(stdout);
        fmt::print(stderr, "{}\n", tally.sweepSummary());
        if (!stoppedBy.empty()) {
            fmt::print(stderr, "cis565_stream_compaction: stopped by {}; the rows finished before it are in the report\n",
                       stoppedBy);
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
