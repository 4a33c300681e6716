#pragma once
// The one schema every report format writes: a row's and a context's fields, each with
// its key (CSV columns, JSON members), its label (text and markdown) and its value, so
// that a field added here appears in every format and is read back from JSON by the
// same key (json_report.h).

#include <string>
#include <variant>
#include <vector>

#include "report/reporters.h"

namespace Harness {

/** A field's value: none (JSON null, an empty CSV cell), a flag, an integer, a real or text. */
using Value = std::variant<std::monostate, bool, long long, double, std::string>;

struct Field {
    std::string key;    // CSV and JSON
    std::string label;  // text and markdown
    Value value;
};

/** The run's context, in the order the reports list it. */
std::vector<Field> contextFields(const Context &context);

/** A measured cell's fields, in the CSV's column order. */
std::vector<Field> rowFields(const Row &row);

/** The columns that tell one run's rows from another's when CSVs are joined: run, date, GPU, mode. */
std::vector<Field> runFields(const Context &context);

/** The value as plain text: "" when missing or not finite, six significant digits for reals. */
std::string plainText(const Value &value);

/** A row status as the reports write it: "passed", "FAIL", "skipped". */
const char *statusName(Row::Status status);

}  // namespace Harness
