#include "commands/compare.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/cli.h"
#include "report/reporters.h"
#include "measure/statistics.h"
#include "report/tables.h"

namespace Harness {

namespace {

constexpr const char *kProgram = "cis565_stream_compaction compare";
constexpr const char *kUsage =
    "usage: cis565_stream_compaction compare BASE NEW [--format text|markdown|csv|json] [--verdict noise|interval] "
    "[--same-within 5%] [--fail-above 5%]";
// Launch gaps further apart than this give a warning: on one H200 the gaps of 40 processes
// fell in three bands, 1.345-1.360, 1.379-1.419 and 1.482-1.547 us, and 3% tells the
// slowest band from the others (not always the two faster ones from each other;
// docs/methodology.md, "Noise between runs").
constexpr double kLaunchGapsApart = 0.03;

// Bad input: the message is the one line the command prints before exiting 2.
struct BadInput : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A report's row or context: each field's value as text, "" for a JSON null or an
// empty CSV cell; numbers as the writer wrote them, booleans as "true" and "false".
using Fields = std::map<std::string, std::string>;

// ---- JSON: enough for the reports the program writes ----

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    std::string text;  // a string's value, a number as written, "true" or "false"
    std::vector<JsonValue> items;
    std::vector<std::string> keys;  // an object's members: keys[i] names values[i]
    std::vector<JsonValue> values;

    const JsonValue *member(const std::string &key) const {
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &values[i];
        return nullptr;
    }
};

class JsonParser {
public:
    explicit JsonParser(const std::string &text) : text_(text) {}

    JsonValue document() {
        JsonValue value = parseValue(0);
        skipSpace();
        if (at_ != text_.size()) fail("text after the end of the document");
        return value;
    }

private:
    // Far deeper than any report; a guard against a stack overflow on hostile input.
    static constexpr int kMaxDepth = 64;

    [[noreturn]] void fail(const std::string &what) const {
        throw std::runtime_error(fmt::format("JSON: {} at byte {}", what, at_));
    }
    void skipSpace() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t'))
            ++at_;
    }
    bool consume(char c) {
        skipSpace();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!consume(c)) fail(at_ < text_.size() ? fmt::format("expected '{}'", c) : fmt::format("the text ends; expected '{}'", c));
    }
    bool word(const char *w) {
        const std::size_t n = std::strlen(w);
        if (text_.compare(at_, n, w) != 0) return false;
        at_ += n;
        return true;
    }

    JsonValue parseValue(int depth) {
        if (depth > kMaxDepth) fail("nesting too deep");
        skipSpace();
        if (at_ >= text_.size()) fail("the text ends where a value should be");
        JsonValue value;
        const char c = text_[at_];
        if (c == '{') {
            ++at_;
            value.kind = JsonValue::Kind::Object;
            if (consume('}')) return value;
            do {
                skipSpace();
                value.keys.push_back(parseString());
                expect(':');
                value.values.push_back(parseValue(depth + 1));
            } while (consume(','));
            expect('}');
        } else if (c == '[') {
            ++at_;
            value.kind = JsonValue::Kind::Array;
            if (consume(']')) return value;
            do value.items.push_back(parseValue(depth + 1));
            while (consume(','));
            expect(']');
        } else if (c == '"') {
            value.kind = JsonValue::Kind::String;
            value.text = parseString();
        } else if (word("null")) {
        } else if (word("true")) {
            value.kind = JsonValue::Kind::Bool;
            value.text = "true";
        } else if (word("false")) {
            value.kind = JsonValue::Kind::Bool;
            value.text = "false";
        } else {
            value.kind = JsonValue::Kind::Number;
            const std::size_t start = at_;
            while (at_ < text_.size() && text_[at_] != '\0' && std::strchr("+-.eE0123456789", text_[at_])) ++at_;
            value.text = text_.substr(start, at_ - start);
            char *end = nullptr;
            std::strtod(value.text.c_str(), &end);
            if (value.text.empty() || *end != '\0') fail("expected a value");
        }
        return value;
    }

    unsigned hex4() {
        if (at_ + 4 > text_.size()) fail("a \\u escape ends early");
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = text_[at_++];
            const int digit = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                              : (h >= 'a' && h <= 'f')                   ? h - 'a' + 10
                              : (h >= 'A' && h <= 'F')                   ? h - 'A' + 10
                                                                         : -1;
            if (digit < 0) fail("a \\u escape with a character that is not hexadecimal");
            code = code * 16 + static_cast<unsigned>(digit);
        }
        return code;
    }

    static void appendUtf8(std::string &out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string parseString() {
        if (at_ >= text_.size() || text_[at_] != '"') fail("expected a string");
        std::string out;
        for (++at_; at_ < text_.size() && text_[at_] != '"'; ++at_) {
            const char c = text_[at_];
            if (static_cast<unsigned char>(c) < 0x20) fail("a control character inside a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (++at_ >= text_.size()) break;
            switch (text_[at_]) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    ++at_;
                    unsigned code = hex4();
                    // A surrogate pair stands for one code point past U+FFFF.
                    if (code >= 0xD800 && code < 0xDC00 && text_.compare(at_, 2, "\\u") == 0) {
                        at_ += 2;
                        const unsigned low = hex4();
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    }
                    appendUtf8(out, code);
                    --at_;  // the loop steps past the escape's last digit
                    break;
                }
                default: fail("an unknown escape in a string");
            }
        }
        if (at_ >= text_.size()) fail("a string is not closed");
        ++at_;
        return out;
    }

    const std::string &text_;
    std::size_t at_ = 0;
};

