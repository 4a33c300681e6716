// The text and markdown reports: the context, then three tables per op (time,
// bandwidth, speed-up), each a row per size and block size and a column per back end.

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/row_schema.h"
#include "report/tables.h"
#include "report/writers.h"

namespace Harness {

namespace {

std::string formatRatio(double ratio) {
    return ratio >= 100 ? fmt::format("{:.0f}×", ratio) : fmt::format("{:.3g}×", ratio);
}

// The cell when there is no figure: the failure or skip, or a dash.
std::string statusCell(const Row *row) {
    if (!row) return "—";
    if (row->status == Row::Status::Failed) return "FAIL";
    return row->status == Row::Status::Skipped ? "skipped" : "—";
}

// Code in markdown: fenced by one backtick more than the longest run of them inside.
std::string markdownCode(const std::string &text) {
    std::size_t longest = 0, run = 0;
    for (char c : text) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
    const std::string fence(longest + 1, '`');
    return longest ? fence + " " + text + " " + fence : fence + text + fence;
}

// A table row: a size, its companion flag and a block size (none for a CPU-only op).
struct RowKey {
    long long size;
    bool npot;
    std::optional<int> blockSize;
    bool operator==(const RowKey &other) const {
        return size == other.size && npot == other.npot && blockSize == other.blockSize;
    }
};

// --explain: a line per figure with a traced call: its kernels, where its time went, its verdict.
std::string explainTable(const std::vector<Row> &rows, const char *op, bool markdown) {
    double largest = 0;
    for (const Row &r : rows)
        if (r.explanation) largest = std::max(largest, r.explanation->callMs);
    const TimeUnit unit = timeUnitFor(largest);
    const bool blocks = std::any_of(rows.begin(), rows.end(), [](const Row &r) { return r.blockSize; });
    using Align = Table::Align;
    Table table{fmt::format("{}: one traced call of each figure (--explain), {}", op, unit.name), {"size"}, {},
                {Align::Left}};
    if (blocks) table.header.push_back("block");
    table.header.insert(table.header.end(), {"back end", "kernels", "in kernels", "between", "traced", "verdict"});
    table.align.insert(table.align.end(), blocks ? 1 : 0, Align::Right);
    table.align.insert(table.align.end(),
                       {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Left});
    for (const Row &r : rows) {
        if (!r.explanation) continue;
        const Explanation &e = *r.explanation;
        const auto figure = [&](double ms) { return e.traced() ? unit.format(ms) : std::string("—"); };
        std::vector<std::string> line = {sizeLabel(r.size, r.npot)};
        if (blocks) line.push_back(r.blockSize ? std::to_string(*r.blockSize) : "—");
        line.insert(line.end(), {r.backend, e.traced() ? std::to_string(e.kernels) : "—", figure(e.kernelMs),
                                 figure(e.betweenMs), figure(e.callMs), e.verdict});
        table.rows.push_back(std::move(line));
    }
    return markdown ? markdownTable(table) : textTable(table);
}

// Text and markdown share the tables; markdown opens with a one-line summary of the
// context, the whole context folded under it, and puts each reason for a failure, a
// skip or a note in a footnote on its cells ("skipped[^1]"), listed under the op's tables.
class TableReporter : public Reporter {
public:
    TableReporter(Output out, bool markdown) : out_(std::move(out)), markdown_(markdown) {}

    void begin(const Context &context) override {
        const std::vector<Field> fields = contextFields(context);
        std::string text = markdown_ ? "## cis565_stream_compaction sweep\n\n" + summaryLine(fields) +
                                           "\n\n<details><summary>Context</summary>\n\n"
                                     : "cis565_stream_compaction sweep\n";
        for (const Field &field : fields) {
            const std::string value = plainText(field.value);
            if (value.empty()) continue;
            const bool code = markdown_ && field.key == "command_line";
            text += markdown_ ? fmt::format("- {}: {}\n", field.label, code ? markdownCode(value) : oneLine(value))
                              : fmt::format("  {}: {}\n", field.label, value);
        }
        out_.write(text + (markdown_ ? "\n</details>\n\n" : "\n"));
    }
    void add(const Row &row) override { rows_.push_back(row); }
    void endOp() override {
        if (rows_.empty()) return;
        const char *op = opName(rows_.front().op);
        const std::vector<std::string> footnotes = numberNotes();
        std::string text = markdown_ ? fmt::format("### {}\n\n", op) : "";
        text += timeTable(op);
        text += render({fmt::format("{}: effective bandwidth, GB/s (% of measured copy bandwidth)", op), {}, {}, {}},
                       [this](const Row *row) { return std::vector<std::string>{bandwidthCell(row)}; });
        const bool ratios =
            std::any_of(rows_.begin(), rows_.end(), [](const Row &r) { return r.speedupVsCpu || r.speedupVsCub; });
        if (ratios) {
            text += render({fmt::format("{}: speed-up (over cpu, over cub)", op), {}, {}, {}},
                           [this](const Row *row) { return std::vector<std::string>{speedupCell(row)}; }, {}, "cpu");
        }
        if (std::any_of(rows_.begin(), rows_.end(), [](const Row &r) { return r.explanation.has_value(); })) {
            text += explainTable(rows_, op, markdown_);
        }
        if (markdown_) {
            for (std::size_t n = 0; n < footnotes.size(); ++n)
                text += fmt::format("[^{}]: {}\n", firstFootnote_ + n, footnotes[n]);
            if (!footnotes.empty()) text += "\n";
            firstFootnote_ += footnotes.size();
        } else {
            text += notes();
        }
        rows_.clear();
        marks_.clear();
        out_.write(text);
    }
    void stop(const std::string &why) override { stoppedBy_ = why; }
    // An interrupted report says so under its last table.
    void end() override {
        if (!stoppedBy_) return;
        const std::string line = fmt::format("Incomplete: {}; the tables hold the cells finished before it.", *stoppedBy_);
        out_.write((markdown_ ? "**" + line + "**" : line) + "\n");
    }

private:
    using Cells = std::function<std::vector<std::string>(const Row *)>;

