#include "report/report_fields.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/reporters.h"

namespace Harness {

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

namespace {

using Json = nlohmann::json;

std::string readFile(const std::string &path, const std::string &name) {
    std::FILE *file = std::fopen(path.c_str(), "rb");
    if (!file) throw std::runtime_error(fmt::format("cannot read {} '{}': {}", name, path, std::strerror(errno)));
    std::string text;
    char buffer[1 << 16];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
    const bool failed = std::ferror(file);
    std::fclose(file);
    if (failed) throw std::runtime_error(fmt::format("cannot read {} '{}': {}", name, path, std::strerror(errno)));
    return text;
}

// The columns a row must have to be matched and compared.
constexpr const char *kRequired[] = {"op", "backend", "size", "median_ms", "verified"};

void checkColumns(const FieldsReport &report, const std::vector<std::string> &columns) {
    for (const char *column : kRequired) {
        if (std::find(columns.begin(), columns.end(), column) == columns.end()) {
            throw std::runtime_error(fmt::format("{} '{}' is not a sweep report: its rows have no '{}' field", report.name,
                                       report.path, column));
        }
    }
}

// The fields of a JSON object whose values are scalars (nested values are left out).
Fields scalarFields(const Json &object) {
    Fields fields;
    for (const auto &[key, value] : object.items()) {
        if (value.is_string()) fields[key] = value.get<std::string>();
        else if (!value.is_structured() && !value.is_null()) fields[key] = value.dump();
    }
    return fields;
}

// JSON text parsed, or a line naming the report and where the text goes wrong.
Json parsed(const std::string &text, const std::string &what) {
    try {
        return Json::parse(text);
    } catch (const Json::parse_error &e) {
        const std::string message = e.what();  // "[json.exception.parse_error.101] parse error at ..."
        throw std::runtime_error(fmt::format("{}: JSON {}", what, message.substr(message.find(']') + 2)));
    }
}

void readJson(FieldsReport &report, const std::string &text) {
    const Json document = parsed(text, fmt::format("{} '{}' is not a JSON report", report.name, report.path));
    const auto member = [&document](const char *key) { return document.is_object() && document.contains(key) ? document[key] : Json(); };
    const Json rows = member("rows");
    if (!rows.is_array()) {
        throw std::runtime_error(fmt::format("{} '{}' is not a sweep report: it has no \"rows\" list", report.name, report.path));
    }
    if (member("context").is_object()) report.context = scalarFields(member("context"));
    if (member("complete") == false) {
        report.stopped = member("stopped").is_string() ? member("stopped").get<std::string>() : "";
        if (report.stopped.empty()) report.stopped = "cut short";
    }
    for (const Json &row : rows) {
        if (!row.is_object())
            throw std::runtime_error(fmt::format("{} '{}' is not a sweep report: a row is not an object", report.name, report.path));
        std::vector<std::string> keys;
        for (const auto &item : row.items()) keys.push_back(item.key());
        checkColumns(report, keys);
        report.rows.push_back(scalarFields(row));
    }
}

void readCsv(FieldsReport &report, const std::string &text) {
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
        throw std::runtime_error(fmt::format("{} '{}' is not a CSV report: {}", report.name, report.path, e.what()));
    }
    if (records.empty()) throw std::runtime_error(fmt::format("{} '{}' is empty: no CSV header", report.name, report.path));
    const std::vector<std::string> &header = records.front();
    checkColumns(report, header);
    for (std::size_t r = 1; r < records.size(); ++r) {
        if (records[r].size() != header.size()) {
            throw std::runtime_error(fmt::format("{} '{}' is not a CSV report: record {} has {} fields, the header {}", report.name,
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
        const Json context = parsed(contextText, fmt::format("{}'s context '{}' is not JSON", report.name, contextPath));
        for (const auto &[key, value] : scalarFields(context)) report.context[key] = value;
    }
    if (!report.rows.empty()) {
        for (const char *key : {"run_id", "date", "gpu", "mode"}) {
            const auto found = report.rows.front().find(key);
            if (found != report.rows.front().end() && report.context[key].empty()) report.context[key] = found->second;
        }
    }
}

}  // namespace

FieldsReport readFieldsReport(const std::string &name, const std::string &path) {
    FieldsReport report{name, path, {}, {}, {}};
    const std::optional<Format> format = formatForPath(path);
    if (format != Format::Json && format != Format::Csv) {
        throw std::runtime_error(fmt::format("{} '{}': a report to compare is the .json or .csv file a sweep wrote "
                                   "(--output FILE.json or FILE.csv)",
                                   name, path));
    }
    const std::string text = readFile(path, name);
    if (format == Format::Json) readJson(report, text);
    else readCsv(report, text);
    return report;
}


}  // namespace Harness
