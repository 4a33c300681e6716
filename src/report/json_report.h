#pragma once
// A JSON report read back: what `compare` and a sweep's parent process read, in the one
// row schema the reporters write (reporters.h). And the JSON text of the schema's fields,
// for the writers (the JSON report, a CSV's context file, compare's JSON output).

#include <istream>
#include <string>
#include <vector>

#include "report/reporters.h"
#include "report/row_schema.h"

namespace Harness {

/** A whole JSON report: its context, its rows, and whether the run ended. */
struct JsonReport {
    Context context;
    std::vector<Row> rows;
    bool complete = true;
    std::string stopReason;  // why it was cut short, when !complete
};

/**
 * Reads a report that makeReporter(Format::Json, ...) wrote. Throws std::runtime_error
 * naming `where` and what is wrong when the text is not such a report.
 */
JsonReport readJsonReport(std::istream &in, const std::string &where);

/**
 * A value as JSON: null when missing or not finite, reals to the last digit (they read
 * back equal), text quoted and escaped.
 */
std::string jsonText(const Value &value);

/** Fields as one JSON object on one line: {"key": value, ...}, in their order. */
std::string jsonText(const std::vector<Field> &fields);

/** Strings as one JSON array on one line: ["a", "b"]. */
std::string jsonText(const std::vector<std::string> &items);

}  // namespace Harness
