#pragma once
// A JSON report read back: what `compare` and a sweep's parent process read, in the one
// row schema the reporters write (reporters.h).

#include <istream>
#include <string>
#include <vector>

#include "report/reporters.h"

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

}  // namespace Harness
