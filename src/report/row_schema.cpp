#include "report/row_schema.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace Harness {

namespace {

template <typename T>
Value maybe(const std::optional<T> &value) {
    if (!value) return std::monostate{};
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<double>(*value);
    } else {
        return static_cast<long long>(*value);
    }
}

std::string versionText(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

// Every operation's byte count, as operations.cpp describes it.
std::string bytesCountedText() {
    std::vector<std::string> parts;
    for (Op op : kAllOps) parts.push_back(describe(op).bytesCounted);
    return fmt::format("{}", fmt::join(parts, ", "));
}

// The clock-limit reasons of a GPU reading: the ones that slow a benchmark down, "none",
// or "unavailable".
std::string throttleField(const GpuState &state) {
    if (!state.throttleReasons) return "unavailable";
    const std::string text = throttleText(*state.throttleReasons);
    return text.empty() ? "none" : text;
}

// A figure of a row's traced call (--explain); none when it has none.
template <typename Get>
Value traced(const Row &row, Get get) {
    return row.explanation && row.explanation->traced() ? Value(get(*row.explanation)) : Value();
}

Value low(const std::optional<Interval> &range) { return range ? Value(range->low) : Value(); }
Value high(const std::optional<Interval> &range) { return range ? Value(range->high) : Value(); }

// How a row's calls were timed: "events (stream held)" (host launch time out), "events
// (host synchronisation)" (a call that waits for the device), "events" (without the
// blocking kernel), "implementation" (a submission's own timer), "host timer" (the
// CPU's); "" for a skipped row.
std::string timedText(const Row &r) {
    if (r.status == Row::Status::Skipped || r.timing.samples == 0) return "";
    const Timing &t = r.timing;
    if (t.byImplementation) return "implementation";
    if (t.held) return "events (stream held)";
    if (t.synchronizes) return "events (host synchronisation)";
    return t.cold ? "events" : "host timer";
}

// The fields of the GPU, from its name to its state at the start: its ceilings, launch
// times and clocks (empty without a GPU), with the processes and the L2 flush among them.
std::vector<Field> deviceFields(const Context &c) {
    const auto gpu = [&c](auto get) -> Value { return c.gpu ? Value(get(*c.gpu)) : Value(); };
    const auto reading = [](const auto &value) { return value ? maybe(value) : Value(std::string("unavailable")); };
    const GpuState &start = c.gpuStateAtStart;
    return {
        {"gpu", "GPU", c.gpu ? c.gpu->name : "none (no CUDA device)"},
        {"gpu_uuid", "GPU UUID", gpu([](const DeviceInfo &d) { return d.uuid; })},
        {"compute_capability", "Compute capability",
         gpu([](const DeviceInfo &d) { return fmt::format("{}.{}", d.computeMajor, d.computeMinor); })},
        {"sm_count", "SMs", gpu([](const DeviceInfo &d) { return static_cast<long long>(d.multiprocessors); })},
        {"gpu_memory_GiB", "GPU memory, GiB",
         gpu([](const DeviceInfo &d) { return d.globalMemoryBytes / double(1ULL << 30); })},
        {"l2_cache_MiB", "L2 cache, MiB", gpu([](const DeviceInfo &d) { return d.l2CacheBytes / double(1ULL << 20); })},
        {"theoretical_bandwidth_GBps", "Theoretical memory bandwidth, GB/s",
         gpu([](const DeviceInfo &d) { return d.theoreticalBandwidthGBs; })},
        {"copy_bandwidth_GBps", "Measured device-to-device copy bandwidth, GB/s",
         c.gpu ? Value(c.copyBandwidthGBs) : Value()},
        {"copy_method", "Copy measurement",
         c.gpu ? Value(fmt::format("cudaMemcpy device to device of {} bytes, L2 flushed before each, median of {} "
                                   "(noise {:.2f}%); GB/s = 2 x bytes / time",
                                   c.copyBytes, c.copyReps, 100 * c.copyNoise))
               : Value()},
        {"copy_bandwidth_end_GBps", "The same copy after the last cell, GB/s",
         c.gpu && c.copyBandwidthEndGBs > 0 ? Value(c.copyBandwidthEndGBs) : Value()},
        {"launch_floors", "Empty call (n = 0) of each GPU back end", c.gpu ? Value(c.launchFloors) : Value()},
        {"launch_gap_us", "GPU time per launch in a chain of empty kernels, us",
         c.gpu && c.launchGapUs > 0 ? Value(c.launchGapUs) : Value()},
        {"launch_gap_method", "Launch gap measurement", c.gpu ? Value(c.launchGapMethod) : Value()},
        {"processes", "Processes each figure is measured in, at least", static_cast<long long>(c.processes)},
        {"l2_flush", "L2 flush before a cold call", c.gpu ? Value(c.l2Flush) : Value()},
        {"driver_version", "CUDA driver", gpu([](const DeviceInfo &d) { return versionText(d.driverVersion); })},
        {"runtime_version", "CUDA runtime", gpu([](const DeviceInfo &d) { return versionText(d.runtimeVersion); })},
        {"sm_clock_MHz_at_start", "SM clock at the start, MHz", reading(start.smClockMHz)},
        {"memory_clock_MHz_at_start", "Memory clock at the start, MHz", reading(start.memoryClockMHz)},
        {"temperature_C_at_start", "GPU temperature at the start, C", reading(start.temperatureC)},
        {"power_W_at_start", "GPU power at the start, W", reading(start.powerW)},
        {"throttle_at_start", "Clock limits at the start", throttleField(start)},
    };
}

}  // namespace

