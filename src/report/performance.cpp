#include "report/performance.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stream_compaction/backends.h>

#include "measure/hints.h"
#include "report/tables.h"

namespace Harness {

namespace {

const Row *find(const std::vector<Row> &rows, const std::string &backend, Op op, long long size, bool npot,
                std::optional<int> block) {
    for (const Row &row : rows) {
        if (row.backend == backend && row.op == op && row.size == size && row.npot == npot && row.blockSize == block) {
            return &row;
        }
    }
    return nullptr;
}

// The array-size sweep's row of one size: a GPU back end's carries the block size the sweep
// ran at, a CPU's or a fixed-tile back end's none.
const Row *findAtSize(const std::vector<Row> &rows, const std::string &backend, Op op, long long size, bool npot) {
    for (const Row &row : rows) {
        if (row.backend == backend && row.op == op && row.size == size && row.npot == npot) return &row;
    }
    return nullptr;
}

bool passed(const Row *row) { return row && row->status == Row::Status::Passed && row->timing.samples > 0; }

std::string cellOf(const Row *row) {
    if (!row) return "";
    if (row->status == Row::Status::Failed) return "FAIL";
    if (row->status == Row::Status::Skipped) return "skipped";
    return threeDigits(row->timing.medianMs);
}

// A section's line when its sweep did not run: "Not measured: no CUDA device."
std::string missing(const std::string &why) { return why.empty() ? "Not measured.\n\n" : "Not measured: " + why + ".\n\n"; }

std::string percent(double fraction) {
    return fraction >= 0.1 ? fmt::format("{:.0f}%", 100 * fraction) : fmt::format("{:.1f}%", 100 * fraction);
}

// The sizes (powers of two, npot rows left out) at which `backend`'s `op` passed, ascending.
std::vector<long long> passedSizes(const std::vector<Row> &rows, const std::string &backend, Op op) {
    std::set<long long> sizes;
    for (const Row &row : rows) {
        if (row.backend == backend && row.op == op && !row.npot && passed(&row)) sizes.insert(row.size);
    }
    return {sizes.begin(), sizes.end()};
}

// The passed median at a power of two `size`; NaN where there is none.
double medianAt(const std::vector<Row> &rows, const std::string &backend, Op op, long long size) {
    const Row *row = findAtSize(rows, backend, op, size, false);
    return passed(row) ? row->timing.medianMs : NAN;
}

// The course back ends that offer `op` in these rows (naive has no compaction), in course order.
std::vector<std::string> withRows(const std::vector<Row> &rows, const std::vector<std::string> &names, Op op) {
    std::vector<std::string> found;
    for (const std::string &name : names) {
        if (std::any_of(rows.begin(), rows.end(), [&](const Row &r) { return r.backend == name && r.op == op; })) {
            found.push_back(name);
        }
    }
    return found;
}


// ---- 1. Block sizes ----

// A column of the block-size table: one back end's op at the power of two or at SIZE - 3.
struct BlockColumn {
    std::string backend;
    Op op;
    bool npot;
};

std::vector<BlockColumn> blockColumns(const JsonReport &blocks, const CourseBackends &backends) {
    std::vector<BlockColumn> columns;
    for (const std::string &backend : {backends.naive, backends.efficient}) {
        for (Op op : {Op::Scan, Op::Compact}) {
            for (bool npot : {false, true}) {
                const bool any = std::any_of(blocks.rows.begin(), blocks.rows.end(), [&](const Row &r) {
                    return r.backend == backend && r.op == op && r.npot == npot;
                });
                if (any) columns.push_back({backend, op, npot});
            }
        }
    }
    return columns;
}

// The table: a row per block size, a column per back end, op and size, the fastest of
// each column in bold; a back end with a fixed block size has one figure, in every row.
std::string blockTable(const JsonReport &blocks, const std::vector<BlockColumn> &columns) {
    std::set<std::optional<int>> sizes;
    long long size = 0;
    for (const Row &row : blocks.rows) {
        if (row.blockSize) sizes.insert(row.blockSize);
        if (!row.npot) size = row.size;
    }
    if (sizes.empty()) sizes.insert(std::nullopt);  // no column takes a block size: one row
    Table table{fmt::format("Median time (ms) at n = {} and {}, by threads per block", sizeLabel(size, false),
                            sizeLabel(size - 3, true)),
                {"block size"}, {}, {}};
    for (const BlockColumn &c : columns) {
        table.header.push_back(
            fmt::format("{}, {}", courseLabel(c.backend, c.op), c.npot ? "non-power-of-two" : "power-of-two"));
    }
    for (const std::optional<int> block : sizes) {
        std::vector<std::string> cells = {block ? std::to_string(*block) : "its own"};
        for (const BlockColumn &c : columns) {
            const long long n = c.npot ? size - 3 : size;
            const Row *row = find(blocks.rows, c.backend, c.op, n, c.npot, block);
            if (!row) row = find(blocks.rows, c.backend, c.op, n, c.npot, std::nullopt);
            double best = INFINITY;
            for (const std::optional<int> other : sizes) {
                const Row *each = find(blocks.rows, c.backend, c.op, n, c.npot, other);
                if (passed(each)) best = std::min(best, each->timing.medianMs);
            }
            const bool bold = passed(row) && row->blockSize && row->timing.medianMs == best;
            cells.push_back(bold ? "**" + cellOf(row) + "**" : cellOf(row));
        }
        table.rows.push_back(std::move(cells));
    }
    return markdownTable(table);
}

std::string blockSection(const PerformanceInputs &inputs) {
    std::string out = "### 1. Block size optimisation\n\n";
    if (!inputs.blocks) return out + missing(inputs.blocksMissing);
    const CourseBackends &b = inputs.backends;
    const std::vector<BlockColumn> columns = blockColumns(*inputs.blocks, b);
    if (columns.empty()) return out + missing("the naive and work-efficient functions are not offered");
    out += blockTable(*inputs.blocks, columns);
    std::vector<std::string> best;
    std::vector<std::string> fixed;
    for (const BlockColumn &c : columns) {
        if (c.npot) continue;
        const std::optional<int> block = bestBlockSize(*inputs.blocks, c.backend, c.op);
        if (block) best.push_back(fmt::format("the {} at {} threads", courseLabel(c.backend, c.op), *block));
        const Row *once = find(inputs.blocks->rows, c.backend, c.op, inputs.blocks->rows.front().size, false, std::nullopt);
        if (once && !block) fixed.push_back(courseLabel(c.backend, c.op));
    }
    if (!best.empty()) out += fmt::format("Fastest at the power of two (in bold): {}. ", fmt::join(best, ", "));
    if (!fixed.empty()) {
        out += fmt::format("The {} take no block size from the harness (no setBlockSize hook), so each was measured "
                           "once{}. ",
                           fmt::join(fixed, " and "), best.empty() ? "" : " and shows the same figure in every row");
    }
    if (inputs.sizesBlockSize > 0 && !best.empty()) {  // said of the back ends that take one
        out += fmt::format("The array sizes below run at {} threads per block.", inputs.sizesBlockSize);
    }
    return out + "\n\n";
}

// ---- 2. Array sizes ----

// A row per size and a column per back end: the median times of one op.
std::string sizesTable(const JsonReport &sizes, Op op, const std::vector<std::string> &names) {
    std::set<long long> all;
    for (const Row &row : sizes.rows) {
        if (row.op == op && !row.npot) all.insert(row.size);
    }
    Table table{fmt::format("{}: median time (ms) against array size", opName(op)), {"n"}, {}, {}};
    for (const std::string &name : names) table.header.push_back(courseLabel(name, op));
    for (long long n : all) {
        std::vector<std::string> cells = {sizeLabel(n, false)};
        for (const std::string &name : names) cells.push_back(cellOf(findAtSize(sizes.rows, name, op, n, false)));
        table.rows.push_back(std::move(cells));
    }
    return markdownTable(table);
}

// Where each GPU back end is faster than the CPU at every larger size.
std::string crossing(const std::vector<Row> &rows, Op op, const CourseBackends &b) {
    const std::vector<long long> cpu = passedSizes(rows, b.cpu, op);
    if (cpu.empty()) return "";
    std::vector<std::string> parts;
    for (const std::string &gpu : withRows(rows, {b.naive, b.efficient, b.thrust}, op)) {
        const std::vector<long long> sizes = passedSizes(rows, gpu, op);
        std::optional<long long> from;
        for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
            if (!(medianAt(rows, gpu, op, *it) < medianAt(rows, b.cpu, op, *it))) break;
            from = *it;
        }
        const std::string label = courseLabel(gpu, op);
        if (sizes.empty()) continue;
        parts.push_back(from ? fmt::format("the {} from {} on", label, sizeLabel(*from, false))
                             : fmt::format("the {} at no size up to {}", label, sizeLabel(sizes.back(), false)));
    }
    if (parts.empty()) return "";
    return fmt::format("Faster than the {}: {}. ", courseLabel(b.cpu, op), fmt::join(parts, "; "));
}

// Each GPU back end's share of the measured copy bandwidth at the largest size.
std::string ceiling(const JsonReport &sizes, Op op, const CourseBackends &b) {
    long long largest = 0;
    for (const Row &row : sizes.rows) {
        if (row.op == op && passed(&row) && row.copyFraction) largest = std::max(largest, row.size);
    }
    if (largest == 0 || sizes.context.copyBandwidthGBs <= 0) return "";
    std::vector<std::string> parts;
    std::vector<std::string> names = {b.thrust, b.efficient, b.naive};
    names.insert(names.end(), b.references.begin(), b.references.end());
    for (const std::string &name : names) {
        const Row *row = findAtSize(sizes.rows, name, op, largest, false);
        if (passed(row) && row->copyFraction) {
            parts.push_back(fmt::format("{} {}", courseLabel(name, op), percent(*row->copyFraction)));
        }
    }
    if (parts.empty()) return "";
    return fmt::format("At {}, against a device-to-device copy measured in the same run ({:.0f} GB/s), the {} "
                       "move their bytes at: {}. ",
                       sizeLabel(largest, false), sizes.context.copyBandwidthGBs,
                       op == Op::Scan ? "scans" : "compactions", fmt::join(parts, ", "));
}

// How each back end's time grows: flat at the small end (launch overhead), and over the
// last step of sizes at the top.
std::string trend(const std::vector<Row> &rows, Op op, const std::vector<std::string> &names) {
    std::vector<std::string> growth;
    std::vector<std::string> flat;
    long long from = 0, to = 0;
    for (const std::string &name : names) {
        const std::vector<long long> sizes = passedSizes(rows, name, op);
        if (sizes.size() < 3) continue;
        const double first = medianAt(rows, name, op, sizes[0]);
        long long flatTo = sizes[0];
        for (long long n : sizes) {
            if (medianAt(rows, name, op, n) > 2 * first) break;
            flatTo = n;
        }
        const std::string label = courseLabel(name, op);
        if (flatTo >= 16 * sizes[0]) flat.push_back(fmt::format("the {} up to {}", label, sizeLabel(flatTo, false)));
        if (from == 0) {
            from = sizes[sizes.size() - 2];
            to = sizes.back();
        }
        if (sizes.back() != to || std::isnan(medianAt(rows, name, op, from))) continue;
        growth.push_back(fmt::format("{} ×{:.1f}", label, medianAt(rows, name, op, to) / medianAt(rows, name, op, from)));
    }
    std::string out;
    if (!flat.empty()) {
        out += fmt::format("At the small end the time hardly grows with n (within 2× of its time at the smallest "
                           "size): {}; there a call costs its launches and allocations more than its work. ",
                           fmt::join(flat, ", "));
    }
    if (!growth.empty()) {
        out += fmt::format("From {} to {} (×{} n) the times grow by: {}.", sizeLabel(from, false), sizeLabel(to, false),
                           to / from, fmt::join(growth, ", "));
    }
    return out;
}

std::string sizesSection(const PerformanceInputs &inputs) {
    std::string out = "### 2. Array size: the GPU against the CPU\n\n";
    if (!inputs.sizes) return out + missing(inputs.sizesMissing);
    const CourseBackends &b = inputs.backends;
    std::vector<std::string> names = b.course();
    names.insert(names.end(), b.references.begin(), b.references.end());
    for (Op op : {Op::Scan, Op::Compact}) {
        const std::vector<std::string> present = withRows(inputs.sizes->rows, names, op);
        if (present.empty()) continue;
        std::string images;
        for (const char *kind : {"time", "bandwidth"}) {
            const std::string image = fmt::format("sizes-{}-{}.png", opName(op), kind);
            if (std::find(inputs.images.begin(), inputs.images.end(), image) != inputs.images.end()) {
                images += fmt::format("![{} {} against array size]({})\n", opName(op), kind, image);
            }
        }
        if (!images.empty()) out += images + "\n";
        out += sizesTable(*inputs.sizes, op, present);
        out += crossing(inputs.sizes->rows, op, b) + ceiling(*inputs.sizes, op, b) +
               trend(inputs.sizes->rows, op, withRows(inputs.sizes->rows, b.course(), op)) + "\n\n";
    }
    std::vector<std::string> references;
    for (const std::string &name : b.references) {
        if (!passedSizes(inputs.sizes->rows, name, Op::Scan).empty()) references.push_back(courseLabel(name, Op::Scan));
    }
    if (!references.empty()) {
        out += fmt::format("The {} are the project's own, drawn as references (with their compactions): what the "
                           "same GPU does when each element is read and written about once.\n\n",
                           fmt::join(references, " and "));
    }
    return out;
}

// ---- 3. Bottlenecks ----

// What the array-size sweep says of one back end's op at its largest size, in a sentence;
// a GPU back end's against the copy ceiling.
std::string measured(const JsonReport &sizes, const std::string &name, Op op, bool gpu) {
    const std::vector<long long> passedAt = passedSizes(sizes.rows, name, op);
    if (passedAt.empty()) return "its results are wrong, or it did not run (see 5. Test output), so no time of it counts.";
    const Row *row = findAtSize(sizes.rows, name, op, passedAt.back(), false);
    std::string text = fmt::format("{} ms at {}", threeDigits(row->timing.medianMs), sizeLabel(row->size, false));
    if (row->bandwidthGBs) text += fmt::format(", {:.1f} GB/s", *row->bandwidthGBs);
    if (!gpu) return text + " on one CPU core.";
    if (!row->copyFraction) return text + ".";
    text += fmt::format(" ({} of the copy)", percent(*row->copyFraction));
    if (*row->copyFraction >= 0.5) return text + ": close to what memory can move, so memory I/O bounds it.";
    return text + ": far from what memory can move, so its time goes to more than one pass over the data: extra "
                  "passes, launches, or allocations and copies inside its timer.";
}

// A back end's op's passed rows whose call was traced (--explain), ascending in size.
std::vector<const Row *> tracedRows(const JsonReport &sizes, const std::string &name, Op op) {
    std::vector<const Row *> rows;
    for (long long n : passedSizes(sizes.rows, name, op)) {
        const Row *row = findAtSize(sizes.rows, name, op, n, false);
        if (row->explanation && row->explanation->traced()) rows.push_back(row);
    }
    return rows;
}

// What its traced calls say: at the largest size, at the smallest where the verdict is
// another, and the hint when its timer brackets allocations or copies; "" when untraced.
std::string tracedText(const JsonReport &sizes, const std::string &name, Op op) {
    const std::vector<const Row *> rows = tracedRows(sizes, name, op);
    if (rows.empty()) return "";
    const Explanation &e = *rows.back()->explanation;
    std::string text = fmt::format(" Traced at {}: {}; {} kernel{}, {} ms in them and {} ms between them, of {} ms.",
                                   sizeLabel(rows.back()->size, false), e.verdict, e.kernels, e.kernels == 1 ? "" : "s",
                                   threeDigits(e.kernelMs), threeDigits(e.betweenMs), threeDigits(e.callMs));
    const Explanation &first = *rows.front()->explanation;
    if (rows.size() > 1 && first.bound != e.bound) {
        text += fmt::format(" At {}: {}.", sizeLabel(rows.front()->size, false), first.verdict);
    }
    const std::string hint = timerHint(e);
    return hint.empty() ? text : text + " Hint: " + hint + ".";
}

// Why no call was traced, from an untraced row's verdict ("unavailable: ..."); "" when none says.
std::string untracedReason(const JsonReport &sizes) {
    for (const Row &row : sizes.rows) {
        if (row.explanation && row.explanation->bound == Bound::Unavailable) return row.explanation->verdict;
    }
    return "";
}

std::string bottlenecksSection(const PerformanceInputs &inputs) {
    std::string out = "### 3. Bottlenecks\n\n";
    if (!inputs.sizes) return out + missing(inputs.sizesMissing);
    bool traced = false;
    for (Op op : {Op::Scan, Op::Compact}) {
        for (const std::string &name : withRows(inputs.sizes->rows, inputs.backends.course(), op)) {
            const bool gpu = name != inputs.backends.cpu;
            const std::string calls = tracedText(*inputs.sizes, name, op);
            traced = traced || !calls.empty();
            out += fmt::format("- **{}**: {}{}\n", courseLabel(name, op), measured(*inputs.sizes, name, op, gpu), calls);
        }
    }
    if (!traced) {
        const std::string why = untracedReason(*inputs.sizes);
        out += fmt::format("\nKernels per call, the time between them, and the allocations and copies inside each "
                           "timer were not traced{}; the sentences above come from the times alone.",
                           why.empty() ? "" : " (" + why + ")");
    } else {
        out += "\nEach traced call is one more call after the timed ones, through CUPTI: its kernels, the time "
               "between them, and what the timer brackets (docs/explain.md).";
    }
    return out + " Edit the sentences with what you know of your code.\n\n";
}

// ---- 4. Thrust's timeline, 5. the test output ----

std::string timelineSection(const PerformanceInputs &inputs) {
    std::string out = "### 4. Thrust's timeline\n\n";
    if (inputs.thrustTimeline.empty()) {
        return out + "Not traced" + (inputs.thrustUntraced.empty() ? "" : " (" + inputs.thrustUntraced + ")") +
               ". `nsys profile ./build/cis565_stream_compaction --backends " + inputs.backends.thrust +
               "` records it for Nsight Systems.\n\n";
    }
    out += "```text\n" + inputs.thrustTimeline + (inputs.thrustTimeline.back() == '\n' ? "" : "\n") + "```\n\n";
    if (!inputs.thrustTrace.empty()) {
        out += fmt::format("The same as a trace: [{}]({}), which Perfetto (ui.perfetto.dev) and chrome://tracing "
                           "open.\n\n", inputs.thrustTrace, inputs.thrustTrace);
    }
    return out;
}

std::string testSection(const PerformanceInputs &inputs) {
    std::string out = "### 5. Test output\n\n";
    if (inputs.testOutput.empty()) return out + "Not run.\n";
    return out + "```text\n" + inputs.testOutput + (inputs.testOutput.back() == '\n' ? "" : "\n") + "```\n";
}

// The opening: whose code, on what machine, made how; what was left out.
std::string opening(const PerformanceInputs &inputs) {
    std::string out = "## Performance Analysis\n\n";
    const std::optional<JsonReport> &report = inputs.sizes ? inputs.sizes : inputs.blocks;
    std::string machine = "no GPU";
    if (report && report->context.gpu) {
        const DeviceInfo &gpu = *report->context.gpu;
        machine = fmt::format("{} (sm_{}{}, {} SMs)", gpu.name, gpu.computeMajor, gpu.computeMinor, gpu.multiprocessors);
    }
    if (report && !report->context.hostCpu.empty()) machine += ", host CPU " + report->context.hostCpu;
    out += fmt::format("{}, measured on {} by `{}`. Every figure is the median of timed calls, each result checked "
                       "against an independent CPU reference.",
                       inputs.whose, machine, inputs.command);
    if (!inputs.backends.student) {
        out += " These are the project's own course back ends, not a student's: give `STUDENT=` (the folder that "
               "holds your stream_compaction/) to report your own.";
    }
    out += "\n\n";
    if (!inputs.skipped.empty()) out += fmt::format("Left out: {}.\n\n", fmt::join(inputs.skipped, "; "));
    return out;
}
}  // namespace

std::string courseLabel(const std::string &backend, Op op) {
    const std::string base = backend.rfind("student-", 0) == 0 ? backend.substr(8) : backend;
    const StreamCompaction::Backend *row = StreamCompaction::findBackend(base);
    return fmt::format("{} {}", row ? row->title : base.c_str(), opName(op));
}

std::optional<int> bestBlockSize(const JsonReport &blocks, const std::string &backend, Op op) {
    std::optional<int> best;
    double bestMs = INFINITY;
    for (const Row &row : blocks.rows) {
        if (row.backend != backend || row.op != op || row.npot || !row.blockSize || !passed(&row)) continue;
        if (row.timing.medianMs < bestMs) {
            bestMs = row.timing.medianMs;
            best = row.blockSize;
        }
    }
    return best;
}

std::string performanceMarkdown(const PerformanceInputs &inputs) {
    return opening(inputs) + blockSection(inputs) + sizesSection(inputs) + bottlenecksSection(inputs) +
           timelineSection(inputs) + testSection(inputs);
}

}  // namespace Harness
