// Two sweep reports matched row by row and each pair judged (comparison.h).

#include "report/comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "report/reporters.h"

namespace Harness {

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

namespace {

using Report = FieldsReport;

// Launch gaps further apart than this give a warning: on one H200 the gaps of 40 processes
// fell in three bands, 1.345-1.360, 1.379-1.419 and 1.482-1.547 us, and 3% tells the
// slowest band from the others (not always the two faster ones from each other;
// docs/methodology.md, "Noise between runs").
constexpr double kLaunchGapsApart = 0.03;

// The launch gap of a report's run, us; none where the context does not say.
std::optional<double> launchGapOf(const Report &report) {
    const std::optional<double> gap = number(report.context, "launch_gap_us");
    return gap && *gap > 0 ? gap : std::nullopt;
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

// The CSV writes six significant digits, JSON every digit: the medians of one run read
// from its CSV and from its JSON differ by up to this much (twice half a unit in the sixth digit).
constexpr double kCsvPrecision = 1e-5;

// faster, slower or same, by `rule`; the same, whatever the rule, within `sameWithin` of 1
// (or within what a CSV's digits tell apart).
std::string verdictOf(const Entry &entry, VerdictRule rule, double sameWithin) {
    const Interval &ratio = *entry.ratio;
    // 1.05 / 1.00 is within 5%.
    if (std::abs(ratio.value - 1) <= std::max(sameWithin * (1 + 1e-9), kCsvPrecision)) return "same";
    if (rule == VerdictRule::Interval) return ratio.tie() ? "same" : ratio.high < 1 ? "faster" : "slower";
    return std::abs(ratio.value - 1) <= entry.noiseLimit ? "same" : ratio.value < 1 ? "faster" : "slower";
}

// What the reader must know before the rows: the two runs differ in GPU, mode or launch
// gap, or one of them was cut short.
std::vector<std::string> runWarnings(const Report &base, const Report &next) {
    std::vector<std::string> warnings;
    const std::string baseGpu = gpuName(base), newGpu = gpuName(next);
    if (!baseGpu.empty() && !newGpu.empty() && baseGpu != newGpu) {
        warnings.push_back(
            fmt::format("different GPUs: BASE {}, NEW {}; the times are of two machines", baseGpu, newGpu));
    }
    const std::string baseMode = field(base.context, "mode"), newMode = field(next.context, "mode");
    if (!baseMode.empty() && !newMode.empty() && baseMode != newMode) {
        warnings.push_back(fmt::format("different modes: BASE {}, NEW {} (hot leaves the input in L2 between "
                                              "timed calls, cold flushes it)",
                                              baseMode, newMode));
    }
    const std::optional<double> baseGap = launchGapOf(base), newGap = launchGapOf(next);
    if (baseGap && newGap && std::abs(*newGap / *baseGap - 1) > kLaunchGapsApart) {
        warnings.push_back(fmt::format(
            "different launch gaps: BASE {:.3f} us, NEW {:.3f} us ({:+.1f}%); the GPU took another time for each "
            "launch, and the figures of calls that launch several kernels move with it (docs/methodology.md)",
            *baseGap, *newGap, 100 * (*newGap / *baseGap - 1)));
    }
    for (const Report *report : {&base, &next}) {
        if (!report->stopped.empty()) {
            warnings.push_back(
                fmt::format("{} is incomplete ({}): its missing rows read \"only in\"", report->name, report->stopped));
        }
    }
    return warnings;
}

// A row of both reports: its two medians, their ratio and the verdict, or why it cannot be compared.
Entry pairedEntry(const Fields &row, const Fields &other, Comparison &result) {
    Entry entry;
    entry.row = &row;
    const Measure a = measure(row, "BASE"), b = measure(other, "NEW");
    if (a.problem.empty()) entry.baseMs = a.medianMs;
    if (b.problem.empty()) entry.newMs = b.medianMs;
    if (!a.problem.empty() || !b.problem.empty()) {
        entry.verdict = "not comparable";
        entry.note = a.problem.empty() ? b.problem : b.problem.empty() ? a.problem : a.problem + "; " + b.problem;
        return entry;
    }
    entry.ratio = ratioIntervalOfErrors(b.medianMs, figureError(b.noise, b.samples, b.roundsError, b.rounds),
                                        a.medianMs, figureError(a.noise, a.samples, a.roundsError, a.rounds));
    entry.noiseLimit = std::min(a.noise, b.noise);
    entry.verdict = verdictOf(entry, result.rule, result.sameWithin);
    entry.estimated = a.estimated || b.estimated;
    result.baseEstimated |= a.estimated;
    result.newEstimated |= b.estimated;
    return entry;
}

}  // namespace

Comparison compareReports(const Report &base, const Report &next, VerdictRule rule, double sameWithin) {
    Comparison result;
    result.rule = rule;
    result.sameWithin = sameWithin;
    result.warnings = runWarnings(base, next);
    const auto baseRows = byKey(base, result.warnings);
    const auto newRows = byKey(next, result.warnings);
    for (const Fields &row : base.rows) {
        const std::string key = rowKey(row);
        if (baseRows.at(key) != &row) continue;  // a repeat
        const auto other = newRows.find(key);
        if (other != newRows.end()) {
            result.entries.push_back(pairedEntry(row, *other->second, result));
        } else {
            Entry entry;
            entry.row = &row;
            entry.verdict = "only in BASE";
            result.entries.push_back(entry);
        }
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

}  // namespace Harness
