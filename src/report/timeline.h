#pragma once
// A traced call (--explain) for people and for tools: the course run's block under a
// test, one call's timeline as text with a bar drawn to scale per event, and the Chrome
// trace-event JSON that Perfetto (ui.perfetto.dev) and chrome://tracing open.

#include <string>
#include <utility>
#include <vector>

#include "measure/explain.h"
#include "measure/trace.h"

namespace Harness {

/**
 * The course run's lines under a test, each indented by four spaces: "explain:" and the
 * verdict; for a traced call also where its time went, how fast its kernels moved the
 * bytes against the copy ceiling, and its allocating, copying and waiting calls.
 */
std::vector<std::string> explainLines(const Explanation &explanation);

/**
 * One call's timeline: `title`, the verdict and where the time went, then a line per
 * event in order of start with its start (µs from the call's start), its duration, what
 * it is (a kernel's short name with grid x block, registers and shared memory; a copy's
 * direction and bytes; a runtime call) and a bar of `barWidth` characters drawn to scale
 * over the whole trace ('#' GPU work, '=' a runtime call). At most `maxEvents` events
 * are listed, the rest counted.
 */
std::string timelineText(const std::string &title, const Trace &trace, const Explanation &explanation,
                         int barWidth = 40, std::size_t maxEvents = 200);

/** A traced call and its name ("thrust scan, n = 2^20"), for chromeTrace. */
struct NamedTrace {
    std::string title;
    Trace trace;
    Explanation explanation;
};

/**
 * The traces in the Chrome trace-event format (a JSON object with "traceEvents"): one
 * process per traced call named by its title, a thread for each GPU stream it used and
 * one for its runtime calls, the call itself as a span on the latter; every event a
 * complete event ("ph": "X") with its start and duration in µs and its details in
 * "args". Untraced calls are left out.
 */
std::string chromeTrace(const std::vector<NamedTrace> &calls);

/** "512 B", "6.0 KiB", "4.00 MiB", "1.00 GiB". */
std::string bytesText(double bytes);

}  // namespace Harness