std::vector<Field> contextFields(const Context &c) {
    std::vector<Field> fields = {
        {"run_id", "Run", c.runId},
        {"date", "Date", c.date},
        {"mode", "Mode", c.mode},
        {"command_line", "Command", c.commandLine},
        {"version", "Program version", c.version},
    };
    const std::vector<Field> device = deviceFields(c);
    fields.insert(fields.end(), device.begin(), device.end());
    fields.insert(fields.end(), {
        {"nvcc_version", "nvcc", c.nvccVersion},
        {"cuda_flags", "CUDA flags", c.cudaFlags},
        {"cuda_architectures", "CUDA architectures", c.cudaArchitectures},
        {"cccl_version", "CCCL", c.ccclVersion},
        {"host_cpu", "Host CPU", c.hostCpu},
        {"host_cpus", "Host CPUs the process may run on", c.hostCpus},
        {"build_type", "Build type", c.buildType},
        {"git_revision", "Git revision", c.gitRevision},
        {"seed", "Seed", static_cast<long long>(c.seed)},
        {"reps", "Timed calls per cell",
         c.reps > 0 ? Value(static_cast<long long>(c.reps)) : Value(std::string("until the noise is known"))},
        {"warmup", "Untimed calls before them", static_cast<long long>(c.warmup)},
        {"keep", "Compact and partition keep", c.keep},
        {"timing", "Timing",
         std::string("the median of the timed calls, each GPU call between CUDA events on the default stream "
                     "(no allocation, no host copies; a compaction's count is read after the stop event); CPU: "
                     "std::chrono around the loop; course submissions: their own timers")},
        {"sampling", "Calls per figure", c.sampling},
        {"bytes_counted", "Bytes counted for GB/s", bytesCountedText()},
    });
    return fields;
}

const char *statusName(Row::Status status) {
    switch (status) {
        case Row::Status::Passed: return "passed";
        case Row::Status::Failed: return "FAIL";
        case Row::Status::Skipped: return "skipped";
    }
    return "?";
}

