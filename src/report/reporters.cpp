#include "report/reporters.h"

// The reports' common pieces: format names, the reporter of each format, the tally of a
// run's cells, and the labels every format shares.

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "cli/cli.h"
#include "report/writers.h"

namespace Harness {

namespace {

constexpr std::pair<const char *, Format> kFormatNames[] = {
    {"text", Format::Text}, {"markdown", Format::Markdown}, {"csv", Format::Csv}, {"json", Format::Json}};

constexpr std::pair<const char *, Format> kExtensions[] = {
    {".txt", Format::Text}, {".md", Format::Markdown}, {".csv", Format::Csv}, {".json", Format::Json}};

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
        case Format::Csv: return makeCsvReporter(std::move(output));
        case Format::Json: return makeJsonReporter(std::move(output));
        case Format::Markdown: return makeTableReporter(std::move(output), true);
        case Format::Text: return makeTableReporter(std::move(output), false);
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
    return makeJsonContextReporter(Output(out, where));
}

std::string contextPathFor(const std::string &csvPath) {
    const std::size_t stem = formatForPath(csvPath) == Format::Csv ? csvPath.size() - 4 : csvPath.size();
    return csvPath.substr(0, stem) + ".context.json";
}

std::string sizeLabel(long long size, bool npot) { return npot ? formatSize(size + 3) + " - 3" : formatSize(size); }

std::string oneLine(std::string text) {
    std::replace_if(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
    return text;
}

}  // namespace Harness