// The fields of a JSON object whose values are scalars (nested values are left out).
Fields scalarFields(const JsonValue &object) {
    Fields fields;
    for (std::size_t i = 0; i < object.keys.size(); ++i) {
        const JsonValue &value = object.values[i];
        if (value.kind != JsonValue::Kind::Array && value.kind != JsonValue::Kind::Object) fields[object.keys[i]] = value.text;
    }
    return fields;
}

// ---- CSV: RFC 4180, as the CSV reporter writes it ----

std::vector<std::vector<std::string>> csvRecords(const std::string &text, std::size_t from) {
    std::vector<std::vector<std::string>> records;
    std::size_t at = from;
    while (at < text.size()) {
        std::vector<std::string> fields(1);
        bool quoted = false;
        for (; at < text.size(); ++at) {
            const char c = text[at];
            if (quoted) {
                if (c == '"' && at + 1 < text.size() && text[at + 1] == '"') {
                    fields.back() += '"';
                    ++at;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    fields.back() += c;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.emplace_back();
            } else if (c == '\n') {
                ++at;
                break;
            } else if (c != '\r') {
                fields.back() += c;
            }
        }
        if (quoted) throw std::runtime_error("a quoted field is not closed at the end of the file");
        if (!(fields.size() == 1 && fields[0].empty())) records.push_back(std::move(fields));  // blank lines
    }
    return records;
}

// ---- A report ----

struct Report {
    std::string name;  // "BASE" or "NEW"
    std::string path;
    Fields context;
    std::vector<Fields> rows;
    std::string stopped;  // why a JSON report is incomplete, or ""
};

std::string readFile(const std::string &path, const std::string &name) {
    std::FILE *file = std::fopen(path.c_str(), "rb");
    if (!file) throw BadInput(fmt::format("cannot read {} '{}': {}", name, path, std::strerror(errno)));
    std::string text;
    char buffer[1 << 16];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
    const bool failed = std::ferror(file);
    std::fclose(file);
    if (failed) throw BadInput(fmt::format("cannot read {} '{}': {}", name, path, std::strerror(errno)));
    return text;
}

// The columns a row must have to be matched and compared.
constexpr const char *kRequired[] = {"op", "backend", "size", "median_ms", "verified"};

void checkColumns(const Report &report, const std::vector<std::string> &columns) {
    for (const char *column : kRequired) {
        if (std::find(columns.begin(), columns.end(), column) == columns.end()) {
            throw BadInput(fmt::format("{} '{}' is not a sweep report: its rows have no '{}' field", report.name,
                                       report.path, column));
        }
    }
}

void readJsonReport(Report &report, const std::string &text) {
    JsonValue document;
    try {
        document = JsonParser(text).document();
    } catch (const std::runtime_error &e) {
        throw BadInput(fmt::format("{} '{}' is not a JSON report: {}", report.name, report.path, e.what()));
    }
    const JsonValue *rows = document.kind == JsonValue::Kind::Object ? document.member("rows") : nullptr;
    if (!rows || rows->kind != JsonValue::Kind::Array) {
        throw BadInput(fmt::format("{} '{}' is not a sweep report: it has no \"rows\" list", report.name, report.path));
    }
    if (const JsonValue *context = document.member("context"); context && context->kind == JsonValue::Kind::Object)
        report.context = scalarFields(*context);
    // Known when the run ended, so written after the rows.
    if (const JsonValue *gaps = document.member("launch_gaps_us"); gaps && gaps->kind == JsonValue::Kind::String)
        report.context["launch_gaps_us"] = gaps->text;
    if (const JsonValue *complete = document.member("complete"); complete && complete->text == "false") {
        const JsonValue *stopped = document.member("stopped");
        report.stopped = stopped && !stopped->text.empty() ? stopped->text : "cut short";
    }
    for (const JsonValue &row : rows->items) {
        if (row.kind != JsonValue::Kind::Object)
            throw BadInput(fmt::format("{} '{}' is not a sweep report: a row is not an object", report.name, report.path));
        checkColumns(report, row.keys);
        report.rows.push_back(scalarFields(row));
    }
}

void readCsvReport(Report &report, const std::string &text) {
    // Older CSVs open with their context as "# key: value" lines.
    std::size_t at = 0;
    while (at < text.size() && text[at] == '#') {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string line = text.substr(at + 1, end - at - 1);
        if (const std::size_t colon = line.find(':'); colon != std::string::npos) {
            const auto trim = [](std::string s) {
                s.erase(0, s.find_first_not_of(" \t\r"));
                s.erase(s.find_last_not_of(" \t\r") + 1);
                return s;
            };
            report.context[trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
        }
        at = end + 1;
    }
    std::vector<std::vector<std::string>> records;
    try {
        records = csvRecords(text, at);
    } catch (const std::runtime_error &e) {
        throw BadInput(fmt::format("{} '{}' is not a CSV report: {}", report.name, report.path, e.what()));
    }
    if (records.empty()) throw BadInput(fmt::format("{} '{}' is empty: no CSV header", report.name, report.path));
    const std::vector<std::string> &header = records.front();
    checkColumns(report, header);
    for (std::size_t r = 1; r < records.size(); ++r) {
        if (records[r].size() != header.size()) {
            throw BadInput(fmt::format("{} '{}' is not a CSV report: record {} has {} fields, the header {}", report.name,
                                       report.path, r + 1, records[r].size(), header.size()));
        }
        Fields row;
        for (std::size_t c = 0; c < header.size(); ++c) row[header[c]] = records[r][c];
        report.rows.push_back(std::move(row));
    }
    // The context file beside the CSV, when there is one, then the run's columns of the
    // first row for what neither says.
    const std::string contextPath = contextPathFor(report.path);
    if (std::FILE *probe = std::fopen(contextPath.c_str(), "rb")) {
        std::fclose(probe);
        const std::string contextText = readFile(contextPath, report.name + "'s context");
        JsonValue context;
        try {
            context = JsonParser(contextText).document();
        } catch (const std::runtime_error &e) {
            throw BadInput(fmt::format("{}'s context '{}' is not JSON: {}", report.name, contextPath, e.what()));
        }
        for (const auto &[key, value] : scalarFields(context)) report.context[key] = value;
    }
    if (!report.rows.empty()) {
        for (const char *key : {"run_id", "date", "gpu", "mode"}) {
            const auto found = report.rows.front().find(key);
            if (found != report.rows.front().end() && report.context[key].empty()) report.context[key] = found->second;
        }
    }
}

Report readReport(const std::string &name, const std::string &path) {
    Report report{name, path, {}, {}, {}};
    const std::optional<Format> format = formatForPath(path);
    if (format != Format::Json && format != Format::Csv) {
        throw BadInput(fmt::format("{} '{}': a report to compare is the .json or .csv file a sweep wrote "
                                   "(--output FILE.json or FILE.csv)",
                                   name, path));
    }
    const std::string text = readFile(path, name);
    if (format == Format::Json) readJsonReport(report, text);
    else readCsvReport(report, text);
    return report;
}

std::string field(const Fields &fields, const std::string &key) {
    const auto found = fields.find(key);
    return found == fields.end() ? "" : found->second;
}

std::optional<double> number(const Fields &fields, const std::string &key) {
    const std::string text = field(fields, key);
    if (text.empty()) return std::nullopt;
    char *end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (*end != '\0' || !std::isfinite(value)) return std::nullopt;
    return value;
}

// The launch gap of a report's run, us: the mean of its processes' (launch_gaps_us) when it
// ran in several, else its one process's; none where the context does not say (a run in
// several processes without the list: one of them went unmeasured, or the run stopped).
std::optional<double> launchGapOf(const Report &report) {
    const std::string list = field(report.context, "launch_gaps_us");
    if (list.empty()) {
        if (number(report.context, "processes").value_or(1) > 1) return std::nullopt;
        const std::optional<double> gap = number(report.context, "launch_gap_us");
        return gap && *gap > 0 ? gap : std::nullopt;
    }
    double sum = 0;
    int count = 0;
    for (const char *at = list.c_str(); *at != '\0'; ++count) {
        char *end = nullptr;
        const double gap = std::strtod(at, &end);
        if (end == at || !(gap > 0)) return std::nullopt;
        sum += gap;
        at = end + std::strspn(end, ", ");
    }
    return count > 0 ? std::optional<double>(sum / count) : std::nullopt;
}

// A machine without a GPU reads "none" in a CSV's rows, "none (no CUDA device)" in a context.
std::string gpuName(const Report &report) {
    const std::string gpu = field(report.context, "gpu");
    return gpu.rfind("none", 0) == 0 ? "none" : gpu;
}

// ---- Matching and comparing ----

std::string rowKey(const Fields &row) {
    return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", field(row, "op"), field(row, "backend"), field(row, "size"),
                       field(row, "npot") == "true", field(row, "block_size"));
}

// One side of a compared row: its median, noise and samples, or why it cannot be compared.
struct Measure {
    double medianMs = 0;
    double noise = 0;  // relative: standard deviation / mean
    int samples = 0;
    int rounds = 0;          // a figure of several rounds: how many, and the
    double roundsError = 0;  // relative standard error of their medians' mean
    bool estimated = false;  // the noise is (max - min) / (2 x median), the samples reps
    std::string problem;     // "BASE skipped: no CUDA device", or ""
};

Measure measure(const Fields &row, const std::string &name) {
    Measure m;
    const std::string verified = field(row, "verified");
    if (verified != "passed") {
        const std::string note = oneLine(field(row, "note"));
        m.problem = fmt::format("{} {}{}", name, verified.empty() ? "not verified" : verified, note.empty() ? "" : ": " + note);
        return m;
    }
    const std::optional<double> median = number(row, "median_ms");
    if (!median || *median <= 0) {
        m.problem = fmt::format("{} has no median time", name);
        return m;
    }
    m.medianMs = *median;
    const std::optional<double> noisePct = number(row, "noise_pct");
    const std::optional<double> samples = number(row, "samples");
    // A figure of several rounds (reports from before the columns have neither).
    const std::optional<double> rounds = number(row, "rounds"), roundsErrorPct = number(row, "rounds_error_pct");
    if (rounds && roundsErrorPct) {
        m.rounds = static_cast<int>(*rounds);
        m.roundsError = *roundsErrorPct / 100;
    }
    if (noisePct && samples) {
        m.noise = *noisePct / 100;
        m.samples = static_cast<int>(*samples);
        return m;
    }
    m.estimated = true;
    const std::optional<double> low = number(row, "min_ms"), high = number(row, "max_ms");
    const std::optional<double> reps = samples ? samples : number(row, "reps");
    if (low && high) m.noise = (*high - *low) / (2 * m.medianMs);
    if (reps) m.samples = static_cast<int>(*reps);
    return m;
}

// How a compared row's verdict is reached. Noise (the default, nvbench_compare's rule):
// the row is the same when new / base - 1 is within the smaller of the two rows' noise
// (standard deviation / mean), so a run's own spread, not its sample count, sets what a
// change must pass. Interval: the same when the ratio's 95% interval covers 1; thousands
// of samples make that interval far narrower than the drift between two runs.
enum class VerdictRule { Noise, Interval };

struct Entry {
    const Fields *row = nullptr;  // the base's row, else the new one's
    std::optional<double> baseMs, newMs;
    std::optional<Interval> ratio;
    double noiseLimit = 0;  // the smaller of the two rows' noise
    std::string verdict;  // faster, slower, same, only in BASE, only in NEW, not comparable
    std::string note;
    bool estimated = false;
};

struct Comparison {
    std::vector<Entry> entries;
    std::vector<std::string> warnings;
    bool baseEstimated = false, newEstimated = false;
    VerdictRule rule = VerdictRule::Noise;  // how the verdicts were reached
    double sameWithin = 0;  // --same-within: a change this small is the same, whatever the rule
};

// Duplicate keys keep their first row.
std::map<std::string, const Fields *> byKey(const Report &report, std::vector<std::string> &warnings) {
    std::map<std::string, const Fields *> rows;
    long long repeats = 0;
    for (const Fields &row : report.rows) {
        if (!rows.emplace(rowKey(row), &row).second) ++repeats;
    }
    if (repeats) {
        warnings.push_back(fmt::format("{} holds {} row{} whose op, back end, size, npot and block size repeat an "
                                       "earlier one; the first of each is compared",
                                       report.name, repeats, repeats == 1 ? "" : "s"));
    }
    return rows;
}

// faster, slower or same, by `rule`; the same, whatever the rule, within `sameWithin` of 1.
std::string verdictOf(const Entry &entry, VerdictRule rule, double sameWithin) {
    const Interval &ratio = *entry.ratio;
    if (std::abs(ratio.value - 1) <= sameWithin * (1 + 1e-9)) return "same";  // 1.05 / 1.00 is within 5%
    if (rule == VerdictRule::Interval) return ratio.tie() ? "same" : ratio.high < 1 ? "faster" : "slower";
    return std::abs(ratio.value - 1) <= entry.noiseLimit ? "same" : ratio.value < 1 ? "faster" : "slower";
}

Comparison compare(const Report &base, const Report &next, VerdictRule rule, double sameWithin) {
    Comparison result;
    result.rule = rule;
    result.sameWithin = sameWithin;
    const std::string baseGpu = gpuName(base), newGpu = gpuName(next);
    if (!baseGpu.empty() && !newGpu.empty() && baseGpu != newGpu) {
        result.warnings.push_back(
            fmt::format("different GPUs: BASE {}, NEW {}; the times are of two machines", baseGpu, newGpu));
    }
    const std::string baseMode = field(base.context, "mode"), newMode = field(next.context, "mode");
    if (!baseMode.empty() && !newMode.empty() && baseMode != newMode) {
        result.warnings.push_back(fmt::format("different modes: BASE {}, NEW {} (hot leaves the input in L2 between "
                                              "timed calls, cold flushes it)",
                                              baseMode, newMode));
    }
    const std::optional<double> baseGap = launchGapOf(base), newGap = launchGapOf(next);
    if (baseGap && newGap && std::abs(*newGap / *baseGap - 1) > kLaunchGapsApart) {
        result.warnings.push_back(fmt::format(
            "different launch gaps: BASE {:.3f} us, NEW {:.3f} us ({:+.1f}%); the GPU took another time for each "
            "launch, and the figures of calls that launch several kernels move with it (docs/methodology.md)",
            *baseGap, *newGap, 100 * (*newGap / *baseGap - 1)));
    }
    for (const Report *report : {&base, &next}) {
        if (!report->stopped.empty()) {
            result.warnings.push_back(
                fmt::format("{} is incomplete ({}): its missing rows read \"only in\"", report->name, report->stopped));
        }
    }
    const auto baseRows = byKey(base, result.warnings);
    const auto newRows = byKey(next, result.warnings);
    for (const Fields &row : base.rows) {
        const std::string key = rowKey(row);
        if (baseRows.at(key) != &row) continue;  // a repeat
        Entry entry;
        entry.row = &row;
        const auto other = newRows.find(key);
        if (other == newRows.end()) {
            entry.verdict = "only in BASE";
            result.entries.push_back(entry);
            continue;
        }
        const Measure a = measure(row, "BASE"), b = measure(*other->second, "NEW");
        if (a.problem.empty()) entry.baseMs = a.medianMs;
        if (b.problem.empty()) entry.newMs = b.medianMs;
        if (!a.problem.empty() || !b.problem.empty()) {
            entry.verdict = "not comparable";
            entry.note = a.problem.empty() ? b.problem : b.problem.empty() ? a.problem : a.problem + "; " + b.problem;
            result.entries.push_back(entry);
            continue;
        }
        entry.ratio = ratioIntervalOfErrors(b.medianMs, figureError(b.noise, b.samples, b.roundsError, b.rounds),
                                            a.medianMs, figureError(a.noise, a.samples, a.roundsError, a.rounds));
        entry.noiseLimit = std::min(a.noise, b.noise);
        entry.verdict = verdictOf(entry, rule, sameWithin);
        entry.estimated = a.estimated || b.estimated;
        result.baseEstimated |= a.estimated;
        result.newEstimated |= b.estimated;
        result.entries.push_back(entry);
    }
    for (const Fields &row : next.rows) {
        const std::string key = rowKey(row);
        if (baseRows.count(key) || newRows.at(key) != &row) continue;
        Entry entry;
        entry.row = &row;
        entry.verdict = "only in NEW";
        result.entries.push_back(entry);
    }
    return result;
}

// ---- Writing the comparison ----

constexpr const char *kVerdicts[] = {"faster", "slower", "same", "only in BASE", "only in NEW", "not comparable"};

long long countOf(const Comparison &comparison, const std::string &verdict) {
    return std::count_if(comparison.entries.begin(), comparison.entries.end(),
                         [&verdict](const Entry &e) { return e.verdict == verdict; });
}

// "12 rows: 2 faster, 1 slower, 9 same; 1 only in BASE, 0 only in NEW, 0 not comparable".
std::string summaryLine(const Comparison &comparison) {
    std::vector<std::string> counts;
    for (const char *verdict : kVerdicts) counts.push_back(fmt::format("{} {}", countOf(comparison, verdict), verdict));
    return fmt::format("{} rows: {}, {}, {}; {}, {}, {}", comparison.entries.size(), counts[0], counts[1], counts[2],
                       counts[3], counts[4], counts[5]);
}

// What the reader must know about the noise, or "".
std::string noiseNote(const Comparison &comparison) {
    if (!comparison.baseEstimated && !comparison.newEstimated) return "";
    const std::string sides = comparison.baseEstimated && comparison.newEstimated ? "BASE and NEW have"
                              : comparison.baseEstimated                          ? "BASE has"
                                                                                  : "NEW has";
    return fmt::format("noise estimated: {} no noise_pct and samples, so a row's noise is taken as (max_ms - min_ms) "
                       "/ (2 x median_ms) over reps samples",
                       sides);
}

// The line that says how the verdicts were reached.
std::string ruleNote(const Comparison &comparison) {
    const std::string within = comparison.sameWithin > 0
                                   ? fmt::format(" or when it is within {:.6g}% of 1 (--same-within)",
                                                 comparison.sameWithin * 100)
                                   : "";
    return comparison.rule == VerdictRule::Noise
               ? "verdict: same when new / base is within the smaller of the two rows' noise (standard deviation / "
                 "mean)" + within + ", else faster or slower; --verdict interval judges by the 95% interval instead"
               : "verdict: same when the 95% interval covers 1" + within + ", else faster or slower";
}

// "a.json (run 2025…, NVIDIA H200, hot, commit abc1234)".
std::string describeReport(const Report &report) {
    std::vector<std::string> parts;
    for (const auto &[key, label] : {std::pair{"run_id", "run "}, {"gpu", ""}, {"mode", ""}, {"git_revision", "commit "}}) {
        const std::string value = field(report.context, key);
        if (!value.empty()) parts.push_back(label + oneLine(value));
    }
    return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", "));
}

