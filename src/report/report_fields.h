#pragma once
// A sweep report of any age read as text fields: the JSON report or the CSV (with the
// context file beside it, or "# key: value" lines in older CSVs), for the compare
// command, which must also take reports written before a column existed, and tell a
// missing column from an empty one.

#include <map>
#include <string>
#include <vector>

namespace Harness {

/**
 * A report's row or context: each field's value as text, "" for a JSON null or an empty
 * CSV cell; integers as written, reals as JSON writes them, booleans "true" and "false".
 */
using Fields = std::map<std::string, std::string>;

struct FieldsReport {
    std::string name;  // what the messages call it: "BASE", "NEW"
    std::string path;
    Fields context;
    std::vector<Fields> rows;
    std::string stopped;  // why a JSON report is incomplete, or ""
};

/**
 * Reads the .json or .csv report at `path`. Every row must have op, backend, size,
 * median_ms and verified. Throws std::runtime_error with one line naming `name`, the
 * path and what is wrong (a file that cannot be read, another format, a malformed file).
 */
FieldsReport readFieldsReport(const std::string &name, const std::string &path);

/** The records of RFC 4180 CSV text from byte `from` on, blank lines left out. Throws on an unclosed quote. */
std::vector<std::vector<std::string>> csvRecords(const std::string &text, std::size_t from);

}  // namespace Harness
