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

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "measure/statistics.h"
#include "report/comparison.h"
#include "report/json_report.h"
#include "report/report_fields.h"
#include "report/reporters.h"
#include "report/tables.h"

namespace Harness {

namespace {

constexpr const char *kProgram = "cis565_stream_compaction compare";
constexpr const char *kUsage =
    "usage: cis565_stream_compaction compare BASE NEW [--format text|markdown|csv|json] [--verdict noise|interval] "
    "[--same-within 5%] [--fail-above 5%]";

using Report = FieldsReport;

// The report at `path`, or the one line that says why not.
Report readReport(const std::string &name, const std::string &path) {
    try {
        return readFieldsReport(name, path);
    } catch (const std::runtime_error &e) {
        throw BadInput(e.what());
    }
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

Value numberValue(const std::optional<double> &value) { return value ? Value(*value) : Value(); }

// A report's integer field ("1048576", "" for none) as a number, or its text where it is not one.
Value integerValue(const std::string &text) {
    char *end = nullptr;
    const long long number = std::strtoll(text.c_str(), &end, 10);
    if (text.empty()) return {};
    return *end == '\0' ? Value(number) : Value(text);
}

// A compared row as the CSV and JSON outputs write it.
std::vector<Field> entryFields(const Entry &e) {
    const std::string npot = field(*e.row, "npot");
    const auto ratio = [&e](double Interval::*part) { return e.ratio ? Value((*e.ratio).*part) : Value(); };
    return {{"op", "", field(*e.row, "op")},
            {"backend", "", field(*e.row, "backend")},
            {"size", "", integerValue(field(*e.row, "size"))},
            {"npot", "", npot == "true" || npot == "false" ? Value(npot == "true") : Value(npot)},
            {"block_size", "", integerValue(field(*e.row, "block_size"))},
            {"base_median_ms", "", numberValue(e.baseMs)},
            {"new_median_ms", "", numberValue(e.newMs)},
            {"ratio", "", ratio(&Interval::value)},
            {"ratio_low", "", ratio(&Interval::low)},
            {"ratio_high", "", ratio(&Interval::high)},
            {"verdict", "", e.verdict},
            {"noise_estimated", "", e.ratio ? Value(e.estimated) : Value()},
            {"note", "", e.note}};
}

std::string csvReport(const Comparison &comparison) {
    const Fields none;
    Entry header;
    header.row = &none;
    std::string text;
    for (const Field &field : entryFields(header)) text += (text.empty() ? "" : ",") + field.key;
    text += "\n";
    for (const Entry &e : comparison.entries) {
        std::string line;
        for (const Field &field : entryFields(e)) (line += line.empty() ? "" : ",") += csvField(plainText(field.value));
        text += line + "\n";
    }
    return text;
}

std::string jsonReport(const Comparison &comparison, const Report &base, const Report &next,
                       const std::optional<double> &failAbove) {
    const auto side = [](const Report &report) {
        std::vector<Field> fields = {{"path", "", report.path}};
        for (const char *key : {"run_id", "date", "gpu", "mode", "git_revision"})
            fields.push_back({key, "", field(report.context, key)});
        fields.push_back({"complete", "", report.stopped.empty()});
        return jsonText(fields);
    };
    std::string text = fmt::format("{{\n  \"base\": {},\n  \"new\": {},\n  \"warnings\": {},\n", side(base), side(next),
                                   jsonText(comparison.warnings));
    text += fmt::format("  \"noise_estimated\": {},\n",
                        jsonText({{"base", "", comparison.baseEstimated}, {"new", "", comparison.newEstimated}}));
    text += fmt::format("  \"verdict_rule\": \"{}\",\n", comparison.rule == VerdictRule::Noise ? "noise" : "interval");
    text += fmt::format("  \"same_within\": {},\n", jsonText(Value(comparison.sameWithin)));
    text += fmt::format("  \"fail_above\": {},\n  \"rows\": [", jsonText(numberValue(failAbove)));
    for (std::size_t i = 0; i < comparison.entries.size(); ++i)
        text += fmt::format("{}\n    {}", i ? "," : "", jsonText(entryFields(comparison.entries[i])));
    std::vector<Field> counts;
    for (const char *verdict : kVerdicts) counts.push_back({verdict, "", countOf(comparison, verdict)});
    return text + fmt::format("\n  ],\n  \"summary\": {}\n}}\n", jsonText(counts));
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

// A CLI11 check that `parse` accepts the text; CLI11 puts the flag's name before its message.
template <typename Parse>
CLI::Validator accepting(Parse parse) {
    return CLI::Validator(
        [parse](std::string &text) {
            try {
                parse(text);
                return std::string();
            } catch (const std::invalid_argument &e) {
                return std::string(e.what());
            }
        },
        "");
}

// The words for CLI11, each long flag's value joined to it ("--fail-above=-5%": CLI11
// takes a value from the next word only when that word does not look like a flag), and
// an unknown flag, or one without its value, refused with the nearest known one.
std::vector<std::string> joinedFlags(const CLI::App &app, const std::vector<std::string> &args) {
    std::vector<std::string> flags;
    for (const CLI::Option *option : app.get_options())
        for (const std::string &name : option->get_lnames()) flags.push_back("--" + name);
    std::vector<std::string> words;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        if (arg == "--") {
            words.insert(words.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
            break;
        }
        const std::string flag = arg.substr(0, arg.find('='));
        if (arg.rfind("--", 0) == 0 && std::find(flags.begin(), flags.end(), flag) == flags.end())
            throw BadInput(unknownNameMessage("flag", "compare's flags", flag, flags));
        if (arg.rfind("--", 0) != 0 || flag == "--help" || flag != arg) {
            words.push_back(arg);
        } else if (i + 1 < args.size()) {
            words.push_back(arg + "=" + args[++i]);
        } else {
            throw BadInput(fmt::format("{} needs a value; {}", flag, kUsage));
        }
    }
    return words;
}

CompareOptions parseArgs(const std::vector<std::string> &args) {
    CompareOptions options;
    CLI::App app{"", kProgram};
    app.set_help_flag();  // compare's own help text (kHelp)
    app.add_flag("-h,--help", options.help);
    app.add_option("reports", options.reports);
    const auto add = [&app](const char *name, auto parse, auto store) {
        app.add_option_function<std::string>(name, [parse, store](const std::string &text) { store(parse(text)); })
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
            ->check(accepting(parse));
    };
    add("--format", parseFormat, [&options](Format format) { options.format = format; });
    add("--verdict", parseRule, [&options](VerdictRule rule) { options.rule = rule; });
    add("--same-within", parseThreshold, [&options](double within) { options.sameWithin = within; });
    add("--fail-above", parseThreshold, [&options](double above) { options.failAbove = above; });
    std::vector<std::string> words = joinedFlags(app, args);
    std::reverse(words.begin(), words.end());  // CLI11 takes them last first
    try {
        app.parse(words);
    } catch (const CLI::ValidationError &e) {
        throw BadInput(e.what());  // "--format: unknown format 'html'; formats: ..."
    } catch (const CLI::ParseError &e) {
        throw BadInput(fmt::format("{}; {}", e.what(), kUsage));
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
        const Comparison comparison = compareReports(base, next, options.rule, options.sameWithin);
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