std::string sizeText(const Fields &row) {
    const std::string text = field(row, "size");
    char *end = nullptr;
    const long long size = std::strtoll(text.c_str(), &end, 10);
    return !text.empty() && *end == '\0' && size > 0 ? sizeLabel(size, field(row, "npot") == "true") : text;
}

std::string ratioText(double ratio) { return threeDigits(ratio) + "×"; }

std::string tableText(const Comparison &comparison, bool markdown) {
    double largest = 0;
    for (const Entry &e : comparison.entries) largest = std::max({largest, e.baseMs.value_or(0), e.newMs.value_or(0)});
    const TimeUnit unit = timeUnitFor(largest);
    using Align = Table::Align;
    Table table{fmt::format("median time, {}; new / base with its 95% interval", unit.name),
                {"op", "back end", "size", "block", "base", "new", "new / base", "95% interval", "verdict", "note"},
                {},
                {Align::Left, Align::Left, Align::Left, Align::Right, Align::Right, Align::Right, Align::Right,
                 Align::Right, Align::Left, Align::Left}};
    const auto ms = [&unit](const std::optional<double> &value) { return value ? unit.format(*value) : "—"; };
    for (const Entry &e : comparison.entries) {
        const std::string block = field(*e.row, "block_size");
        table.rows.push_back({field(*e.row, "op"), field(*e.row, "backend"), sizeText(*e.row), block.empty() ? "—" : block,
                              ms(e.baseMs), ms(e.newMs), e.ratio ? ratioText(e.ratio->value) : "—",
                              e.ratio ? fmt::format("{}–{}", threeDigits(e.ratio->low), threeDigits(e.ratio->high)) : "—",
                              e.verdict, e.note});
    }
    return markdown ? markdownTable(table) : textTable(table);
}

