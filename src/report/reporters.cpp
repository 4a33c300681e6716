#include "report/reporters.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/cli.h"
#include "report/tables.h"

namespace Harness {

namespace {

constexpr std::pair<const char *, Format> kFormatNames[] = {
    {"text", Format::Text}, {"markdown", Format::Markdown}, {"csv", Format::Csv}, {"json", Format::Json}};

constexpr std::pair<const char *, Format> kExtensions[] = {
    {".txt", Format::Text}, {".md", Format::Markdown}, {".csv", Format::Csv}, {".json", Format::Json}};

// ---- Values: one list of named fields feeds every format ----

using Value = std::variant<std::monostate, bool, long long, double, std::string>;

struct Field {
    std::string key;    // CSV and JSON
    std::string label;  // text and markdown
    Value value;
};

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

// Each process's launch gap, to the nanosecond: "1.419, 1.359, 1.502".
std::string launchGapsText(const std::vector<double> &gapsUs) {
    return fmt::format("{:.3f}", fmt::join(gapsUs, ", "));
}

std::vector<Field> contextFields(const Context &c) {
    const auto gpu = [&c](auto get) -> Value { return c.gpu ? Value(get(*c.gpu)) : Value(); };
    const auto reading = [](const auto &value) { return value ? maybe(value) : Value(std::string("unavailable")); };
    const GpuState &start = c.gpuStateAtStart;
    return {
        {"run_id", "Run", c.runId},
        {"date", "Date", c.date},
        {"mode", "Mode", c.mode},
        {"command_line", "Command", c.commandLine},
        {"version", "Program version", c.version},
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
        {"launch_gaps_us", "Launch gap of each process, in the order they ran, us",
         c.launchGapsUs.empty() ? Value() : Value(launchGapsText(c.launchGapsUs))},
        {"l2_flush", "L2 flush before a cold call", c.gpu ? Value(c.l2Flush) : Value()},
        {"driver_version", "CUDA driver", gpu([](const DeviceInfo &d) { return versionText(d.driverVersion); })},
        {"runtime_version", "CUDA runtime", gpu([](const DeviceInfo &d) { return versionText(d.runtimeVersion); })},
        {"sm_clock_MHz_at_start", "SM clock at the start, MHz", reading(start.smClockMHz)},
        {"memory_clock_MHz_at_start", "Memory clock at the start, MHz", reading(start.memoryClockMHz)},
        {"temperature_C_at_start", "GPU temperature at the start, C", reading(start.temperatureC)},
        {"power_W_at_start", "GPU power at the start, W", reading(start.powerW)},
        {"throttle_at_start", "Clock limits at the start", throttleField(start)},
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
    };
}

const char *statusName(Row::Status status) {
    switch (status) {
        case Row::Status::Passed: return "passed";
        case Row::Status::Failed: return "FAIL";
        case Row::Status::Skipped: return "skipped";
    }
    return "?";
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
        {"noise_pct", "noise (standard deviation / mean), %", ms(100 * r.timing.noise())},
        {"min_ms", "min, ms", ms(r.timing.minMs)},
        {"max_ms", "max, ms", ms(r.timing.maxMs)},
        {"samples", "timed calls", static_cast<long long>(r.timing.samples)},
        {"round_spread_pct", "spread of the rounds' medians, %",
         r.roundSpread ? Value(100 * *r.roundSpread) : Value()},
        {"rounds", "rounds", timed ? Value(static_cast<long long>(std::max(1, r.timing.rounds))) : Value()},
        {"rounds_error_pct", "standard error of the mean of the rounds' medians, %",
         timed && r.timing.rounds > 1 ? Value(100 * r.timing.roundsError) : Value()},
        {"timed", "how the calls were timed", timedText(r)},
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

std::string jsonString(const std::string &text) {
    std::string quoted = "\"";
    for (char c : text) {
        switch (c) {
            case '"': quoted += "\\\""; break;
            case '\\': quoted += "\\\\"; break;
            case '\n': quoted += "\\n"; break;
            case '\r': quoted += "\\r"; break;
            case '\t': quoted += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    quoted += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
                } else {
                    quoted += c;
                }
        }
    }
    return quoted + "\"";
}

std::string jsonText(const Value &value) {
    if (std::holds_alternative<std::string>(value)) return jsonString(std::get<std::string>(value));
    const std::string text = plainText(value);
    return text.empty() ? "null" : text;
}

std::string jsonStrings(const std::vector<std::string> &items) {
    std::string list = "[";
    for (const std::string &item : items) list += (list.size() > 1 ? ", " : "") + jsonString(item);
    return list + "]";
}

std::string jsonObject(const std::vector<Field> &fields) {
    std::string object = "{";
    for (const Field &field : fields) {
        object += fmt::format("{}{}: {}", object.size() > 1 ? ", " : "", jsonString(field.key), jsonText(field.value));
    }
    return object + "}";
}

std::string csvQuoted(const std::string &text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

// Where a report goes: every write is flushed at once, so that the rows finished so far
// are on disk whatever happens next, and a write that fails (a full disk, a removed
// file) throws, naming the destination, instead of losing the report silently.
class Output {
public:
    Output(std::FILE *file, std::string where) : file_(file), where_(std::move(where)) {}

    void write(const std::string &text) {
        std::fputs(text.c_str(), file_);
        if (std::fflush(file_) != 0 || std::ferror(file_))
            throw std::runtime_error(fmt::format("cannot write {}: {}", where_, std::strerror(errno)));
    }

private:
    std::FILE *file_;
    std::string where_;
};

// ---- CSV and JSON: a row per cell, written as it arrives ----

// The columns that tell one run's rows from another's when several CSVs are joined.
std::vector<Field> runFields(const Context &c) {
    return {
        {"run_id", "run", c.runId},
        {"date", "date", c.date},
        {"gpu", "GPU", c.gpu ? c.gpu->name : "none"},
        {"mode", "mode", c.mode},
    };
}

// A plain CSV: the header on the first line, then a row per cell, every row with its
// run's columns, so that any CSV reader takes it with its defaults.
class CsvReporter : public Reporter {
public:
    explicit CsvReporter(Output out) : out_(std::move(out)) {}

    void begin(const Context &context) override {
        run_ = runFields(context);
        writeLine(rowFields(Row{}), [](const Field &field) { return field.key; });
    }
    void add(const Row &row) override {
        writeLine(rowFields(row), [](const Field &field) { return plainText(field.value); });
    }
    void endOp() override {}
    void stop(const std::string &) override {}
    void end() override {}

private:
    template <typename Text>
    void writeLine(const std::vector<Field> &fields, Text text) {
        std::string line;
        for (const Field &field : run_) (line += line.empty() ? "" : ",") += csvQuoted(text(field));
        for (const Field &field : fields) (line += line.empty() ? "" : ",") += csvQuoted(text(field));
        out_.write(line + "\n");
    }

    Output out_;
    std::vector<Field> run_;
};

// The context of a CSV report, one key per line, written when the run ends (with what
// the run learnt after its first row: the copy measured again, warnings).
class ContextReporter : public Reporter {
public:
    explicit ContextReporter(Output out) : out_(std::move(out)) {}

    void begin(const Context &context) override { context_ = context; }
    void add(const Row &) override {}
    void endOp() override {}
    void stop(const std::string &why) override { stoppedBy_ = why; }
    void warn(const std::string &line) override { warnings_.push_back(line); }
    void closingContext(const Context &context) override { context_ = context; }
    void end() override {
        std::string text = "{";
        for (const Field &field : contextFields(context_))
            text += fmt::format("{}\n  {}: {}", text.size() > 1 ? "," : "", jsonString(field.key), jsonText(field.value));
        text += fmt::format(",\n  \"warnings\": {}", jsonStrings(warnings_));
        text += fmt::format(",\n  \"complete\": {}", stoppedBy_ ? "false" : "true");
        if (stoppedBy_) text += fmt::format(",\n  \"stopped\": {}", jsonString(*stoppedBy_));
        out_.write(text + "\n}\n");
    }

private:
    Output out_;
    Context context_;
    std::vector<std::string> warnings_;
    std::optional<std::string> stoppedBy_;
};

class JsonReporter : public Reporter {
public:
    explicit JsonReporter(Output out) : out_(std::move(out)) {}

    void begin(const Context &context) override {
        out_.write(fmt::format("{{\n  \"context\": {},\n  \"rows\": [", jsonObject(contextFields(context))));
    }
    void add(const Row &row) override {
        out_.write(fmt::format("{}\n    {}", rows_++ ? "," : "", jsonObject(rowFields(row))));
    }
    void endOp() override {}
    void stop(const std::string &why) override { stoppedBy_ = why; }
    void warn(const std::string &line) override { warnings_.push_back(line); }
    void closingContext(const Context &context) override {
        if (context.copyBandwidthEndGBs > 0) copyEnd_ = context.copyBandwidthEndGBs;
        if (!context.launchGapsUs.empty()) gaps_ = launchGapsText(context.launchGapsUs);
    }
    // "complete" says whether every cell of the sweep is in "rows".
    void end() override {
        const std::string stopped = stoppedBy_ ? fmt::format(",\n  \"stopped\": {}", jsonString(*stoppedBy_)) : "";
        std::string closing =
            copyEnd_ ? fmt::format(",\n  \"copy_bandwidth_end_GBps\": {}", jsonText(Value(*copyEnd_))) : "";
        if (gaps_) closing += fmt::format(",\n  \"launch_gaps_us\": {}", jsonString(*gaps_));
        out_.write(fmt::format("\n  ],\n  \"warnings\": {}{},\n  \"complete\": {}{}\n}}\n", jsonStrings(warnings_),
                               closing, stoppedBy_ ? "false" : "true", stopped));
    }

private:
    Output out_;
    long long rows_ = 0;
    std::vector<std::string> warnings_;
    std::optional<double> copyEnd_;
    std::optional<std::string> gaps_;
    std::optional<std::string> stoppedBy_;
};

// ---- Text and markdown: three tables per op ----

std::string formatRatio(double ratio) {
    return ratio >= 100 ? fmt::format("{:.0f}×", ratio) : fmt::format("{:.3g}×", ratio);
}

// The cell when there is no figure: the failure or skip, or a dash.
std::string statusCell(const Row *row) {
    if (!row) return "—";
    if (row->status == Row::Status::Failed) return "FAIL";
    return row->status == Row::Status::Skipped ? "skipped" : "—";
}

// Code in markdown: fenced by one backtick more than the longest run of them inside.
std::string markdownCode(const std::string &text) {
    std::size_t longest = 0, run = 0;
    for (char c : text) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
    const std::string fence(longest + 1, '`');
    return longest ? fence + " " + text + " " + fence : fence + text + fence;
}

// A table row: a size, its companion flag and a block size (none for a CPU-only op).
struct RowKey {
    long long size;
    bool npot;
    std::optional<int> blockSize;
    bool operator==(const RowKey &other) const {
        return size == other.size && npot == other.npot && blockSize == other.blockSize;
    }
};

// Text and markdown share the tables; markdown opens with a one-line summary of the
// context, the whole context folded under it, and puts each reason for a failure, a
// skip or a note in a footnote on its cells ("skipped[^1]"), listed under the op's tables.
class TableReporter : public Reporter {
public:
    TableReporter(Output out, bool markdown) : out_(std::move(out)), markdown_(markdown) {}

    void begin(const Context &context) override {
        const std::vector<Field> fields = contextFields(context);
        std::string text = markdown_ ? "## cis565_stream_compaction sweep\n\n" + summaryLine(fields) +
                                           "\n\n<details><summary>Context</summary>\n\n"
                                     : "cis565_stream_compaction sweep\n";
        for (const Field &field : fields) {
            const std::string value = plainText(field.value);
            if (value.empty()) continue;
            const bool code = markdown_ && field.key == "command_line";
            text += markdown_ ? fmt::format("- {}: {}\n", field.label, code ? markdownCode(value) : oneLine(value))
                              : fmt::format("  {}: {}\n", field.label, value);
        }
        out_.write(text + (markdown_ ? "\n</details>\n\n" : "\n"));
    }
    void add(const Row &row) override { rows_.push_back(row); }
    void endOp() override {
        if (rows_.empty()) return;
        const char *op = opName(rows_.front().op);
        const std::vector<std::string> footnotes = numberNotes();
        std::string text = markdown_ ? fmt::format("### {}\n\n", op) : "";
        text += timeTable(op);
        text += render({fmt::format("{}: effective bandwidth, GB/s (% of measured copy bandwidth)", op), {}, {}, {}},
                       [this](const Row *row) { return std::vector<std::string>{bandwidthCell(row)}; });
        const bool ratios =
            std::any_of(rows_.begin(), rows_.end(), [](const Row &r) { return r.speedupVsCpu || r.speedupVsCub; });
        if (ratios) {
            text += render({fmt::format("{}: speed-up (over cpu, over cub)", op), {}, {}, {}},
                           [this](const Row *row) { return std::vector<std::string>{speedupCell(row)}; }, {}, "cpu");
        }
        if (markdown_) {
            for (std::size_t n = 0; n < footnotes.size(); ++n)
                text += fmt::format("[^{}]: {}\n", firstFootnote_ + n, footnotes[n]);
            if (!footnotes.empty()) text += "\n";
            firstFootnote_ += footnotes.size();
        } else {
            text += notes();
        }
        rows_.clear();
        marks_.clear();
        out_.write(text);
    }
    void stop(const std::string &why) override { stoppedBy_ = why; }
    // An interrupted report says so under its last table.
    void end() override {
        if (!stoppedBy_) return;
        const std::string line = fmt::format("Incomplete: {}; the tables hold the cells finished before it.", *stoppedBy_);
        out_.write((markdown_ ? "**" + line + "**" : line) + "\n");
    }

private:
    using Cells = std::function<std::vector<std::string>(const Row *)>;

    // "GPU: NVIDIA H200 · mode: hot · commit: abc1234 · date: 2025-01-31T12:00:00Z".
    static std::string summaryLine(const std::vector<Field> &fields) {
        std::vector<std::string> parts;
        for (const auto &[key, label] : {std::pair{"gpu", "GPU"}, {"mode", "mode"}, {"git_revision", "commit"},
                                         {"date", "date"}}) {
            for (const Field &field : fields) {
                const std::string value = plainText(field.value);
                if (field.key == key && !value.empty()) parts.push_back(fmt::format("{}: {}", label, oneLine(value)));
            }
        }
        return fmt::format("{}", fmt::join(parts, " · "));
    }

    // The footnotes of this op, each reason once, and each row's reference to its own.
    std::vector<std::string> numberNotes() {
        std::vector<std::string> footnotes;
        marks_.assign(rows_.size(), "");
        if (!markdown_) return footnotes;
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            const Row &r = rows_[i];
            if (r.status == Row::Status::Passed && r.note.empty()) continue;
            const std::string text = oneLine(
                r.status == Row::Status::Skipped
                    ? r.note
                    : fmt::format("{} {}, size {}{}: {}", r.backend, opName(r.op), sizeLabel(r.size, r.npot),
                                  r.blockSize ? fmt::format(", block {}", *r.blockSize) : "", r.note));
            auto at = std::find(footnotes.begin(), footnotes.end(), text);
            if (at == footnotes.end()) at = footnotes.insert(footnotes.end(), text);
            marks_[i] = fmt::format("[^{}]", firstFootnote_ + static_cast<std::size_t>(at - footnotes.begin()));
        }
        return footnotes;
    }

    // The footnote reference of `row`'s reason, or "".
    std::string mark(const Row *row) const { return row ? marks_[static_cast<std::size_t>(row - rows_.data())] : ""; }

    std::string statusWithMark(const Row *row) const {
        const std::string cell = statusCell(row);
        return row && row->status != Row::Status::Passed ? cell + mark(row) : cell;
    }

    // Median and min–max in the unit the table's largest figure calls for: one cell in
    // markdown ("2.50 (2.00–3.00)"), two columns in text, so that the medians line up.
    std::string timeTable(const char *op) const {
        double largest = 0;
        for (const Row &r : rows_)
            if (r.status == Row::Status::Passed) largest = std::max(largest, r.timing.maxMs);
        const TimeUnit unit = timeUnitFor(largest);
        Table table{fmt::format("{}: median time, {} (min–max)", op, unit.name), {}, {}, {}};
        if (markdown_) {
            return render(std::move(table), [this, unit](const Row *row) {
                if (!row || row->status != Row::Status::Passed) return std::vector<std::string>{statusWithMark(row)};
                const Timing &t = row->timing;
                return std::vector<std::string>{fmt::format("{} ({}–{}){}", unit.format(t.medianMs),
                                                            unit.format(t.minMs), unit.format(t.maxMs), mark(row))};
            });
        }
        return render(std::move(table), [unit](const Row *row) {
            if (!row || row->status != Row::Status::Passed) return std::vector<std::string>{statusCell(row), ""};
            const Timing &t = row->timing;
            return std::vector<std::string>{unit.format(t.medianMs),
                                            fmt::format("{}–{}", unit.format(t.minMs), unit.format(t.maxMs))};
        }, {"min–max"});
    }

    std::string bandwidthCell(const Row *row) const {
        if (!row || row->status != Row::Status::Passed || !row->bandwidthGBs) return statusWithMark(row);
        std::string cell = threeDigits(*row->bandwidthGBs);
        if (row->copyFraction) cell += fmt::format(" ({:.0f}%)", 100 * *row->copyFraction);
        return cell;
    }

    std::string speedupCell(const Row *row) const {
        if (!row || row->status != Row::Status::Passed) return statusWithMark(row);
        // A ratio whose 95% interval covers 1 is a tie, and says so.
        const auto ratio = [](double value, const std::optional<Interval> &range, const char *over) {
            return formatRatio(value) + " " + over + (range && range->tie() ? " (tie)" : "");
        };
        std::string cell;
        if (row->speedupVsCpu) cell = ratio(*row->speedupVsCpu, row->speedupVsCpuRange, "cpu");
        if (row->speedupVsCub) cell += (cell.empty() ? "" : ", ") + ratio(*row->speedupVsCub, row->speedupVsCubRange, "cub");
        return cell.empty() ? "—" : cell;
    }

    // Rows: every (size, companion, block size) the GPU back ends ran, or the CPU's.
    std::vector<RowKey> keys() const {
        const bool anyBlock = std::any_of(rows_.begin(), rows_.end(), [](const Row &r) { return r.blockSize; });
        std::vector<RowKey> keys;
        for (const Row &r : rows_) {
            const RowKey key{r.size, r.npot, r.blockSize};
            if (anyBlock == bool(r.blockSize) && std::find(keys.begin(), keys.end(), key) == keys.end()) {
                keys.push_back(key);
            }
        }
        return keys;
    }

    std::vector<std::string> backends(const char *leaveOut) const {
        std::vector<std::string> names;
        for (const Row &r : rows_) {
            if (r.backend != leaveOut && std::find(names.begin(), names.end(), r.backend) == names.end()) {
                names.push_back(r.backend);
            }
        }
        return names;
    }

    // The CPU's row stands for every block size.
    const Row *find(const RowKey &key, const std::string &backend) const {
        for (const Row &r : rows_) {
            if (r.backend == backend && r.size == key.size && r.npot == key.npot &&
                (!r.blockSize || r.blockSize == key.blockSize)) {
                return &r;
            }
        }
        return nullptr;
    }

    // A row per key, a column per back end (headed by its name) and one more per name in
    // `extraHeaders`, each back end's cells coming from `cells`.
    std::string render(Table table, const Cells &cells, const std::vector<std::string> &extraHeaders = {},
                       const char *leaveOut = "") const {
        const std::vector<RowKey> rowKeys = keys();
        const bool blocks = !rowKeys.empty() && rowKeys.front().blockSize;
        const std::vector<std::string> columns = backends(leaveOut);
        table.header = {"size"};
        if (blocks) table.header.push_back("block");
        for (const std::string &backend : columns) {
            table.header.push_back(backend);
            table.header.insert(table.header.end(), extraHeaders.begin(), extraHeaders.end());
        }
        for (const RowKey &key : rowKeys) {
            std::vector<std::string> line = {sizeLabel(key.size, key.npot)};
            if (blocks) line.push_back(std::to_string(*key.blockSize));
            for (const std::string &backend : columns) {
                const std::vector<std::string> more = cells(find(key, backend));
                line.insert(line.end(), more.begin(), more.end());
            }
            table.rows.push_back(std::move(line));
        }
        return markdown_ ? markdownTable(table) : textTable(table);
    }

    // Text: each failure, and each distinct reason for skipping, under the tables.
    std::string notes() const {
        std::vector<std::string> lines;
        for (const Row &r : rows_) {
            if (r.status == Row::Status::Passed && r.note.empty()) continue;
            std::string line =
                r.status == Row::Status::Passed ? fmt::format("{}: {}", r.backend, r.note) :
                r.status == Row::Status::Skipped
                    ? fmt::format("skipped: {}", r.note)
                    : fmt::format("FAIL: {} {}, size {}{}: {}", r.backend, opName(r.op), sizeLabel(r.size, r.npot),
                                  r.blockSize ? fmt::format(", block {}", *r.blockSize) : "", r.note);
            if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
        }
        std::string text;
        for (const std::string &line : lines) text += line + "\n";
        return text.empty() ? "" : text + "\n";
    }

    Output out_;
    bool markdown_;
    std::vector<Row> rows_;
    std::vector<std::string> marks_;  // markdown: each row's footnote reference, or ""
    std::size_t firstFootnote_ = 1;   // footnotes are numbered through the whole report
    std::optional<std::string> stoppedBy_;
};

}  // namespace

Format parseFormat(const std::string &name) {
    for (const auto &[text, format] : kFormatNames) {
        if (name == text) return format;
    }
    std::vector<std::string> names;
    for (const auto &entry : kFormatNames) names.push_back(entry.first);
    throw std::invalid_argument(unknownNameMessage("format", "formats", name, names));
}

std::optional<Format> formatForPath(const std::string &name) {
    std::string path = name;  // extensions in any case: "A.CSV" is CSV
    std::transform(path.begin(), path.end(), path.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto &[extension, format] : kExtensions) {
        const std::string ext = extension;
        if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return format;
    }
    return std::nullopt;
}

std::unique_ptr<Reporter> makeReporter(Format format, std::FILE *out, const std::string &where) {
    Output output(out, where);
    switch (format) {
        case Format::Csv: return std::make_unique<CsvReporter>(std::move(output));
        case Format::Json: return std::make_unique<JsonReporter>(std::move(output));
        case Format::Markdown: return std::make_unique<TableReporter>(std::move(output), true);
        case Format::Text: return std::make_unique<TableReporter>(std::move(output), false);
    }
    return nullptr;
}

void Tally::count(Row::Status status) {
    switch (status) {
        case Row::Status::Passed: ++passed; break;
        case Row::Status::Failed: ++failed; break;
        case Row::Status::Skipped: ++skipped; break;
    }
}

int Tally::exitStatus() const {
    if (failed > 0) return kExitFailed;
    return passed == 0 && skipped > 0 ? kExitNothingRan : kExitVerified;
}

std::string Tally::courseSummary() const { return fmt::format("{} passed, {} failed, {} skipped", passed, failed, skipped); }

std::string Tally::sweepSummary() const {
    return fmt::format("{} cells verified, {} failed, {} skipped", passed, failed, skipped);
}

std::unique_ptr<Reporter> makeContextReporter(std::FILE *out, const std::string &where) {
    return std::make_unique<ContextReporter>(Output(out, where));
}

std::string contextPathFor(const std::string &csvPath) {
    const std::size_t stem = formatForPath(csvPath) == Format::Csv ? csvPath.size() - 4 : csvPath.size();
    return csvPath.substr(0, stem) + ".context.json";
}

std::string sizeLabel(long long size, bool npot) { return npot ? formatSize(size + 3) + " - 3" : formatSize(size); }

std::string jsonQuoted(const std::string &text) { return jsonString(text); }

std::string csvField(const std::string &text) { return csvQuoted(text); }

std::string oneLine(std::string text) {
    std::replace_if(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
    return text;
}

}  // namespace Harness
