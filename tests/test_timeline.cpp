// A traced call for people and tools (src/report/timeline.h), on a crafted trace: the
// course run's block, the timeline's lines with their offsets, durations and bars drawn
// to scale, and the Chrome trace-event JSON that Perfetto opens.

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "measure/explain.h"
#include "report/timeline.h"

namespace {

using Harness::Trace;
using Harness::TraceEvent;

// A call: a cudaMalloc of 14 us, a kernel of 10 us on stream 7 from 20 us, a copy of
// 4 MiB back; the call returns at 40 us.
Trace craftedTrace() {
    Trace trace;
    trace.callEndNs = 40000;
    TraceEvent malloc;
    malloc.kind = TraceEvent::Kind::Call;
    malloc.name = "cudaMalloc";
    malloc.call = Harness::CallKind::Allocate;
    malloc.startNs = 0;
    malloc.endNs = 14000;
    TraceEvent kernel;
    kernel.kind = TraceEvent::Kind::Kernel;
    kernel.name = "void StreamCompaction::Naive::kernScanPass<true>(int, long long, int*, int const*)";
    kernel.startNs = 20000;
    kernel.endNs = 30000;
    kernel.stream = 7;
    kernel.grid = {8192, 1, 1};
    kernel.block = {128, 1, 1};
    kernel.registers = 16;
    kernel.sharedBytes = 6144;
    TraceEvent copy;
    copy.kind = TraceEvent::Kind::Memcpy;
    copy.name = "memcpy device to host";
    copy.hostSide = true;
    copy.bytes = 4 << 20;
    copy.startNs = 30000;
    copy.endNs = 40000;
    copy.stream = 7;
    trace.events = {malloc, kernel, copy};
    return trace;
}

std::vector<std::string> lines(const std::string &text) {
    std::vector<std::string> all;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) all.push_back(line);
    return all;
}

TEST(Timeline, CourseBlockUnderATest) {
    const Harness::Explanation e = Harness::explain(craftedTrace(), {8.0 * (1 << 20), 4000});
    const std::vector<std::string> block = Harness::explainLines(e);
    ASSERT_EQ(block.size(), 5u);
    EXPECT_EQ(block[0], "    explain: most of the time in 1 cudaMalloc inside the timer (60% of the call)");
    EXPECT_EQ(block[1], "      traced: 0.04 ms, the call on the host, to the end of its GPU work");
    EXPECT_EQ(block[2], "      kernels 0.01 ms (1), copies 0.01 ms (1), runtime calls 0.014 ms, between 0.006 ms");
    EXPECT_EQ(block[3], "      kernels at 21% of copy (8.00 MiB counted over 0.01 ms)");
    EXPECT_EQ(block[4], "      runtime calls: 1 cudaMalloc 0.014 ms");
}

TEST(Timeline, UntracedCallsAreOneLine) {
    Trace none;
    none.unavailable = "no CUDA device";
    EXPECT_EQ(Harness::explainLines(Harness::explain(none, {})),
              std::vector<std::string>{"    explain: unavailable: no CUDA device"});
    EXPECT_EQ(Harness::timelineText("naive scan, n = 2^20", none, Harness::explain(none, {})),
              "naive scan, n = 2^20\nverdict: unavailable: no CUDA device\n");
}

