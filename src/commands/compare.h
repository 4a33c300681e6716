#pragma once
// `cis565_stream_compaction compare BASE NEW`: two sweep reports (JSON, or CSV with the
// context file beside it) matched row by row on (op, back end, size, npot, block size);
// for each row the new median over the base's, its 95% interval from both rows' noise
// (Harness::ratioInterval), and a verdict: faster, slower or the same within the smaller
// row's noise (or, with --verdict interval, within the interval), and with --same-within T
// also the same within T of 1.

#include <cstdio>
#include <string>
#include <vector>

namespace Harness {

/**
 * Runs the compare command on `args`, the words after "compare":
 * BASE NEW [--format text|markdown|csv|json] [--verdict noise|interval] [--same-within T]
 * [--fail-above T] [--help]. Writes the comparison to `out`; bad input, warnings of a CSV
 * comparison and a threshold crossed get one line each on `err`. Returns 0; 1 when
 * --fail-above is given and a row reads slower with new / base above 1 + T (with
 * --verdict interval: its interval's low end above 1 + T) or the comparison cannot be
 * written; 2 for bad input (a missing or unreadable report, a bad flag or threshold).
 */
int runCompare(const std::vector<std::string> &args, std::FILE *out, std::FILE *err);

/**
 * A --fail-above or --same-within threshold as a fraction: "5%" or "0.05" is 0.05; "0" or
 * "0%" is 0 (for --fail-above, any slow-down beyond the noise; for --same-within, none).
 * A bare number must be below 1 ("5" is refused as ambiguous: 5% is written "5%").
 * Throws std::invalid_argument saying what is accepted.
 */
double parseThreshold(const std::string &text);

}  // namespace Harness
