// The JSON report and the context file beside a CSV, written through nlohmann-json from
// the row schema (row_schema.h), and a JSON report read back into the schema's rows.

#include "report/json_report.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/writers.h"

namespace Harness {

namespace {

using Json = nlohmann::ordered_json;

Json toJson(const Value &value) {
    struct {
        Json operator()(std::monostate) const { return nullptr; }
        Json operator()(bool b) const { return b; }
        Json operator()(long long n) const { return n; }
        Json operator()(double x) const { return std::isfinite(x) ? Json(x) : Json(nullptr); }
        Json operator()(const std::string &s) const { return s; }
    } visitor;
    return std::visit(visitor, value);
}

// A scalar as nlohmann writes it, text that is not UTF-8 kept readable (U+FFFD) rather
// than refused.
std::string scalarText(const Json &value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

// One line, a space after each ':' and ',': {"op": "scan", "size": 1024}.
std::string lineText(const Json &value) {
    std::string text;
    if (value.is_object()) {
        for (const auto &[key, item] : value.items())
            text += (text.empty() ? "" : ", ") + scalarText(Json(key)) + ": " + lineText(item);
        return "{" + text + "}";
    }
    if (value.is_array()) {
        for (const Json &item : value) text += (text.empty() ? "" : ", ") + lineText(item);
        return "[" + text + "]";
    }
    return scalarText(value);
}

// The ending every JSON document of the reports shares: the run's warnings, what it
// learnt at its end (`closing`, members that follow a comma), whether it ended, and why not.
std::string endingText(const std::vector<std::string> &warnings, const std::string &closing,
                       const std::optional<std::string> &stoppedBy) {
    std::string text = fmt::format(",\n  \"warnings\": {}", jsonText(warnings)) + closing;
    text += fmt::format(",\n  \"complete\": {}", stoppedBy ? "false" : "true");
    if (stoppedBy) text += fmt::format(",\n  \"stopped\": {}", jsonText(Value(*stoppedBy)));
    return text + "\n}\n";
}

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
            text += fmt::format("{}\n  {}: {}", text.size() > 1 ? "," : "", jsonText(Value(field.key)), jsonText(field.value));
        out_.write(text + endingText(warnings_, "", stoppedBy_));
    }

private:
    Output out_;
    Context context_;
    std::vector<std::string> warnings_;
    std::optional<std::string> stoppedBy_;
};

// "complete" says whether every cell of the sweep is in "rows"; what the run learns at
// its end (the copy measured again) follows the rows.
class JsonReporter : public Reporter {
public:
    explicit JsonReporter(Output out) : out_(std::move(out)) {}

    void begin(const Context &context) override {
        out_.write(fmt::format("{{\n  \"context\": {},\n  \"rows\": [", jsonText(contextFields(context))));
    }
    void add(const Row &row) override { out_.write(fmt::format("{}\n    {}", rows_++ ? "," : "", jsonText(rowFields(row)))); }
    void endOp() override {}
    void stop(const std::string &why) override { stoppedBy_ = why; }
    void warn(const std::string &line) override { warnings_.push_back(line); }
    void closingContext(const Context &context) override {
        if (context.copyBandwidthEndGBs > 0) copyEnd_ = context.copyBandwidthEndGBs;
    }
    void end() override {
        const std::string copyEnd =
            copyEnd_ ? fmt::format(",\n  \"copy_bandwidth_end_GBps\": {}", jsonText(Value(*copyEnd_))) : "";
        out_.write("\n  ]" + endingText(warnings_, copyEnd, stoppedBy_));
    }

private:
    Output out_;
    long long rows_ = 0;
    std::vector<std::string> warnings_;
    std::optional<double> copyEnd_;
    std::optional<std::string> stoppedBy_;
};


// ---- Reading a report back ----

// An object of a report (a row, the context) whose members are read by key, each naming
// the object and the key when it is not what the writer writes.
class Members {
public:
    Members(const Json &object, std::string what) : object_(object), what_(std::move(what)) {
        if (!object.is_object()) throw std::runtime_error(what_ + " is not an object");
    }