std::string textReport(const Comparison &comparison, const Report &base, const Report &next) {
    std::string text = fmt::format("compare: BASE {}{}\n         NEW  {}{}\n", base.path, describeReport(base), next.path,
                                   describeReport(next));
    for (const std::string &warning : comparison.warnings) text += "warning: " + warning + "\n";
    const std::string noise = noiseNote(comparison);
    if (!noise.empty()) text += noise + "\n";
    text += ruleNote(comparison) + "\n";
    return text + "\n" + tableText(comparison, false) + summaryLine(comparison) + "\n";
}

std::string markdownReport(const Comparison &comparison, const Report &base, const Report &next) {
    std::string text = "## cis565_stream_compaction compare\n\n";
    text += fmt::format("- BASE: `{}`{}\n- NEW: `{}`{}\n\n", base.path, describeReport(base), next.path,
                        describeReport(next));
    // One quoted block, a paragraph per warning.
    std::vector<std::string> warnings;
    for (const std::string &warning : comparison.warnings) warnings.push_back("> **Warning:** " + warning);
    if (!warnings.empty()) text += fmt::format("{}\n\n", fmt::join(warnings, "\n>\n"));
    const std::string noise = noiseNote(comparison);
    if (!noise.empty()) text += noise + ".\n\n";
    text += ruleNote(comparison) + ".\n\n";
    return text + tableText(comparison, true) + summaryLine(comparison) + "\n";
}