    // "GPU: NVIDIA H200 · mode: hot · commit: abc1234 · date: 2025-01-31T12:00:00Z".
    static std::string summaryLine(const std::vector<Field> &fields) {
        std::vector<std::string> parts;
        for (const auto &[key, label] : {std::pair{"gpu", "GPU"}, {"mode", "mode"}, {"git_revision", "commit"},
                                         {"date", "date"}}) {
            for (const Field &field : fields) {
                const std::string value = plainText(field.value);
                if (field.key == key && !value.empty()) parts.push_back(fmt::format("{}: {}", label, oneLine(value)));
            }
        }
        return fmt::format("{}", fmt::join(parts, " · "));
    }

    // The footnotes of this op, each reason once, and each row's reference to its own.
    std::vector<std::string> numberNotes() {
        std::vector<std::string> footnotes;
        marks_.assign(rows_.size(), "");
        if (!markdown_) return footnotes;
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            const Row &r = rows_[i];
            if (r.status == Row::Status::Passed && r.note.empty()) continue;
            const std::string text = oneLine(
                r.status == Row::Status::Skipped
                    ? r.note
                    : fmt::format("{} {}, size {}{}: {}", r.backend, opName(r.op), sizeLabel(r.size, r.npot),
                                  r.blockSize ? fmt::format(", block {}", *r.blockSize) : "", r.note));
            auto at = std::find(footnotes.begin(), footnotes.end(), text);
            if (at == footnotes.end()) at = footnotes.insert(footnotes.end(), text);
            marks_[i] = fmt::format("[^{}]", firstFootnote_ + static_cast<std::size_t>(at - footnotes.begin()));
        }
        return footnotes;
    }

    // The footnote reference of `row`'s reason, or "".
    std::string mark(const Row *row) const { return row ? marks_[static_cast<std::size_t>(row - rows_.data())] : ""; }

    std::string statusWithMark(const Row *row) const {
        const std::string cell = statusCell(row);
        return row && row->status != Row::Status::Passed ? cell + mark(row) : cell;
    }

    // Median and the 10th to 90th percentile, a spread one outlier does not move, in the
    // unit the table's largest median calls for: one cell in markdown ("2.50 (2.00–3.00)"),
    // two columns in text, so that the medians line up.
    std::string timeTable(const char *op) const {
        double largest = 0;
        for (const Row &r : rows_)
            if (r.status == Row::Status::Passed) largest = std::max(largest, r.timing.medianMs);
        const TimeUnit unit = timeUnitFor(largest);
        const auto spread = [unit](const Timing &t) { return fmt::format("{}–{}", unit.format(t.p10Ms), unit.format(t.p90Ms)); };
        Table table{fmt::format("{}: median time, {} (10th–90th percentile)", op, unit.name), {}, {}, {}};
        if (markdown_) {
            return render(std::move(table), [this, unit, spread](const Row *row) {
                if (!row || row->status != Row::Status::Passed) return std::vector<std::string>{statusWithMark(row)};
                return std::vector<std::string>{
                    fmt::format("{} ({}){}", unit.format(row->timing.medianMs), spread(row->timing), mark(row))};
            });
        }
        return render(std::move(table), [unit, spread](const Row *row) {
            if (!row || row->status != Row::Status::Passed) return std::vector<std::string>{statusCell(row), ""};
            return std::vector<std::string>{unit.format(row->timing.medianMs), spread(row->timing)};
        }, {"p10–p90"});
    }