    // The member's value, none when it is missing or null.
    template <typename T>
    std::optional<T> optional(const char *key) const {
        const auto found = object_.find(key);
        if (found == object_.end() || found->is_null()) return std::nullopt;
        const bool fits = std::is_same_v<T, bool>          ? found->is_boolean()
                          : std::is_same_v<T, std::string> ? found->is_string()
                          : std::is_floating_point_v<T>    ? found->is_number()
                                                           : found->is_number_integer();
        if (!fits) throw std::runtime_error(fmt::format("{}: \"{}\" is {}, not {}", what_, key, scalarText(*found), kind<T>()));
        return found->get<T>();
    }
    template <typename T>
    T required(const char *key) const {
        const std::optional<T> value = optional<T>(key);
        if (!value) throw std::runtime_error(fmt::format("{} has no \"{}\"", what_, key));
        return *value;
    }
    double real(const char *key) const { return optional<double>(key).value_or(0); }
    bool flag(const char *key) const { return optional<bool>(key).value_or(false); }
    std::string text(const char *key) const { return optional<std::string>(key).value_or(""); }
    std::optional<Interval> interval(const char *key, const char *lowKey, const char *highKey) const {
        const std::optional<double> value = optional<double>(key), low = optional<double>(lowKey),
                                    high = optional<double>(highKey);
        if (!value || !low || !high) return std::nullopt;
        return Interval{*value, *low, *high};
    }
    // A reading of the GPU's state: a number, or "unavailable".
    template <typename T>
    std::optional<T> reading(const char *key) const {
        const auto found = object_.find(key);
        return found != object_.end() && found->is_number() ? std::optional<T>(found->get<T>()) : std::nullopt;
    }
    const std::string &what() const { return what_; }

private:
    template <typename T>
    static const char *kind() {
        if constexpr (std::is_same_v<T, bool>) return "true or false";
        if constexpr (std::is_same_v<T, std::string>) return "a string";
        return std::is_floating_point_v<T> ? "a number" : "an integer";
    }

    const Json &object_;
    std::string what_;
};

Op opNamed(const Members &row, const std::string &name) {
    for (Op op : kAllOps)
        if (name == opName(op)) return op;
    throw std::runtime_error(fmt::format("{}: \"op\" is '{}', no operation's name", row.what(), name));
}

Row::Status statusNamed(const Members &row, const std::string &name) {
    for (Row::Status status : {Row::Status::Passed, Row::Status::Failed, Row::Status::Skipped})
        if (name == statusName(status)) return status;
    throw std::runtime_error(fmt::format("{}: \"verified\" is '{}'; expected passed, FAIL or skipped", row.what(), name));
}

Timing timingOf(const Members &m) {
    Timing t;
    t.samples = m.optional<int>("samples").value_or(0);
    t.medianMs = m.real("median_ms");
    t.meanMs = m.real("mean_ms");
    t.stddevMs = m.real("stddev_ms");
    t.minMs = m.real("min_ms");
    t.maxMs = m.real("max_ms");
    t.p10Ms = m.real("p10_ms");
    t.p90Ms = m.real("p90_ms");
    t.rounds = m.optional<int>("rounds").value_or(0);
    t.roundsError = m.real("rounds_error");
    t.held = m.flag("held");
    t.synchronizes = m.flag("synchronizes");
    t.byImplementation = m.flag("by_implementation");
    t.cold = m.flag("cold");
    t.outOfTime = m.flag("out_of_time");
    return t;
}

// The fields rowFields writes, back into a row.
Row rowOf(const Members &m) {
    Row r;
    r.op = opNamed(m, m.required<std::string>("op"));
    r.backend = m.required<std::string>("backend");
    r.size = m.required<long long>("size");
    r.npot = m.flag("npot");
    r.blockSize = m.optional<int>("block_size");
    r.status = statusNamed(m, m.required<std::string>("verified"));
    r.note = m.text("note");
    r.timing = timingOf(m);
    r.kept = m.optional<long long>("kept");
    r.bandwidthGBs = m.optional<double>("bandwidth_GBps");
    r.copyFraction = m.optional<double>("copy_fraction");
    r.speedupVsCpu = m.optional<double>("speedup_vs_cpu");
    r.speedupVsCub = m.optional<double>("speedup_vs_cub");
    r.copyFractionRange = m.interval("copy_fraction", "copy_fraction_low", "copy_fraction_high");
    r.speedupVsCpuRange = m.interval("speedup_vs_cpu", "speedup_vs_cpu_low", "speedup_vs_cpu_high");
    r.speedupVsCubRange = m.interval("speedup_vs_cub", "speedup_vs_cub_low", "speedup_vs_cub_high");
    if (const std::optional<double> spread = m.optional<double>("round_spread_pct")) r.roundSpread = *spread / 100;
    r.launchBound = m.flag("launch_bound");
    r.interleaved = m.flag("interleaved");
    r.smClockMHz = m.optional<unsigned>("sm_clock_MHz");
    r.temperatureC = m.optional<unsigned>("temperature_C");
    r.powerW = m.optional<double>("power_W");
    r.throttled = m.flag("throttled");
    return r;
}

// "13.0" as the CUDA version number 13000.
int versionNumber(const std::string &text) {
    int major = 0, minor = 0;
    return std::sscanf(text.c_str(), "%d.%d", &major, &minor) == 2 ? major * 1000 + minor * 10 : 0;
}

std::optional<DeviceInfo> gpuOf(const Members &m) {
    const std::optional<std::string> capability = m.optional<std::string>("compute_capability");
    if (!capability) return std::nullopt;  // written without a CUDA device
    DeviceInfo d;
    d.name = m.text("gpu");
    d.uuid = m.text("gpu_uuid");
    std::sscanf(capability->c_str(), "%d.%d", &d.computeMajor, &d.computeMinor);
    d.multiprocessors = m.optional<int>("sm_count").value_or(0);
    d.globalMemoryBytes = static_cast<std::size_t>(m.real("gpu_memory_GiB") * double(1ULL << 30));
    d.l2CacheBytes = static_cast<std::size_t>(m.real("l2_cache_MiB") * double(1ULL << 20));
    d.theoreticalBandwidthGBs = m.real("theoretical_bandwidth_GBps");
    d.driverVersion = versionNumber(m.text("driver_version"));
    d.runtimeVersion = versionNumber(m.text("runtime_version"));
    return d;
}

// The GPU's description, the copy and launch measurements and the GPU's state at the start.
void readMeasurements(const Members &m, Context &c) {
    c.gpu = gpuOf(m);
    c.copyBandwidthGBs = m.real("copy_bandwidth_GBps");
    c.copyBandwidthEndGBs = m.real("copy_bandwidth_end_GBps");
    double noisePct = 0;
    if (std::sscanf(m.text("copy_method").c_str(), "cudaMemcpy device to device of %zu bytes, L2 flushed before each, "
                                                   "median of %d (noise %lf%%)",
                    &c.copyBytes, &c.copyReps, &noisePct) == 3)
        c.copyNoise = noisePct / 100;
    c.launchFloors = m.text("launch_floors");
    c.launchGapUs = m.real("launch_gap_us");
    c.launchGapMethod = m.text("launch_gap_method");
    c.l2Flush = m.text("l2_flush");
    c.gpuStateAtStart.smClockMHz = m.reading<unsigned>("sm_clock_MHz_at_start");
    c.gpuStateAtStart.memoryClockMHz = m.reading<unsigned>("memory_clock_MHz_at_start");
    c.gpuStateAtStart.temperatureC = m.reading<unsigned>("temperature_C_at_start");
    c.gpuStateAtStart.powerW = m.reading<double>("power_W_at_start");
}

// The fields contextFields writes, back into a context.
Context contextOf(const Members &m) {
    Context c;
    c.runId = m.text("run_id");
    c.date = m.text("date");
    c.mode = m.text("mode");
    c.commandLine = m.text("command_line");
    c.version = m.text("version");
    readMeasurements(m, c);
    c.processes = m.optional<int>("processes").value_or(1);
    c.nvccVersion = m.text("nvcc_version");
    c.cudaFlags = m.text("cuda_flags");
    c.cudaArchitectures = m.text("cuda_architectures");
    c.ccclVersion = m.text("cccl_version");
    c.hostCpu = m.text("host_cpu");
    c.hostCpus = m.text("host_cpus");
    c.buildType = m.text("build_type");
    c.gitRevision = m.text("git_revision");
    c.seed = static_cast<std::uint64_t>(m.optional<long long>("seed").value_or(0));
    c.reps = m.reading<int>("reps").value_or(0);  // or "until the noise is known"
    c.warmup = m.optional<int>("warmup").value_or(0);
    c.keep = m.text("keep");
    c.sampling = m.text("sampling");
    return c;
}

}  // namespace