// Each event's start and duration in us, what it is, and a bar of 40 characters over the
// 40 us of the trace: a character a microsecond.
TEST(Timeline, EventsWithBarsToScale) {
    const Trace trace = craftedTrace();
    const std::vector<std::string> text =
        lines(Harness::timelineText("naive scan, n = 2^20", trace, Harness::explain(trace, {})));
    ASSERT_GE(text.size(), 10u);
    EXPECT_EQ(text[0], "naive scan, n = 2^20");
    EXPECT_EQ(text[1], "verdict: most of the time in 1 cudaMalloc inside the timer (60% of the call)");
    ASSERT_EQ(text.back(), "");  // the table ends with a blank line
    const std::vector<std::string> table(text.end() - 6, text.end() - 1);
    EXPECT_EQ(table[0], "  start, µs      µs  what                   launch                               0 to 40 µs");
    // A call has no launch: its "what" padded to 21 and an empty launch of 35, each after two spaces.
    EXPECT_EQ(table[2], "      0.000  14.000  cudaMalloc" + std::string(11 + 2 + 35 + 2, ' ') + "|" + std::string(14, '=') +
                            std::string(26, ' ') + "|");
    EXPECT_EQ(table[3], "     20.000  10.000  kernScanPass<true>     8192 x 128, 16 regs, 6.0 KiB shared  |" +
                            std::string(20, ' ') + std::string(10, '#') + std::string(10, ' ') + "|");
    EXPECT_EQ(table[4], "     30.000  10.000  memcpy device to host  4.00 MiB" + std::string(29, ' ') + "|" +
                            std::string(30, ' ') + std::string(10, '#') + "|");
}

TEST(Timeline, ManyEventsAreCounted) {
    Trace trace = craftedTrace();
    const std::string text = Harness::timelineText("t", trace, Harness::explain(trace, {}), 40, 2);
    EXPECT_NE(text.find("... and 1 more\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("memcpy device to host"), std::string::npos) << text;
}

// Perfetto's format: metadata naming the process and threads, then complete events in µs.
TEST(Timeline, ChromeTraceEvents) {
    const Trace trace = craftedTrace();
    Trace none;
    none.unavailable = "no CUDA device";
    const std::string text = Harness::chromeTrace({{"student-naive scan, n = 2^20", trace, Harness::explain(trace, {})},
                                                   {"cub scan, n = 2^20", none, Harness::explain(none, {})}});
    const nlohmann::json document = nlohmann::json::parse(text);
    const nlohmann::json &events = document.at("traceEvents");
    std::vector<nlohmann::json> complete, meta;
    for (const nlohmann::json &event : events) (event.at("ph") == "X" ? complete : meta).push_back(event);
    ASSERT_EQ(meta.size(), 3u);  // the process, its runtime calls, its one GPU stream: the untraced call left out
    EXPECT_EQ(meta[0].at("args").at("name"), "student-naive scan, n = 2^20");
    EXPECT_EQ(meta[1].at("args").at("name"), "CUDA runtime calls");
    EXPECT_EQ(meta[2].at("args").at("name"), "GPU stream 7");
    EXPECT_EQ(meta[2].at("tid"), 8);
    ASSERT_EQ(complete.size(), 4u);  // the call, then its three events
    EXPECT_EQ(complete[0].at("name"), "student-naive scan, n = 2^20");
    EXPECT_EQ(complete[0].at("dur"), 40.0);
    EXPECT_EQ(complete[2].at("name"), "kernScanPass<true>");
    EXPECT_EQ(complete[2].at("cat"), "kernel");
    EXPECT_EQ(complete[2].at("ts"), 20.0);
    EXPECT_EQ(complete[2].at("dur"), 10.0);
    EXPECT_EQ(complete[2].at("tid"), 8);
    EXPECT_EQ(complete[2].at("args").at("grid"), nlohmann::json::array({8192, 1, 1}));
    EXPECT_EQ(complete[2].at("args").at("registers"), 16);
    EXPECT_EQ(complete[3].at("cat"), "copy");
    EXPECT_EQ(complete[3].at("args").at("bytes"), 4 << 20);
    EXPECT_EQ(complete[1].at("cat"), "runtime");
    EXPECT_EQ(complete[1].at("tid"), 0);
    for (const nlohmann::json &event : complete) EXPECT_EQ(event.at("pid"), 1);
}

TEST(Timeline, BytesText) {
    EXPECT_EQ(Harness::bytesText(512), "512 B");
    EXPECT_EQ(Harness::bytesText(6144), "6.0 KiB");
    EXPECT_EQ(Harness::bytesText(4 << 20), "4.00 MiB");
    EXPECT_EQ(Harness::bytesText(3.0 * (1 << 30)), "3.00 GiB");
}

}  // namespace
