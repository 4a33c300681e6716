#pragma once
// The command line as CLI11 reads it: its flags and their groups in --help, the checks
// between flags, and what the parsed options mean for the measurement and the reports.

#include <string>

#include "cli/options.h"
#include "measure/runner.h"

namespace Harness {

/** The RunSettings the options ask for. */
RunSettings runSettings(const Options &options);

/**
 * How the figures are taken, as the reports say it: "median of calls until its 95%
 * interval is within +-0.5% (at least 10 calls and 50 ms, at most 2 s) after 1 untimed;
 * GPU: L2 flushed before each, launch time out (blocking kernel)".
 */
std::string samplingText(const Options &options);

/**
 * Fills `options` from argv. Returns -1 to go on, or the exit status to stop with:
 * 0 after --help or --version, 2 after a bad flag or value (reported on stderr as one
 * line naming the flag and what it accepts), a --size past 2^31 - 1 included when no
 * sweep is asked for.
 */
int parseCommandLine(int argc, const char *const *argv, Options &options);

}  // namespace Harness