JsonReport readJsonReport(std::istream &in, const std::string &where) {
    Json document;
    try {
        document = Json::parse(in);
    } catch (const Json::parse_error &e) {
        throw std::runtime_error(fmt::format("{} is not JSON: {}", where, e.what()));
    }
    try {
        const Members top(document, where);
        if (!document.contains("rows") || !document["rows"].is_array())
            throw std::runtime_error(fmt::format("{} is not a sweep report: it has no \"rows\" list", where));
        JsonReport report;
        report.context = contextOf(Members(document.contains("context") ? document["context"] : Json(), where + ": the context"));
        // Measured again after the last cell, so written after the rows.
        if (const std::optional<double> end = top.optional<double>("copy_bandwidth_end_GBps"))
            report.context.copyBandwidthEndGBs = *end;
        for (std::size_t i = 0; i < document["rows"].size(); ++i)
            report.rows.push_back(rowOf(Members(document["rows"][i], fmt::format("{}: row {}", where, i + 1))));
        report.complete = top.optional<bool>("complete").value_or(true);
        report.stopReason = top.text("stopped");
        return report;
    } catch (const Json::exception &e) {
        throw std::runtime_error(fmt::format("{} is not a sweep report: {}", where, e.what()));
    }
}

std::string jsonText(const Value &value) { return lineText(toJson(value)); }

std::string jsonText(const std::vector<Field> &fields) {
    Json object = Json::object();
    for (const Field &field : fields) object[field.key] = toJson(field.value);
    return lineText(object);
}

std::string jsonText(const std::vector<std::string> &items) { return lineText(Json(items)); }

std::unique_ptr<Reporter> makeJsonReporter(Output out) { return std::make_unique<JsonReporter>(std::move(out)); }

std::unique_ptr<Reporter> makeJsonContextReporter(Output out) {
    return std::make_unique<ContextReporter>(std::move(out));
}

}  // namespace Harness