    std::string bandwidthCell(const Row *row) const {
        if (!row || row->status != Row::Status::Passed || !row->bandwidthGBs) return statusWithMark(row);
        std::string cell = threeDigits(*row->bandwidthGBs);
        if (row->copyFraction) cell += fmt::format(" ({:.0f}%)", 100 * *row->copyFraction);
        return cell;
    }

    std::string speedupCell(const Row *row) const {
        if (!row || row->status != Row::Status::Passed) return statusWithMark(row);
        // A ratio whose 95% interval covers 1 is a tie, and says so.
        const auto ratio = [](double value, const std::optional<Interval> &range, const char *over) {
            return formatRatio(value) + " " + over + (range && range->tie() ? " (tie)" : "");
        };
        std::string cell;
        if (row->speedupVsCpu) cell = ratio(*row->speedupVsCpu, row->speedupVsCpuRange, "cpu");
        if (row->speedupVsCub) cell += (cell.empty() ? "" : ", ") + ratio(*row->speedupVsCub, row->speedupVsCubRange, "cub");
        return cell.empty() ? "—" : cell;
    }

    // Rows: every (size, companion, block size) the GPU back ends ran, or the CPU's.
    std::vector<RowKey> keys() const {
        const bool anyBlock = std::any_of(rows_.begin(), rows_.end(), [](const Row &r) { return r.blockSize; });
        std::vector<RowKey> keys;
        for (const Row &r : rows_) {
            const RowKey key{r.size, r.npot, r.blockSize};
            if (anyBlock == bool(r.blockSize) && std::find(keys.begin(), keys.end(), key) == keys.end()) {
                keys.push_back(key);
            }
        }
        return keys;
    }

    std::vector<std::string> backends(const char *leaveOut) const {
        std::vector<std::string> names;
        for (const Row &r : rows_) {
            if (r.backend != leaveOut && std::find(names.begin(), names.end(), r.backend) == names.end()) {
                names.push_back(r.backend);
            }
        }
        return names;
    }

    // The CPU's row stands for every block size.
    const Row *find(const RowKey &key, const std::string &backend) const {
        for (const Row &r : rows_) {
            if (r.backend == backend && r.size == key.size && r.npot == key.npot &&
                (!r.blockSize || r.blockSize == key.blockSize)) {
                return &r;
            }
        }
        return nullptr;
    }

    // A row per key, a column per back end (headed by its name) and one more per name in
    // `extraHeaders`, each back end's cells coming from `cells`.
    std::string render(Table table, const Cells &cells, const std::vector<std::string> &extraHeaders = {},
                       const char *leaveOut = "") const {
        const std::vector<RowKey> rowKeys = keys();
        const bool blocks = !rowKeys.empty() && rowKeys.front().blockSize;
        const std::vector<std::string> columns = backends(leaveOut);
        table.header = {"size"};
        if (blocks) table.header.push_back("block");
        for (const std::string &backend : columns) {
            table.header.push_back(backend);
            table.header.insert(table.header.end(), extraHeaders.begin(), extraHeaders.end());
        }
        for (const RowKey &key : rowKeys) {
            std::vector<std::string> line = {sizeLabel(key.size, key.npot)};
            if (blocks) line.push_back(std::to_string(*key.blockSize));
            for (const std::string &backend : columns) {
                const std::vector<std::string> more = cells(find(key, backend));
                line.insert(line.end(), more.begin(), more.end());
            }
            table.rows.push_back(std::move(line));
        }
        return markdown_ ? markdownTable(table) : textTable(table);
    }

    // Text: each failure, and each distinct reason for skipping, under the tables.
    std::string notes() const {
        std::vector<std::string> lines;
        for (const Row &r : rows_) {
            if (r.status == Row::Status::Passed && r.note.empty()) continue;
            std::string line =
                r.status == Row::Status::Passed ? fmt::format("{}: {}", r.backend, r.note) :
                r.status == Row::Status::Skipped
                    ? fmt::format("skipped: {}", r.note)
                    : fmt::format("FAIL: {} {}, size {}{}: {}", r.backend, opName(r.op), sizeLabel(r.size, r.npot),
                                  r.blockSize ? fmt::format(", block {}", *r.blockSize) : "", r.note);
            if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
        }
        std::string text;
        for (const std::string &line : lines) text += line + "\n";
        return text.empty() ? "" : text + "\n";
    }

    Output out_;
    bool markdown_;
    std::vector<Row> rows_;
    std::vector<std::string> marks_;  // markdown: each row's footnote reference, or ""
    std::size_t firstFootnote_ = 1;   // footnotes are numbered through the whole report
    std::optional<std::string> stoppedBy_;
};

}  // namespace

std::unique_ptr<Reporter> makeTableReporter(Output out, bool markdown) {
    return std::make_unique<TableReporter>(std::move(out), markdown);
}

}  // namespace Harness
