// The JSON report and the context file beside a CSV, written through nlohmann-json from
// the row schema (row_schema.h), and a JSON report read back into the schema's rows.

#include "report/json_report.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
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
    // A ratio with its interval: `key`, `key`_low and `key`_high.
    std::optional<Interval> interval(const std::string &key) const {
        const std::optional<double> value = optional<double>(key.c_str()), low = optional<double>((key + "_low").c_str()),
                                    high = optional<double>((key + "_high").c_str());
        if (!value || !low || !high) return std::nullopt;
        return Interval{*value, *low, *high};
    }
    // Into `to`: the member's value; a missing or null one leaves an optional empty, and
    // anything else 0, false or "".
    template <typename T>
    void read(const char *key, T &to) const {
        to = optional<T>(key).value_or(T{});
    }
    template <typename T>
    void read(const char *key, std::optional<T> &to) const {
        to = optional<T>(key);
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

// Each member of type T of `into`, read (Members::read) from its key.
template <typename Object, typename T>
void readEach(const Members &m, Object &into, std::initializer_list<std::pair<const char *, T Object::*>> members) {
    for (const auto &[key, member] : members) m.read(key, into.*member);
}

Timing timingOf(const Members &m) {
    Timing t;
    readEach<Timing, int>(m, t, {{"samples", &Timing::samples}, {"rounds", &Timing::rounds}});
    readEach<Timing, double>(m, t, {{"median_ms", &Timing::medianMs}, {"mean_ms", &Timing::meanMs},
                                    {"stddev_ms", &Timing::stddevMs}, {"min_ms", &Timing::minMs},
                                    {"max_ms", &Timing::maxMs}, {"p10_ms", &Timing::p10Ms},
                                    {"p90_ms", &Timing::p90Ms}, {"rounds_error", &Timing::roundsError}});
    readEach<Timing, bool>(m, t, {{"held", &Timing::held}, {"synchronizes", &Timing::synchronizes},
                                  {"by_implementation", &Timing::byImplementation}, {"cold", &Timing::cold},
                                  {"out_of_time", &Timing::outOfTime}});
    return t;
}

// A row's traced call (--explain) as the report keeps it: its verdict, and for a traced
// call its kernels and times; none when the row has no verdict.
std::optional<Explanation> explanationOf(const Members &m) {
    const std::optional<std::string> verdict = m.optional<std::string>("explain");
    if (!verdict) return std::nullopt;
    Explanation e;
    e.verdict = *verdict;
    e.bound = boundOfVerdict(*verdict);
    e.kernels = m.optional<int>("kernels").value_or(0);
    readEach<Explanation, double>(m, e, {{"kernel_ms", &Explanation::kernelMs}, {"between_ms", &Explanation::betweenMs},
                                         {"traced_ms", &Explanation::callMs}});
    return e;
}

// The fields rowFields writes, back into a row.
Row rowOf(const Members &m) {
    Row r;
    r.op = opNamed(m, m.required<std::string>("op"));
    r.backend = m.required<std::string>("backend");
    r.size = m.required<long long>("size");
    r.status = statusNamed(m, m.required<std::string>("verified"));
    r.timing = timingOf(m);
    m.read("note", r.note);
    m.read("block_size", r.blockSize);
    m.read("kept", r.kept);
    readEach<Row, bool>(m, r, {{"npot", &Row::npot}, {"launch_bound", &Row::launchBound},
                               {"interleaved", &Row::interleaved}, {"throttled", &Row::throttled}});
    readEach<Row, std::optional<double>>(m, r, {{"bandwidth_GBps", &Row::bandwidthGBs}, {"copy_fraction", &Row::copyFraction},
                                                {"speedup_vs_cpu", &Row::speedupVsCpu}, {"speedup_vs_cub", &Row::speedupVsCub},
                                                {"power_W", &Row::powerW}});
    readEach<Row, std::optional<unsigned>>(m, r, {{"sm_clock_MHz", &Row::smClockMHz}, {"temperature_C", &Row::temperatureC}});
    for (const auto &[key, range] : {std::pair{"copy_fraction", &Row::copyFractionRange},
                                     {"speedup_vs_cpu", &Row::speedupVsCpuRange},
                                     {"speedup_vs_cub", &Row::speedupVsCubRange}})
        r.*range = m.interval(key);
    if (const std::optional<double> spread = m.optional<double>("round_spread_pct")) r.roundSpread = *spread / 100;
    r.explanation = explanationOf(m);
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
    readEach<Context, double>(m, c, {{"copy_bandwidth_GBps", &Context::copyBandwidthGBs},
                                     {"copy_bandwidth_end_GBps", &Context::copyBandwidthEndGBs},
                                     {"launch_gap_us", &Context::launchGapUs}});
    double noisePct = 0;
    if (std::sscanf(m.text("copy_method").c_str(), "cudaMemcpy device to device of %zu bytes, L2 flushed before each, "
                                                   "median of %d (noise %lf%%)",
                    &c.copyBytes, &c.copyReps, &noisePct) == 3)
        c.copyNoise = noisePct / 100;
    c.gpuStateAtStart.smClockMHz = m.reading<unsigned>("sm_clock_MHz_at_start");
    c.gpuStateAtStart.memoryClockMHz = m.reading<unsigned>("memory_clock_MHz_at_start");
    c.gpuStateAtStart.temperatureC = m.reading<unsigned>("temperature_C_at_start");
    c.gpuStateAtStart.powerW = m.reading<double>("power_W_at_start");
}

// The fields contextFields writes, back into a context.
Context contextOf(const Members &m) {
    Context c;
    readEach<Context, std::string>(
        m, c, {{"run_id", &Context::runId}, {"date", &Context::date}, {"mode", &Context::mode},
               {"command_line", &Context::commandLine}, {"version", &Context::version},
               {"launch_floors", &Context::launchFloors}, {"launch_gap_method", &Context::launchGapMethod},
               {"l2_flush", &Context::l2Flush}, {"nvcc_version", &Context::nvccVersion},
               {"cuda_flags", &Context::cudaFlags}, {"cuda_architectures", &Context::cudaArchitectures},
               {"cccl_version", &Context::ccclVersion}, {"host_cpu", &Context::hostCpu},
               {"host_cpus", &Context::hostCpus}, {"build_type", &Context::buildType},
               {"git_revision", &Context::gitRevision}, {"keep", &Context::keep}, {"sampling", &Context::sampling}});
    readMeasurements(m, c);
    c.processes = m.optional<int>("processes").value_or(1);
    c.seed = static_cast<std::uint64_t>(m.optional<long long>("seed").value_or(0));
    c.reps = m.reading<int>("reps").value_or(0);  // or "until the noise is known"
    m.read("warmup", c.warmup);
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
