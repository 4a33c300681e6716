#include "commands/subcommands.h"

#include "commands/compare.h"
#include "commands/explain.h"
#include "commands/report.h"

namespace Harness {

const std::vector<Subcommand> &subcommands() {
    static const std::vector<Subcommand> rows = {
        {"compare", "compare BASE NEW [--format FORMAT] [--fail-above 5%]",
         "two sweep reports (.json, or .csv) row by row: new / base with its 95% interval and a\n"
         "      verdict; --fail-above exits 1 on a slow-down past it beyond the noise",
         runCompare},
        {"explain", "explain --backends NAMES --op OP [--size N] [--trace FILE.json]",
         "one call of each back end traced (CUPTI) after its timed calls: its timeline kernel by\n"
         "      kernel, where its time went and what bounds it; --trace writes it for Perfetto",
         runExplain},
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