std::string numberText(const std::optional<double> &value) { return value ? fmt::format("{:.6g}", *value) : ""; }

constexpr const char *kCsvColumns[] = {"op",       "backend",       "size",           "npot",
                                       "block_size", "base_median_ms", "new_median_ms", "ratio",
                                       "ratio_low", "ratio_high",    "verdict",        "noise_estimated",
                                       "note"};

// The row's cells, in kCsvColumns' order, as text ("" for none).
std::vector<std::string> entryCells(const Entry &e) {
    return {field(*e.row, "op"),
            field(*e.row, "backend"),
            field(*e.row, "size"),
            field(*e.row, "npot"),
            field(*e.row, "block_size"),
            numberText(e.baseMs),
            numberText(e.newMs),
            e.ratio ? numberText(e.ratio->value) : "",
            e.ratio ? numberText(e.ratio->low) : "",
            e.ratio ? numberText(e.ratio->high) : "",
            e.verdict,
            e.ratio ? (e.estimated ? "true" : "false") : "",
            e.note};
}

std::string csvReport(const Comparison &comparison) {
    std::string text = fmt::format("{}\n", fmt::join(kCsvColumns, ","));
    for (const Entry &e : comparison.entries) {
        std::vector<std::string> cells = entryCells(e);
        for (std::string &cell : cells) cell = csvField(cell);
        text += fmt::format("{}\n", fmt::join(cells, ","));
    }
    return text;
}

