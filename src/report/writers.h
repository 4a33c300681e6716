#pragma once
// The reporters of each format, for makeReporter (reporters.h) to choose from.

#include <memory>

#include "report/output.h"
#include "report/reporters.h"

namespace Harness {

/** A plain CSV: the header on the first line, then a row per cell with its run's columns. */
std::unique_ptr<Reporter> makeCsvReporter(Output out);

/** One JSON document: the context, the rows as they arrive, warnings, completeness. */
std::unique_ptr<Reporter> makeJsonReporter(Output out);

/** The context of a CSV report as one JSON object, written when the run ends. */
std::unique_ptr<Reporter> makeJsonContextReporter(Output out);

/** Text or markdown tables of each op: time, bandwidth, speed-up. */
std::unique_ptr<Reporter> makeTableReporter(Output out, bool markdown);

}  // namespace Harness
