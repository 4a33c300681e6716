#include "report/timeline.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/tables.h"

namespace Harness {

namespace {

std::string msText(double ms) { return fmt::format("{:.3g} ms", ms); }

double microseconds(long long ns) { return double(ns) / 1000; }

// "4096" or "64x2": a launch's dimensions, the unused ones left out.
std::string dimensions(const std::array<int, 3> &d) {
    if (d[2] > 1) return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
    return d[1] > 1 ? fmt::format("{}x{}", d[0], d[1]) : std::to_string(d[0]);
}

// A kernel's grid x block, registers and shared memory; a copy's or memset's bytes.
std::string detailText(const TraceEvent &event) {
    switch (event.kind) {
        case TraceEvent::Kind::Kernel:
            return fmt::format("{} x {}, {} regs{}", dimensions(event.grid), dimensions(event.block), event.registers,
                               event.sharedBytes > 0 ? ", " + bytesText(double(event.sharedBytes)) + " shared" : "");
        case TraceEvent::Kind::Memcpy:
        case TraceEvent::Kind::Memset: return bytesText(double(event.bytes));
        case TraceEvent::Kind::Call: return "";
    }
    return "";
}

std::string whatText(const TraceEvent &event) {
    return event.kind == TraceEvent::Kind::Kernel ? shortKernelName(event.name) : event.name;
}

// The timeline's extent: the call on the host and every event.
std::pair<long long, long long> extent(const Trace &trace) {
    long long first = 0, last = trace.callEndNs;
    for (const TraceEvent &event : trace.events) {
        first = std::min(first, event.startNs);
        last = std::max(last, event.endNs);
    }
    return {first, std::max(last, first + 1)};
}

// The event as a bar of `width` characters over [first, last]: at least one character.
std::string bar(const TraceEvent &event, std::pair<long long, long long> span, int width) {
    const double perChar = double(span.second - span.first) / width;
    const auto cell = [&](long long ns) {
        return std::clamp(static_cast<int>(double(ns - span.first) / perChar), 0, width - 1);
    };
    const int from = cell(event.startNs);
    const int to = std::max(from, cell(event.endNs - 1));
    std::string text(static_cast<std::size_t>(width), ' ');
    std::fill(text.begin() + from, text.begin() + to + 1, event.onGpu() ? '#' : '=');
    return "|" + text + "|";
}

// Where the time went, and what moved it: the lines after the verdict, unindented.
std::vector<std::string> figureLines(const Explanation &e) {
    std::vector<std::string> lines = {
        fmt::format("traced: {}, {}", msText(e.callMs), e.span),
        fmt::format("kernels {} ({}), copies {} ({}), runtime calls {}, between {}", msText(e.kernelMs), e.kernels,
                    msText(e.copyMs), e.copies, msText(e.hostCallsMs), msText(e.betweenMs))};
    if (e.copyFraction) {
        lines.push_back(fmt::format("kernels at {:.0f}% of copy ({} counted over {})", 100 * *e.copyFraction,
                                    bytesText(e.bytesCounted), msText(e.kernelMs)));
    }
    if (!e.calls.empty()) {
        std::string calls;
        for (const CallCount &call : e.calls) {
            calls += fmt::format("{}{} {} {}", calls.empty() ? "" : ", ", call.count, call.name, msText(call.ms));
        }
        lines.push_back("runtime calls: " + calls);
    }
    return lines;
}

}  // namespace

std::string bytesText(double bytes) {
    if (bytes < 1024) return fmt::format("{:.0f} B", bytes);
    if (bytes < 1024.0 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024);
    if (bytes < 1024.0 * 1024 * 1024) return fmt::format("{:.2f} MiB", bytes / (1024.0 * 1024));
    return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
}

std::vector<std::string> explainLines(const Explanation &explanation) {
    std::vector<std::string> lines = {"    explain: " + explanation.verdict};
    if (!explanation.traced()) return lines;
    for (const std::string &line : figureLines(explanation)) lines.push_back("      " + line);
    return lines;
}

std::string timelineText(const std::string &title, const Trace &trace, const Explanation &explanation, int barWidth,
                         std::size_t maxEvents) {
    std::string text = fmt::format("{}\nverdict: {}\n", title, explanation.verdict);
    if (!explanation.traced()) return text;
    for (const std::string &line : figureLines(explanation)) text += line + "\n";
    const auto span = extent(trace);
    const std::string scale = fmt::format("0 to {:.3g} µs", microseconds(span.second));
    Table table{"", {"start, µs", "µs", "what", "launch", scale}, {},
                {Table::Align::Right, Table::Align::Right, Table::Align::Left, Table::Align::Left, Table::Align::Left}};
    for (const TraceEvent &event : trace.events) {
        if (table.rows.size() == maxEvents) break;
        table.rows.push_back({fmt::format("{:.3f}", microseconds(event.startNs)),
                              fmt::format("{:.3f}", microseconds(event.durationNs())), whatText(event),
                              detailText(event), bar(event, span, barWidth)});
    }
    text += textTable(table);  // its empty title: a blank line
    if (trace.events.size() > maxEvents) text += fmt::format("... and {} more\n", trace.events.size() - maxEvents);
    return text;
}

std::string chromeTrace(const std::vector<NamedTrace> &calls) {
    using nlohmann::json;
    json events = json::array();
    int pid = 0;
    for (const NamedTrace &call : calls) {
        if (!call.explanation.traced()) continue;
        ++pid;
        const auto meta = [&](const char *what, int tid, const std::string &name) {
            events.push_back({{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
        };
        meta("process_name", 0, call.title);
        meta("thread_name", 0, "CUDA runtime calls");
        std::set<std::uint32_t> streams;
        for (const TraceEvent &event : call.trace.events)
            if (event.onGpu()) streams.insert(event.stream);
        for (std::uint32_t stream : streams) {
            meta("thread_name", 1 + static_cast<int>(stream), fmt::format("GPU stream {}", stream));
        }
        events.push_back({{"name", call.title}, {"cat", "call"}, {"ph", "X"}, {"pid", pid}, {"tid", 0}, {"ts", 0.0},
                          {"dur", microseconds(call.trace.callEndNs)},
                          {"args", {{"verdict", call.explanation.verdict}}}});
        for (const TraceEvent &event : call.trace.events) {
            json args = {{"name", event.name}};
            if (event.kind == TraceEvent::Kind::Kernel) {
                args.update({{"grid", event.grid}, {"block", event.block}, {"registers", event.registers},
                             {"shared_bytes", event.sharedBytes}});
            } else if (event.onGpu()) {
                args["bytes"] = event.bytes;
            }
            const char *category = event.kind == TraceEvent::Kind::Kernel ? "kernel"
                                   : event.onGpu()                        ? "copy"
                                                                          : "runtime";
            events.push_back({{"name", whatText(event)}, {"cat", category}, {"ph", "X"}, {"pid", pid},
                              {"tid", event.onGpu() ? 1 + static_cast<int>(event.stream) : 0},
                              {"ts", microseconds(event.startNs)}, {"dur", microseconds(event.durationNs())},
                              {"args", args}});
        }
    }
    const json document = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
    return document.dump(1) + "\n";
}

}  // namespace Harness