// A cell as JSON: the numeric and boolean columns bare (null when empty), the rest strings.
std::string jsonCell(const std::string &column, const std::string &cell) {
    static const std::vector<std::string> bare = {"size",  "npot",      "block_size", "base_median_ms", "new_median_ms",
                                                  "ratio", "ratio_low", "ratio_high", "noise_estimated"};
    if (std::find(bare.begin(), bare.end(), column) == bare.end()) return jsonQuoted(cell);
    return cell.empty() ? "null" : cell;
}

std::string jsonReport(const Comparison &comparison, const Report &base, const Report &next,
                       const std::optional<double> &failAbove) {
    const auto side = [](const Report &report) {
        std::vector<std::string> members = {fmt::format("\"path\": {}", jsonQuoted(report.path))};
        for (const char *key : {"run_id", "date", "gpu", "mode", "git_revision"})
            members.push_back(fmt::format("{}: {}", jsonQuoted(key), jsonQuoted(field(report.context, key))));
        members.push_back(fmt::format("\"complete\": {}", report.stopped.empty() ? "true" : "false"));
        return fmt::format("{{{}}}", fmt::join(members, ", "));
    };
    std::vector<std::string> warnings;
    for (const std::string &warning : comparison.warnings) warnings.push_back(jsonQuoted(warning));
    std::string text = fmt::format("{{\n  \"base\": {},\n  \"new\": {},\n  \"warnings\": [{}],\n", side(base), side(next),
                                   fmt::join(warnings, ", "));
    text += fmt::format("  \"noise_estimated\": {{\"base\": {}, \"new\": {}}},\n", comparison.baseEstimated,
                        comparison.newEstimated);
    text += fmt::format("  \"verdict_rule\": \"{}\",\n", comparison.rule == VerdictRule::Noise ? "noise" : "interval");
    text += fmt::format("  \"same_within\": {},\n", numberText(comparison.sameWithin));
    text += fmt::format("  \"fail_above\": {},\n  \"rows\": [", failAbove ? numberText(failAbove) : "null");
    for (std::size_t i = 0; i < comparison.entries.size(); ++i) {
        const std::vector<std::string> cells = entryCells(comparison.entries[i]);
        std::vector<std::string> members;
        for (std::size_t c = 0; c < cells.size(); ++c)
            members.push_back(fmt::format("{}: {}", jsonQuoted(kCsvColumns[c]), jsonCell(kCsvColumns[c], cells[c])));
        text += fmt::format("{}\n    {{{}}}", i ? "," : "", fmt::join(members, ", "));
    }
    std::vector<std::string> counts;
    for (const char *verdict : kVerdicts)
        counts.push_back(fmt::format("{}: {}", jsonQuoted(verdict), countOf(comparison, verdict)));
    return text + fmt::format("\n  ],\n  \"summary\": {{{}}}\n}}\n", fmt::join(counts, ", "));
}

