// The grade's reports: its table of cases x functions as text, markdown, CSV and JSON,
// and the lines under the table, failures alike grouped into one line.

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/grade.h"
#include "measure/hints.h"
#include "report/tables.h"

namespace Harness {

using Outcome = GradeCell::Outcome;

namespace {

// The JSON and CSV spelling of an outcome; the table writes the failures in capitals.
const char *outcomeName(Outcome outcome) {
    switch (outcome) {
        case Outcome::Passed: return "passed";
        case Outcome::FailValue: return "fail value";
        case Outcome::FailCount: return "fail count";
        case Outcome::Crashed: return "crashed";
        case Outcome::NotOffered: return "not offered";
        case Outcome::NotBuilt: return "not built";
        case Outcome::Skipped: return "skipped";
        case Outcome::NotRun: return "not run";
    }
    return "";
}

bool failed(Outcome outcome) { return outcome != Outcome::Passed && outcome != Outcome::Skipped; }

long long countCells(const GradeResults &results, bool (*test)(Outcome)) {
    long long n = 0;
    for (const auto &column : results.cells) {
        n += std::count_if(column.begin(), column.end(), [test](const GradeCell &c) { return test(c.outcome); });
    }
    return n;
}

// A detail with its numbers (and the plural that follows one) left out, so that failures
// alike but for their index or size read as one: "a[#] = #, expected #".
std::string shape(std::string detail) {
    for (std::size_t at = detail.find("elements"); at != std::string::npos; at = detail.find("elements", at)) {
        detail.erase(at + 7, 1);
    }
    const auto digit = [&detail](std::size_t i) {
        return i < detail.size() && std::isdigit(static_cast<unsigned char>(detail[i])) != 0;
    };
    std::string out;
    for (std::size_t i = 0; i < detail.size(); ++i) {
        if (!digit(i) && !(detail[i] == '-' && digit(i + 1))) out += detail[i];
        else if (out.empty() || out.back() != '#') out += '#';
    }
    return out;
}

// The lines of one function's cells: each group of cells alike (the same outcome, and a
// detail and a hint alike but for their numbers) in one line, which names the first.
void functionNotes(const GradeResults &results, std::size_t f, std::vector<std::string> &lines) {
    const std::string &name = results.functions[f];
    const auto &cells = results.cells[f];
    std::vector<std::vector<std::size_t>> groups;  // case indices, each group's first the one named
    const auto sameAs = [&](std::size_t a, std::size_t b) {
        return cells[a].outcome == cells[b].outcome && shape(cells[a].hint) == shape(cells[b].hint) &&
               shape(cells[a].detail) == shape(cells[b].detail);
    };
    for (std::size_t c = 0; c < cells.size(); ++c) {
        const bool noted = cells[c].outcome == Outcome::Passed && !cells[c].detail.empty();
        if (!noted && (!failed(cells[c].outcome) || cells[c].outcome == Outcome::NotRun)) continue;
        auto group = std::find_if(groups.begin(), groups.end(), [&](const auto &g) { return sameAs(g[0], c); });
        if (group == groups.end()) groups.push_back({c});
        else group->push_back(c);
    }
    for (const auto &group : groups) {
        const GradeCell &first = cells[group[0]];
        std::string where = results.cases[group[0]].label;
        if (group.size() == cells.size()) {
            where = "every case";
        } else if (group.size() > 1) {
            where = fmt::format("{} cases: {}", group.size(), where);
            for (std::size_t i = 1; i < group.size() && i < 3; ++i) where += "; " + results.cases[group[i]].label;
            if (group.size() > 3) where += "; ...";
        }
        if (first.outcome == Outcome::Passed) {
            lines.push_back(fmt::format("{}, {}: passed (note: {})", name, where, first.detail));
            continue;
        }
        lines.push_back(fmt::format("{}, {}: {}{}{}{}", name, where, cellText(first),
                                    group.size() > 1 ? ", the first" : "", first.detail.empty() ? "" : ": " + first.detail,
                                    first.hint.empty() ? "" : "; hint: " + first.hint));
    }
}

// A function's hint from its outcomes across sizes (sizeHint), or "".
std::string sizesHint(const GradeResults &results, std::size_t f) {
    std::vector<SizeOutcome> outcomes;
    for (std::size_t c = 0; c < results.cases.size(); ++c) {
        const Outcome o = results.cells[f][c].outcome;
        if (o == Outcome::Passed || o == Outcome::FailValue || o == Outcome::FailCount || o == Outcome::Crashed) {
            outcomes.push_back({results.cases[c].n, o == Outcome::Passed});
        }
    }
    return sizeHint(outcomes);
}

std::string settingsLine(const GradeResults &results) {
    return fmt::format("GPU: {} | SIZE {} | seed {} | block size {} | one call per case, on an output poisoned with "
                       "0x{:X} bytes, checked against the project's references, judged by the course's rules",
                       results.gpu.empty() ? "not queried" : results.gpu, formatSize(results.size), results.seed,
                       results.blockSize, kPoisonByte);
}

std::string title(const GradeResults &results) {
    return fmt::format("the course submission in {}", results.submission.empty() ? "?" : results.submission);
}

std::string summary(const GradeResults &results) {
    return fmt::format("{} passed, {} failed", gradePassed(results), gradeFailed(results));
}

// The table of cases x functions: the case's label and n, then a cell per function.
Table table(const GradeResults &results, std::string heading) {
    Table t{std::move(heading), {"case", "n"}, {}, {Table::Align::Left, Table::Align::Right}};
    for (const std::string &function : results.functions) {
        t.header.push_back(function);
        t.align.push_back(Table::Align::Left);
    }
    for (std::size_t c = 0; c < results.cases.size(); ++c) {
        std::vector<std::string> row = {results.cases[c].label, std::to_string(results.cases[c].n)};
        for (const auto &column : results.cells) row.push_back(cellText(column[c]));
        t.rows.push_back(std::move(row));
    }
    return t;
}

// One line per case and function under a header line: plain CSV.
std::string csv(const GradeResults &results) {
    std::string out = "case,n,function,outcome,index,detail,hint\n";
    for (std::size_t c = 0; c < results.cases.size(); ++c) {
        for (std::size_t f = 0; f < results.functions.size(); ++f) {
            const GradeCell &each = results.cells[f][c];
            out += fmt::format("{},{},{},{},{},{},{}\n", csvField(results.cases[c].label), results.cases[c].n,
                               csvField(results.functions[f]), outcomeName(each.outcome),
                               each.index >= 0 ? std::to_string(each.index) : "", csvField(each.detail),
                               csvField(each.hint));
        }
    }
    return out;
}

std::string json(const GradeResults &results) {
    using Json = nlohmann::ordered_json;
    Json out = {{"submission", results.submission}, {"gpu", results.gpu.empty() ? "not queried" : results.gpu},
                {"size", results.size}, {"seed", results.seed}, {"block_size", results.blockSize},
                {"functions", results.functions}, {"cases", Json::array()}};
    for (std::size_t c = 0; c < results.cases.size(); ++c) {
        Json cells = Json::object();
        for (std::size_t f = 0; f < results.functions.size(); ++f) {
            const GradeCell &each = results.cells[f][c];
            Json one = {{"outcome", outcomeName(each.outcome)}};
            if (each.index >= 0) one["index"] = each.index;
            if (!each.detail.empty()) one["detail"] = each.detail;
            if (!each.hint.empty()) one["hint"] = each.hint;
            cells[results.functions[f]] = std::move(one);
        }
        out["cases"].push_back({{"case", results.cases[c].label}, {"n", results.cases[c].n}, {"cells", std::move(cells)}});
    }
    out["gpu_fault"] = results.lost.empty() ? Json(nullptr) : Json(results.lost);
    out["passed"] = gradePassed(results);
    out["failed"] = gradeFailed(results);
    out["skipped"] = countCells(results, [](Outcome o) { return o == Outcome::Skipped; });
    return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string cellText(const GradeCell &cell) {
    if (cell.outcome == Outcome::FailValue) {
        return cell.index >= 0 ? fmt::format("FAIL VALUE at {}", cell.index) : "FAIL VALUE";
    }
    if (cell.outcome == Outcome::FailCount) return "FAIL COUNT";
    if (cell.outcome == Outcome::Passed && !cell.detail.empty()) return "passed (note)";
    return outcomeName(cell.outcome);
}

long long gradePassed(const GradeResults &results) {
    return countCells(results, [](Outcome o) { return o == Outcome::Passed; });
}

long long gradeFailed(const GradeResults &results) { return countCells(results, failed); }

std::vector<std::string> gradeNotes(const GradeResults &results) {
    std::vector<std::string> lines;
    for (std::size_t f = 0; f < results.functions.size(); ++f) {
        const GradeCell &first = results.cells[f].empty() ? GradeCell{} : results.cells[f][0];
        if (first.outcome == Outcome::NotOffered || first.outcome == Outcome::NotBuilt) {
            lines.push_back(fmt::format("{}: {}: {}", results.functions[f], cellText(first), first.detail));
            continue;
        }
        functionNotes(results, f, lines);
        const std::string hint = sizesHint(results, f);
        if (!hint.empty()) lines.push_back(fmt::format("{}: hint: {}", results.functions[f], hint));
    }
    if (!results.lost.empty()) {
        lines.push_back(fmt::format("GPU cases stop here: {}; the remaining GPU cases are not run", results.lost));
    }
    const long long skipped = countCells(results, [](Outcome o) { return o == Outcome::Skipped; });
    if (skipped > 0) lines.push_back(fmt::format("{} skipped: no CUDA device", skipped));
    return lines;
}

std::string renderGrade(const GradeResults &results, Format format) {
    std::string out;
    switch (format) {
        case Format::Csv: return csv(results);
        case Format::Json: return json(results);
        case Format::Markdown:
            out = markdownTable(table(results, "Grade of " + title(results))) + settingsLine(results) + "\n\n";
            for (const std::string &note : gradeNotes(results)) out += "- " + note + "\n";
            break;
        case Format::Text:
            out = textTable(table(results, fmt::format("cis565_stream_compaction --grade: {}\n{}\n", title(results),
                                                       settingsLine(results))));
            for (const std::string &note : gradeNotes(results)) out += note + "\n";
            break;
    }
    return out + "\n" + summary(results) + "\n";
}

}  // namespace Harness