std::vector<Field> rowFields(const Row &r) {
    const bool timed = r.status != Row::Status::Skipped;
    const auto ms = [timed](double value) { return timed ? Value(value) : Value(); };
    return {
        {"op", "op", std::string(opName(r.op))},
        {"backend", "back end", r.backend},
        {"size", "size", r.size},
        {"npot", "non-power-of-two", r.npot},
        {"block_size", "block size", maybe(r.blockSize)},
        {"median_ms", "median, ms", ms(r.timing.medianMs)},
        {"mean_ms", "mean, ms", ms(r.timing.meanMs)},
        {"stddev_ms", "standard deviation, ms", ms(r.timing.stddevMs)},
        {"noise_pct", "noise (standard deviation / mean), %", ms(100 * r.timing.noise())},
        {"min_ms", "min, ms", ms(r.timing.minMs)},
        {"max_ms", "max, ms", ms(r.timing.maxMs)},
        {"p10_ms", "10th percentile, ms", ms(r.timing.p10Ms)},
        {"p90_ms", "90th percentile, ms", ms(r.timing.p90Ms)},
        {"samples", "timed calls", static_cast<long long>(r.timing.samples)},
        {"round_spread_pct", "spread of the rounds' medians, %",
         r.roundSpread ? Value(100 * *r.roundSpread) : Value()},
        {"rounds", "rounds", timed ? Value(static_cast<long long>(std::max(1, r.timing.rounds))) : Value()},
        {"rounds_error_pct", "standard error of the mean of the rounds' medians, %",
         timed && r.timing.rounds > 1 ? Value(100 * r.timing.roundsError) : Value()},
        {"rounds_error", "the same, as a fraction", ms(r.timing.roundsError)},
        {"timed", "how the calls were timed", timedText(r)},
        {"held", "the stream held through every timed call", r.timing.held},
        {"synchronizes", "a host synchronisation in each call", r.timing.synchronizes},
        {"by_implementation", "timed by the implementation's own timer", r.timing.byImplementation},
        {"cold", "the L2 cache flushed before every timed call", r.timing.cold},
        {"out_of_time", "sampling stopped before the noise was known", r.timing.outOfTime},
        {"launch_bound", "launch-bound", r.launchBound},
        {"interleaved", "interleaved", r.interleaved},
        {"sm_clock_MHz", "SM clock after, MHz", maybe(r.smClockMHz)},
        {"temperature_C", "GPU temperature after, C", maybe(r.temperatureC)},
        {"power_W", "GPU power after, W", maybe(r.powerW)},
        {"throttled", "clock limited", r.throttled},
        {"bandwidth_GBps", "GB/s", maybe(r.bandwidthGBs)},
        {"copy_fraction", "fraction of copy bandwidth", maybe(r.copyFraction)},
        {"copy_fraction_low", "fraction of copy bandwidth, 95% low", low(r.copyFractionRange)},
        {"copy_fraction_high", "fraction of copy bandwidth, 95% high", high(r.copyFractionRange)},
        {"speedup_vs_cpu", "speed-up over cpu", maybe(r.speedupVsCpu)},
        {"speedup_vs_cpu_low", "speed-up over cpu, 95% low", low(r.speedupVsCpuRange)},
        {"speedup_vs_cpu_high", "speed-up over cpu, 95% high", high(r.speedupVsCpuRange)},
        {"speedup_vs_cub", "speed-up over cub", maybe(r.speedupVsCub)},
        {"speedup_vs_cub_low", "speed-up over cub, 95% low", low(r.speedupVsCubRange)},
        {"speedup_vs_cub_high", "speed-up over cub, 95% high", high(r.speedupVsCubRange)},
        {"kernels", "kernels in the traced call",
         traced(r, [](const Explanation &e) { return static_cast<long long>(e.kernels); })},
        {"kernel_ms", "time in kernels, ms", traced(r, [](const Explanation &e) { return e.kernelMs; })},
        {"between_ms", "time between GPU work, ms", traced(r, [](const Explanation &e) { return e.betweenMs; })},
        {"traced_ms", "the traced call, ms", traced(r, [](const Explanation &e) { return e.callMs; })},
        {"explain", "what bounds the call", r.explanation ? Value(r.explanation->verdict) : Value()},
        {"kept", "kept", maybe(r.kept)},
        {"verified", "verified", std::string(statusName(r.status))},
        {"note", "note", r.note},
    };
}

// The value as plain text: empty when missing, six significant digits for reals.
std::string plainText(const Value &value) {
    struct {
        std::string operator()(std::monostate) const { return ""; }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(long long n) const { return std::to_string(n); }
        std::string operator()(double x) const { return std::isfinite(x) ? fmt::format("{:.6g}", x) : ""; }
        std::string operator()(const std::string &s) const { return s; }
    } visitor;
    return std::visit(visitor, value);
}

// The columns that tell one run's rows from another's when several CSVs are joined.
std::vector<Field> runFields(const Context &c) {
    return {
        {"run_id", "run", c.runId},
        {"date", "date", c.date},
        {"gpu", "GPU", c.gpu ? c.gpu->name : "none"},
        {"mode", "mode", c.mode},
    };
}

}  // namespace Harness
