#include "measure/context.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <optional>
#include <random>

#include <fmt/format.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/cccl_version.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/measurement.h>

#include "measure/device_info.h"
#include "measure/gpu_state.h"
#include "measure/runner.h"
#include "platform/platform.h"

#include "sc_git_revision.h"  // generated at build time: SC_GIT_REVISION

namespace Harness {

using StreamCompaction::Backend;
namespace Common = StreamCompaction::Common;

namespace {

// The copy ceiling is measured on 2^28 ints, or on as many as half the free GPU memory
// holds, whatever the sweep's sizes, so that "% of copy" means the same in every run.
constexpr long long kCopyInts = 1LL << 28;
constexpr int kCopyReps = 15;
// A copy ceiling that moved by more than this between the start and the end of a sweep
// is a warning in the report.
constexpr double kCopyDrift = 0.03;
// The launch gap: a chain of this many empty kernels, timed this many times, once as the
// run starts. The figures of calls that launch many kernels move with it
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

// What the build and the host say, and the sampling the options ask for.
void describeRun(const Options &options, Context &context) {
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
    context.seed = options.seed;
    context.reps = options.reps;
    context.warmup = options.warmup;
    context.keep = options.keep.name();
    context.mode = options.hot ? "hot" : "cold";
    context.sampling = samplingText(options);
    context.processes = options.processes;
}

}  // namespace

CopyCeiling measureCopyCeiling(std::size_t bytes) {
    const Statistics copy = measureCopy(bytes, kCopyReps);
    return {2.0 * double(bytes) / (copy.medianMs * 1e6), copy.noise(), copy.samples};
}

std::size_t copyCeilingBytes() {
    const std::size_t fits = Common::freeDeviceMemory() / 2 / 2 / sizeof(int);  // two buffers in half of it
    return sizeof(int) * std::min<std::size_t>(kCopyInts, fits);
}

Context sweepContext(const Options &options, Floors &floors, CopyCeiling &copy) {
    Context context;
    describeRun(options, context);
    context.gpuStateAtStart = readGpuState();  // before the copy measurement warms the GPU up
    if (Common::deviceAvailable()) {
        context.gpu = deviceInfo();
        measureLaunchGapInto(context);
        Common::releaseWorkspaces();
        context.copyBytes = copyCeilingBytes();
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

std::string remeasureCopyCeiling(Context &context, const CopyCeiling &start) {
    Common::releaseWorkspaces();
    const CopyCeiling end = measureCopyCeiling(context.copyBytes);
    context.copyBandwidthEndGBs = end.GBs;
    const double drift = end.GBs / start.GBs - 1;
    if (!(std::abs(drift) > kCopyDrift)) return "";
    return fmt::format("the copy bandwidth moved by {:+.1f}% during the sweep ({:.0f} GB/s at the start, {:.0f} GB/s "
                       "at the end): compare its first and last figures with care",
                       100 * drift, start.GBs, end.GBs);
}

}  // namespace Harness
