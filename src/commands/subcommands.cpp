#include "commands/subcommands.h"

#include "commands/compare.h"
#include "commands/report.h"

namespace Harness {

const std::vector<Subcommand> &subcommands() {
    static const std::vector<Subcommand> rows = {
        {"compare", "compare BASE NEW [--format FORMAT] [--fail-above 5%]",
         "two sweep reports (.json, or .csv) row by row: new / base with its 95% interval and a\n"
         "      verdict; --fail-above exits 1 on a slow-down past it beyond the noise",
         runCompare},
        {"report", "report [--out DIR] [--quick] [--quiet]",
         "the course's Performance Analysis for your code (make report STUDENT=DIR), or the project's\n"
         "      course back ends: performance.md with block sizes, array-size plots, bottlenecks, test output",
         runReport},
    };
    return rows;
}

const Subcommand *findSubcommand(const std::string &name) {
    for (const Subcommand &row : subcommands()) {
        if (name == row.name) return &row;
    }
    return nullptr;
}

}  // namespace Harness
