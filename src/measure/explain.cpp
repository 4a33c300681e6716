#include "measure/explain.h"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

namespace Harness {

namespace {

constexpr double kNsPerMs = 1e6;

// The part of the trace the figure measures (Explanation::span).
struct Span {
    long long startNs = 0;
    long long endNs = 0;
    std::string what;
};

Span spanOf(const Trace &trace) {
    long long gpuStart = std::numeric_limits<long long>::max(), gpuEnd = std::numeric_limits<long long>::min();
    std::vector<const TraceEvent *> records;  // the timer's cudaEventRecord calls
    for (const TraceEvent &event : trace.events) {
        if (event.onGpu()) {
            gpuStart = std::min(gpuStart, event.startNs);
            gpuEnd = std::max(gpuEnd, event.endNs);
        } else if (event.call == CallKind::EventRecord) {
            records.push_back(&event);
        }
    }
    const bool gpuWork = gpuStart <= gpuEnd;
    if (trace.held && gpuWork) {
        return {gpuStart, gpuEnd, "the GPU's work, the stream held as in the timed calls"};
    }
    if (trace.ownTimer && records.size() >= 2) {
        // Each event completes on the GPU once the work enqueued before it has: the
        // timer starts and stops no earlier than that work ends.
        Span timer{records.front()->startNs, records.back()->endNs,
                   "the implementation's timer, its first to its last cudaEventRecord"};
        for (const TraceEvent &event : trace.events) {
            if (!event.onGpu()) continue;
            if (event.launchNs < records.front()->startNs) timer.startNs = std::max(timer.startNs, event.endNs);
            if (event.launchNs < records.back()->startNs) timer.endNs = std::max(timer.endNs, event.endNs);
        }
        return timer;
    }
    return {0, std::max(trace.callEndNs, gpuWork ? gpuEnd : 0), "the call on the host, to the end of its GPU work"};
}

// Where the span's time went, each moment counted once, in the first of these layers
// that covers it; a moment none covers is between GPU work.
enum Layer { kKernel, kDeviceCopy, kTransfer, kHostCall, kBetween, kLayers };

int layerOf(const TraceEvent &event) {
    switch (event.kind) {
        case TraceEvent::Kind::Kernel: return kKernel;
        case TraceEvent::Kind::Memcpy: return event.hostSide ? kTransfer : kDeviceCopy;
        case TraceEvent::Kind::Memset: return kDeviceCopy;
        case TraceEvent::Kind::Call:
            return event.call == CallKind::EventRecord || event.call == CallKind::Other ? -1 : kHostCall;
    }
    return -1;
}

std::array<long long, kLayers> layerTimes(const Trace &trace, const Span &span) {
    struct Edge {
        long long at;
        int layer;
        int delta;
    };
    std::vector<Edge> edges;
    for (const TraceEvent &event : trace.events) {
        const int layer = layerOf(event);
        const long long start = std::max(event.startNs, span.startNs), end = std::min(event.endNs, span.endNs);
        if (layer < 0 || start >= end) continue;
        edges.push_back({start, layer, +1});
        edges.push_back({end, layer, -1});
    }
    edges.push_back({span.startNs, kBetween, 0});
    edges.push_back({span.endNs, kBetween, 0});
    std::sort(edges.begin(), edges.end(), [](const Edge &a, const Edge &b) { return a.at < b.at; });
    std::array<long long, kLayers> times{};
    std::array<int, kLayers> open{};
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        open[static_cast<std::size_t>(edges[i].layer)] += edges[i].delta;
        const auto top = std::find_if(open.begin(), open.begin() + kBetween, [](int count) { return count > 0; });
        times[static_cast<std::size_t>(top - open.begin())] += edges[i + 1].at - edges[i].at;
    }
    return times;
}

// The counts and sums of the events that overlap the span.
void countEvents(const Trace &trace, const Span &span, Explanation &e) {
    for (const TraceEvent &event : trace.events) {
        const bool overlaps = event.endNs > span.startNs && event.startNs < span.endNs;
        if (!overlaps) continue;
        if (event.kind == TraceEvent::Kind::Kernel) ++e.kernels;
        if (event.kind == TraceEvent::Kind::Memcpy || event.kind == TraceEvent::Kind::Memset) ++e.copies;
        if (event.kind == TraceEvent::Kind::Memcpy) e.bytesCopied += event.bytes;
        if (event.kind != TraceEvent::Kind::Call || layerOf(event) != kHostCall) continue;
        const std::string name = callName(event.name);
        auto found = std::find_if(e.calls.begin(), e.calls.end(), [&](const CallCount &c) { return c.name == name; });
        if (found == e.calls.end()) found = e.calls.insert(e.calls.end(), CallCount{name, event.call});
        ++found->count;
        found->ms += double(event.durationNs()) / kNsPerMs;
    }
}

std::string plural(int count, const char *one, const char *many) {
    return fmt::format("{} {}", count, count == 1 ? one : many);
}

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * share); }

