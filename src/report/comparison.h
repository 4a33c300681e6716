#pragma once
// Two sweep reports (report_fields.h) matched row by row on (op, back end, size, npot,
// block size): for each pair the new median over the base's, its 95% interval from both
// rows' noise (ratioIntervalOfErrors), and a verdict; and the warnings a reader must see
// first (different GPUs, modes or launch gaps, an incomplete report, repeated rows).

#include <optional>
#include <string>
#include <vector>

#include "measure/statistics.h"
#include "report/report_fields.h"

namespace Harness {

// How a compared row's verdict is reached. Noise (the default, nvbench_compare's rule):
// the row is the same when new / base - 1 is within the smaller of the two rows' noise
// (standard deviation / mean), so a run's own spread, not its sample count, sets what a
// change must pass. Interval: the same when the ratio's 95% interval covers 1; thousands
// of samples make that interval far narrower than the drift between two runs.
enum class VerdictRule { Noise, Interval };

struct Entry {
    const Fields *row = nullptr;  // the base's row, else the new one's
    std::optional<double> baseMs, newMs;
    std::optional<Interval> ratio;
    double noiseLimit = 0;  // the smaller of the two rows' noise
    std::string verdict;  // faster, slower, same, only in BASE, only in NEW, not comparable
    std::string note;
    bool estimated = false;
};

struct Comparison {
    std::vector<Entry> entries;
    std::vector<std::string> warnings;
    bool baseEstimated = false, newEstimated = false;
    VerdictRule rule = VerdictRule::Noise;  // how the verdicts were reached
    double sameWithin = 0;  // --same-within: a change this small is the same, whatever the rule
};

/**
 * BASE's rows in their order, each with NEW's row of the same key, then NEW's rows that
 * BASE lacks: "only in BASE", "only in NEW", "not comparable" (a side skipped or failed,
 * or without a median), else faster, slower or same by `rule`, and the same within
 * `sameWithin` of 1 whatever the rule.
 */
Comparison compareReports(const FieldsReport &base, const FieldsReport &next, VerdictRule rule, double sameWithin);

/** The field's text, "" when the row or context has none. */
std::string field(const Fields &fields, const std::string &key);

/** The field as a finite number, none when it is empty or not one. */
std::optional<double> number(const Fields &fields, const std::string &key);

}  // namespace Harness
