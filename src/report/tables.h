#pragma once
// Tables for people, as the sweep's reports and the compare command print them: text
// aligned on its numbers and GitHub-flavoured markdown that pastes, with the figures in
// them written to three significant digits in a unit chosen per table.

#include <cstddef>
#include <string>
#include <vector>

namespace Harness {

struct Table {
    enum class Align { Left, Right };

    std::string title;  // text: the line above the table; markdown: a bold line above it
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;  // each as many cells as the header
    // One per column; left empty, the first column is left-aligned (a label) and the
    // others right-aligned (figures).
    std::vector<Align> align;
};

/**
 * The table as text: the title, then every column padded to its widest cell (by the
 * characters a terminal shows, not bytes), two spaces before each, a rule under the header.
 */
std::string textTable(const Table &table);

/**
 * The table in GitHub-flavoured markdown: the title in bold, a blank line, the header, the
 * alignment row and the rows, each cell's '|' escaped so that every row keeps its columns.
 */
std::string markdownTable(const Table &table);

/** Characters as a terminal shows them: UTF-8 continuation bytes do not count. */
std::size_t displayWidth(const std::string &text);

/**
 * `value` to three significant digits, trailing zeros kept so that a column reads
 * evenly: 0.00123, 0.0500, 1.20, 45.6, 789, 1230 (no exponent); "" for a value that is
 * not finite.
 */
std::string threeDigits(double value);

/** The unit of a table of times: µs when every median is below 1 ms, else ms. */
struct TimeUnit {
    const char *name = "ms";
    double perMs = 1;  // figures in this unit per millisecond

    /** `ms` in this unit, to three significant digits. */
    std::string format(double ms) const { return threeDigits(ms * perMs); }
};

/**
 * The unit for a table whose largest median is `largestMs`. Medians choose it, never a
 * min, max or percentile, so that one slow call does not turn a table of µs into ms.
 */
TimeUnit timeUnitFor(double largestMs);

}  // namespace Harness