// The verdict's rules, in order (docs/explain.md, "Verdicts").
void judge(Explanation &e) {
    const double call = e.callMs > 0 ? e.callMs : 1;
    const std::string kernels = plural(e.kernels, "kernel", "kernels");
    if (e.kernels == 0 && e.copies == 0 && e.calls.empty()) {
        e.bound = Bound::HostBound;
        e.verdict = "no GPU work: the call ran no kernel, copy or allocation";
    } else if ((e.transferMs + e.hostCallsMs) / call > kMostOfTheCall) {
        e.bound = Bound::InsideTimer;
        e.verdict = fmt::format("most of the time in {} inside the timer ({} of the call)",
                                callsText(e.calls, {CallKind::Allocate, CallKind::Copy, CallKind::Set,
                                                    CallKind::Free, CallKind::Wait}),
                                percent((e.transferMs + e.hostCallsMs) / call));
    } else if (e.betweenMs / call > kMostOfTheCall) {
        e.bound = e.kernels > 0 ? Bound::LaunchBound : Bound::HostBound;
        e.verdict = e.kernels > 0 ? fmt::format("launch-bound: {}, {} of the call between them", kernels,
                                                percent(e.betweenMs / call))
                                  : fmt::format("host-bound: {} of the call between its GPU work",
                                                percent(e.betweenMs / call));
    } else if (e.kernels > 0 && e.copyFraction && *e.copyFraction >= kBandwidthBound) {
        e.bound = Bound::BandwidthBound;
        e.verdict = fmt::format("bandwidth-bound: {} at {} of copy", kernels, percent(*e.copyFraction));
    } else if (e.copyMs / call > kMostOfTheCall || (e.kernels == 0 && e.copies > 0)) {
        e.bound = Bound::CopyBound;
        e.verdict = fmt::format("copy-bound: {}, {} of the call",
                                plural(e.copies, "memcpy or memset", "memcpys and memsets"), percent(e.copyMs / call));
    } else if (e.kernels == 0) {
        e.bound = Bound::HostBound;
        e.verdict =
            fmt::format("host-bound: {} of the call in host work", percent((e.hostCallsMs + e.betweenMs) / call));
    } else {
        e.bound = Bound::KernelBound;
        e.verdict = fmt::format("kernel-bound: {} busy {} of the call{}", kernels, percent(e.kernelMs / call),
                                e.copyFraction ? ", at " + percent(*e.copyFraction) + " of copy" : "");
    }
    if (e.dropped > 0) e.verdict += fmt::format(" (incomplete: CUPTI dropped {} records)", e.dropped);
}

}  // namespace

Bound boundOfVerdict(const std::string &verdict) {
    // judge()'s verdicts by their first words (an untraced call's "unavailable: ..." and
    // "host only: ..." included).
    static const std::pair<const char *, Bound> kWords[] = {
        {"unavailable: ", Bound::Unavailable},     {"host only: ", Bound::HostOnly},
        {"no GPU work: ", Bound::HostBound},       {"most of the time in ", Bound::InsideTimer},
        {"launch-bound: ", Bound::LaunchBound},    {"host-bound: ", Bound::HostBound},
        {"bandwidth-bound: ", Bound::BandwidthBound}, {"copy-bound: ", Bound::CopyBound},
        {"kernel-bound: ", Bound::KernelBound}};
    for (const auto &[words, bound] : kWords) {
        if (verdict.rfind(words, 0) == 0) return bound;
    }
    return Bound::Unavailable;
}

std::string callsText(const std::vector<CallCount> &calls, const std::vector<CallKind> &kinds) {
    std::vector<std::string> parts;
    for (CallKind kind : kinds) {
        for (const CallCount &call : calls) {
            if (call.kind == kind) parts.push_back(fmt::format("{} {}", call.count, call.name));
        }
    }
    std::string text;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    }
    return text;
}

Explanation explain(const Trace &trace, const ExplainFigures &figures) {
    Explanation e;
    if (!trace.unavailable.empty()) {
        e.verdict = "unavailable: " + trace.unavailable;
        return e;
    }
    if (trace.hostOnly) {
        e.bound = Bound::HostOnly;
        e.verdict = "host only: a CPU back end launches no GPU work (not traced)";
        return e;
    }
    const Span span = spanOf(trace);
    e.span = span.what;
    e.callMs = double(span.endNs - span.startNs) / kNsPerMs;
    const std::array<long long, kLayers> times = layerTimes(trace, span);
    e.kernelMs = double(times[kKernel]) / kNsPerMs;
    e.copyMs = double(times[kDeviceCopy] + times[kTransfer]) / kNsPerMs;
    e.transferMs = double(times[kTransfer]) / kNsPerMs;
    e.hostCallsMs = double(times[kHostCall]) / kNsPerMs;
    e.betweenMs = double(times[kBetween]) / kNsPerMs;
    countEvents(trace, span, e);
    e.bytesCounted = figures.bytesCounted;
    if (e.kernelMs > 0 && figures.copyGBs > 0 && figures.bytesCounted > 0) {
        e.copyFraction = figures.bytesCounted / (e.kernelMs * kNsPerMs) / figures.copyGBs;
    }
    e.dropped = trace.dropped;
    judge(e);
    return e;
}

}  // namespace Harness