// ---- The command line ----

struct CompareOptions {
    std::vector<std::string> reports;
    Format format = Format::Text;
    std::optional<double> failAbove;
    double sameWithin = 0;
    VerdictRule rule = VerdictRule::Noise;
    bool help = false;
};

VerdictRule parseRule(const std::string &text) {
    if (text == "noise") return VerdictRule::Noise;
    if (text == "interval") return VerdictRule::Interval;
    throw std::invalid_argument(fmt::format("'{}' is not a rule; write noise (the default) or interval", text));
}

CompareOptions parseArgs(const std::vector<std::string> &args) {
    CompareOptions options;
    const std::vector<std::string> flags = {"--format", "--fail-above", "--same-within", "--verdict", "--help"};
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        if (arg.rfind("--", 0) != 0 || arg == "--") {
            if (arg == "-h") options.help = true;
            else if (arg != "--") options.reports.push_back(arg);
            continue;
        }
        const std::size_t equals = arg.find('=');
        const std::string flag = arg.substr(0, equals);
        if (flag == "--help") {
            options.help = true;
            continue;
        }
        if (std::find(flags.begin(), flags.end(), flag) == flags.end())
            throw BadInput(unknownNameMessage("flag", "compare's flags", flag, flags));
        std::string value;
        if (equals != std::string::npos) value = arg.substr(equals + 1);
        else if (i + 1 < args.size()) value = args[++i];
        else throw BadInput(fmt::format("{} needs a value; {}", flag, kUsage));
        try {
            if (flag == "--format") options.format = parseFormat(value);
            else if (flag == "--verdict") options.rule = parseRule(value);
            else if (flag == "--same-within") options.sameWithin = parseThreshold(value);
            else options.failAbove = parseThreshold(value);
        } catch (const std::invalid_argument &e) {
            throw BadInput(fmt::format("{}: {}", flag, e.what()));
        }
    }
    if (!options.help && options.reports.size() != 2) {
        throw BadInput(fmt::format("compare takes two reports, BASE and NEW, and was given {}; {}",
                                   options.reports.size(), kUsage));
    }
    return options;
}

