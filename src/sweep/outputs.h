#pragma once
// Where a sweep's report goes: stdout in --format, and every --output file in the format
// its extension names, with the context of each CSV in a JSON file beside it.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "report/reporters.h"

namespace Harness {

/** The open report files and a reporter for each, stdout's first. */
class Outputs {
public:
    /**
     * Opens every --output file and, beside each CSV, its context file, before anything
     * runs; returns a one-line error ("--output: cannot write 'x.csv': ...") or "".
     */
    std::string open(const Options &options);

    /** The reporters, stdout's (options.format) first; valid while this lives. */
    std::vector<Reporter *> reporters() const;

private:
    struct FileCloser {
        void operator()(std::FILE *file) const { std::fclose(file); }
    };
    std::vector<std::unique_ptr<std::FILE, FileCloser>> files_;
    std::vector<std::unique_ptr<Reporter>> reporters_;
};

/**
 * Ends every open report (the current op's table, JSON's closing brackets) after an
 * error; a report that fails again is left as it is, the first error being the one
 * reported.
 */
void endAfterError(const std::vector<Reporter *> &open, const std::string &why) noexcept;

}  // namespace Harness