constexpr const char *kHelp =
    "Compares two sweep reports row by row: each row (op, back end, size, npot, block size) of BASE\n"
    "with the same row of NEW, the new median over the base's with its 95% interval, and a verdict:\n"
    "same when new / base is within the smaller of the two rows' noise (standard deviation / mean,\n"
    "as nvbench_compare judges), else faster or slower. A row's noise is its noise_pct, or, in a\n"
    "report without it, (max_ms - min_ms) / (2 x median_ms) (the output says so); the interval\n"
    "takes that noise over the row's samples, or, for a figure of several rounds or processes, the\n"
    "spread of their medians where that is larger (rounds_error_pct). Rows of one report only read\n"
    "\"only in BASE\" or \"only in NEW\"; a skipped or failed row \"not comparable\"; different GPUs or\n"
    "modes give a warning first.\n"
    "\n"
    "  BASE, NEW          a sweep's .json report, or its .csv (with FILE.context.json beside it, if any)\n"
    "  --format FORMAT    text (default), markdown, csv or json\n"
    "  --verdict RULE     noise (the default), or interval: same when the 95% interval covers 1, which\n"
    "                     thousands of samples make far narrower than the drift between two runs\n"
    "  --same-within T    also same when new / base is within T of 1, whatever the rule: the drift\n"
    "                     between two runs of the same code (docs/methodology.md), 5% or 0.05\n"
    "  --fail-above T     exit 1 when a row reads slower and new / base is above 1 + T (with --verdict\n"
    "                     interval: the interval's low end above 1 + T): 5% or 0.05\n"
    "\n"
    "Exit status: 0 compared (no row past --fail-above), 1 a row past --fail-above, 2 bad input.\n";

void write(std::FILE *file, const std::string &text) {
    std::fputs(text.c_str(), file);
    std::fflush(file);
}

}  // namespace

double parseThreshold(const std::string &text) {
    const bool percent = !text.empty() && text.back() == '%';
    const std::string digits = percent ? text.substr(0, text.size() - 1) : text;
    char *end = nullptr;
    const double value = digits.empty() || std::isspace(static_cast<unsigned char>(digits[0]))
                             ? std::nan("")
                             : std::strtod(digits.c_str(), &end);
    const std::string accepted = "write a percentage (5%) or a fraction below 1 (0.05), not negative";
    if (!std::isfinite(value) || *end != '\0' || value < 0)
        throw std::invalid_argument(fmt::format("'{}' is not a threshold; {}", text, accepted));
    if (!percent && value >= 1) {
        throw std::invalid_argument(fmt::format("'{}' would be {}%; write a percentage with its sign ({}%) or a "
                                                "fraction below 1 ({})",
                                                text, value * 100, text, value / 100));
    }
    return percent ? value / 100 : value;
}

int runCompare(const std::vector<std::string> &args, std::FILE *out, std::FILE *err) {
    try {
        const CompareOptions options = parseArgs(args);
        if (options.help) {
            write(out, std::string(kUsage) + "\n\n" + kHelp);
            return 0;
        }
        const Report base = readReport("BASE", options.reports[0]);
        const Report next = readReport("NEW", options.reports[1]);
        const Comparison comparison = compare(base, next, options.rule, options.sameWithin);
        std::string text;
        switch (options.format) {
            case Format::Text: text = textReport(comparison, base, next); break;
            case Format::Markdown: text = markdownReport(comparison, base, next); break;
            case Format::Json: text = jsonReport(comparison, base, next, options.failAbove); break;
            case Format::Csv:
                // A plain CSV on stdout; its warnings go to stderr.
                text = csvReport(comparison);
                for (const std::string &warning : comparison.warnings) write(err, fmt::format("{}: warning: {}\n", kProgram, warning));
                break;
        }
        std::fputs(text.c_str(), out);
        if (std::fflush(out) != 0 || std::ferror(out)) {
            write(err, fmt::format("{}: cannot write the comparison: {}\n", kProgram, std::strerror(errno)));
            return 1;
        }
        if (!options.failAbove) return 0;
        std::vector<std::string> past;
        for (const Entry &e : comparison.entries) {
            if (!e.ratio) continue;
            const bool beyond = e.verdict == "slower" && (options.rule == VerdictRule::Noise
                                                              ? e.ratio->value > 1 + *options.failAbove
                                                              : e.ratio->low > 1 + *options.failAbove);
            if (beyond) {
                past.push_back(fmt::format("{} {} {}{} ({}, 95% interval {}–{})", field(*e.row, "op"),
                                           field(*e.row, "backend"), sizeText(*e.row),
                                           field(*e.row, "block_size").empty() ? "" : ", block " + field(*e.row, "block_size"),
                                           ratioText(e.ratio->value), threeDigits(e.ratio->low),
                                           threeDigits(e.ratio->high)));
            }
        }
        if (past.empty()) return 0;
        const std::size_t shown = std::min<std::size_t>(past.size(), 3);
        write(err, fmt::format("{}: {} row{} slower by more than {}% beyond the noise: {}{}\n", kProgram, past.size(),
                               past.size() == 1 ? "" : "s", fmt::format("{:.6g}", *options.failAbove * 100),
                               fmt::join(past.begin(), past.begin() + static_cast<std::ptrdiff_t>(shown), "; "),
                               past.size() > shown ? fmt::format("; and {} more", past.size() - shown) : ""));
        return 1;
    } catch (const BadInput &e) {
        write(err, fmt::format("{}: {}\n", kProgram, e.what()));
        return kExitBadInput;
    }
}

}  // namespace Harness
