// What a traced call says (src/measure/trace.h, explain.h), on crafted traces: the call's
// part of what CUPTI recorded, the span a figure measures, where its time went, and the
// verdict's rules at and around their thresholds.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "measure/explain.h"
#include "measure/trace.h"

namespace {

using Harness::Bound;
using Harness::CallKind;
using Harness::Explanation;
using Harness::ExplainFigures;
using Harness::Trace;
using Harness::TraceEvent;

TraceEvent kernel(long long startNs, long long endNs, const std::string &name = "void k<int>(int*)") {
    TraceEvent event;
    event.kind = TraceEvent::Kind::Kernel;
    event.name = name;
    event.startNs = startNs;
    event.endNs = endNs;
    event.launchNs = startNs;  // enqueued as it starts, unless a test says otherwise
    event.grid = {4096, 1, 1};
    event.block = {256, 1, 1};
    event.registers = 32;
    return event;
}

TraceEvent copy(long long startNs, long long endNs, bool hostSide, long long bytes) {
    TraceEvent event = kernel(startNs, endNs);
    event.kind = TraceEvent::Kind::Memcpy;
    event.name = hostSide ? "memcpy host to device" : "memcpy device to device";
    event.hostSide = hostSide;
    event.bytes = bytes;
    return event;
}

TraceEvent call(const std::string &name, long long startNs, long long endNs) {
    TraceEvent event;
    event.kind = TraceEvent::Kind::Call;
    event.name = name;
    event.call = Harness::callKind(name);
    event.startNs = startNs;
    event.endNs = endNs;
    return event;
}

// `count` kernels of `lengthNs` each, `gapNs` apart, from `startNs`.
std::vector<TraceEvent> kernelChain(int count, long long startNs, long long lengthNs, long long gapNs) {
    std::vector<TraceEvent> events;
    for (int i = 0; i < count; ++i) {
        const long long start = startNs + i * (lengthNs + gapNs);
        events.push_back(kernel(start, start + lengthNs));
    }
    return events;
}

Trace heldTrace(std::vector<TraceEvent> events, long long callEndNs) {
    Trace trace;
    trace.held = true;
    trace.callEndNs = callEndNs;
    trace.events = std::move(events);
    return trace;
}

TEST(TraceCalls, NamesAndKindsOfRuntimeCalls) {
    EXPECT_EQ(Harness::callName("cudaMalloc_v3020"), "cudaMalloc");
    EXPECT_EQ(Harness::callName("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync_ptsz");
    EXPECT_EQ(Harness::callName("cudaLaunchKernel"), "cudaLaunchKernel");
    EXPECT_EQ(Harness::callName("cuda_vx"), "cuda_vx");  // not a version suffix
    const std::vector<std::pair<const char *, CallKind>> kinds = {
        {"cudaMalloc_v3020", CallKind::Allocate},     {"cudaMallocAsync_v11020", CallKind::Allocate},
        {"cudaMallocHost", CallKind::Allocate},       {"cudaHostAlloc", CallKind::Allocate},
        {"cudaFree_v3020", CallKind::Free},           {"cudaFreeAsync", CallKind::Free},
        {"cudaMemcpy_v3020", CallKind::Copy},         {"cudaMemcpyAsync", CallKind::Copy},
        {"cudaMemcpyToSymbol", CallKind::Copy},       {"cudaMemset", CallKind::Set},
        {"cudaMemsetAsync", CallKind::Set},           {"cudaDeviceSynchronize_v3020", CallKind::Wait},
        {"cudaStreamSynchronize", CallKind::Wait},    {"cudaEventSynchronize", CallKind::Wait},
        {"cudaEventRecord", CallKind::EventRecord},   {"cudaEventRecordWithFlags", CallKind::EventRecord},
        {"cudaLaunchKernel_v7000", CallKind::Other},  {"cudaGetDevice", CallKind::Other},
        {"cuMemAlloc_v2", CallKind::Other}};
    for (const auto &[name, kind] : kinds) EXPECT_EQ(Harness::callKind(name), kind) << name;
}

TEST(TraceCalls, ShortKernelNames) {
    EXPECT_EQ(Harness::shortKernelName(
                  "void StreamCompaction::Naive::(anonymous namespace)::kernScanPass<true>(int, long long, int*, int const*)"),
              "kernScanPass<true>");
    EXPECT_EQ(Harness::shortKernelName("void cub::_V_300000_SM_900::detail::scan::DeviceScanKernel<cub::detail::scan::"
                                       "policy_hub<int, int, int, int, cuda::std::plus<void>>::Policy900, int const*, "
                                       "int*>(int const*, int*, int)"),
              "DeviceScanKernel<…>");
    EXPECT_EQ(Harness::shortKernelName("StreamCompaction::Common::kernMapToBoolean(int, int*, int const*, "
                                       "StreamCompaction::Predicate)"),
              "kernMapToBoolean");
    EXPECT_EQ(Harness::shortKernelName("kernScan"), "kernScan");  // extern "C": not mangled
}

// The call's part of what was recorded: the calls made between begin and end, and the
// GPU work they launched, not the flush and the stream's hold enqueued before.
TEST(TraceCalls, TheCallsPartOfTheRecords) {
    const auto record = [](TraceEvent event, std::uint32_t correlation) {
        return Harness::TracedRecord{std::move(event), correlation};
    };
    const std::vector<Harness::TracedRecord> records = {
        record(call("cudaMemsetAsync_v3020", 900, 910), 1),     // the flush, before the call
        record(call("cudaLaunchKernel_v7000", 920, 930), 2),    // the hold, before the call
        record(kernel(940, 5000, "holdStream"), 2),
        record(call("cudaLaunchKernel_v7000", 1100, 1110), 3),  // the call's launch: Other, not listed
        record(kernel(5100, 6100, "work"), 3),
        record(call("cudaMalloc_v3020", 1200, 1300), 4),
        record(call("cuLaunchKernel", 1400, 1410), 5),          // a driver call: matching only
        record(kernel(6200, 6300, "driverWork"), 5),
        record(copy(950, 990, false, 64), 1),                   // the flush's memset work
        record(call("cudaFree_v3020", 3000, 3100), 6),          // after end
    };
    const Trace trace = Harness::traceOfCall(records, 1000, 2000);
    EXPECT_EQ(trace.callEndNs, 1000);
    ASSERT_EQ(trace.events.size(), 3u);
    EXPECT_EQ(trace.events[0].name, "cudaMalloc_v3020");
    EXPECT_EQ(trace.events[0].startNs, 200);
    EXPECT_EQ(trace.events[1].name, "work");
    EXPECT_EQ(trace.events[1].startNs, 4100);
    EXPECT_EQ(trace.events[1].launchNs, 100);  // its cudaLaunchKernel's start
    EXPECT_EQ(trace.events[1].endNs, 5100);
    EXPECT_EQ(trace.events[2].name, "driverWork");
}

TEST(ExplainVerdict, LaunchBound) {
    // 21 kernels of 1 us, 3.723 us apart: 74.46 of 95.46 us between them.
    const Explanation e = Harness::explain(heldTrace(kernelChain(21, 10000, 1000, 3723), 5000), {});
    EXPECT_EQ(e.bound, Bound::LaunchBound);
    EXPECT_EQ(e.verdict, "launch-bound: 21 kernels, 78% of the call between them");
    EXPECT_EQ(e.kernels, 21);
    EXPECT_DOUBLE_EQ(e.callMs, 0.09546);  // the GPU's span: the host's 5 us before it left out
    EXPECT_DOUBLE_EQ(e.kernelMs, 0.021);
    EXPECT_DOUBLE_EQ(e.betweenMs, 0.07446);
    EXPECT_FALSE(e.copyFraction);  // no copy ceiling
}

TEST(ExplainVerdict, BandwidthBound) {
    // 3.76e9 bytes in 1 ms: 3760 GB/s, 94% of a 4000 GB/s copy.
    const ExplainFigures figures{3.76e9, 4000};
    const Explanation e = Harness::explain(heldTrace({kernel(0, 1000000)}, 100), figures);
    EXPECT_EQ(e.bound, Bound::BandwidthBound);
    EXPECT_EQ(e.verdict, "bandwidth-bound: 1 kernel at 94% of copy");
    ASSERT_TRUE(e.copyFraction);
    EXPECT_NEAR(*e.copyFraction, 0.94, 1e-12);
}

// At exactly kBandwidthBound of copy the kernels are bandwidth-bound; just below, kernel-bound.
TEST(ExplainVerdict, BandwidthThreshold) {
    const Trace trace = heldTrace({kernel(0, 1000000)}, 100);
    EXPECT_EQ(Harness::explain(trace, {0.70 * 4000e6, 4000}).bound, Bound::BandwidthBound);
    const Explanation below = Harness::explain(trace, {0.69 * 4000e6, 4000});
    EXPECT_EQ(below.bound, Bound::KernelBound);
    EXPECT_EQ(below.verdict, "kernel-bound: 1 kernel busy 100% of the call, at 69% of copy");
}

// Half the call between kernels is not most of it; a nanosecond more is.
TEST(ExplainVerdict, LaunchThreshold) {
    EXPECT_EQ(Harness::explain(heldTrace({kernel(0, 250), kernel(750, 1000)}, 10), {}).bound, Bound::KernelBound);
    EXPECT_EQ(Harness::explain(heldTrace({kernel(0, 250), kernel(751, 1000)}, 10), {}).bound, Bound::LaunchBound);
}

// A course submission's timer around two cudaMallocs and two cudaMemcpys: its window,
// from its first cudaEventRecord to its last, is the call; what it does before or after
// is not in it.
TEST(ExplainVerdict, AllocationsAndCopiesInsideTheTimer) {
    Trace trace;
    trace.ownTimer = true;
    trace.callEndNs = 2000000;
    trace.events = {call("cudaMalloc_v3020", 0, 50000),  // before the timer
                    call("cudaEventRecord", 100000, 101000),
                    call("cudaMalloc_v3020", 101000, 401000),
                    call("cudaMalloc_v3020", 401000, 601000),
                    call("cudaMemcpy_v3020", 601000, 801000),
                    copy(610000, 800000, true, 4 << 20),
                    kernel(810000, 860000),
                    kernel(870000, 920000),
                    call("cudaMemcpy_v3020", 805000, 1101000),  // waits for the kernels, then copies
                    copy(930000, 1100000, true, 4 << 20),
                    call("cudaEventRecord", 1101000, 1102000),
                    call("cudaFree_v3020", 1200000, 1300000)};  // after the timer
    const Explanation e = Harness::explain(trace, {8.0 * (1 << 20), 4000});
    EXPECT_EQ(e.bound, Bound::InsideTimer);
    EXPECT_EQ(e.span, "the implementation's timer, its first to its last cudaEventRecord");
    EXPECT_DOUBLE_EQ(e.callMs, 1.002);
    EXPECT_DOUBLE_EQ(e.kernelMs, 0.1);
    EXPECT_DOUBLE_EQ(e.transferMs, 0.36);
    EXPECT_DOUBLE_EQ(e.copyMs, 0.36);
    // The mallocs, and the copy calls' time outside the copies and the kernels: 0.5 + 0.01
    // + 0.026 ms; between them, the timer's own calls and 4 us between the two copy calls.
    EXPECT_DOUBLE_EQ(e.hostCallsMs, 0.536);
    EXPECT_DOUBLE_EQ(e.betweenMs, 0.006);
    EXPECT_EQ(e.verdict, "most of the time in 2 cudaMalloc and 2 cudaMemcpy inside the timer (89% of the call)");
    ASSERT_EQ(e.calls.size(), 2u);
    EXPECT_EQ(e.calls[0].name, "cudaMalloc");
    EXPECT_EQ(e.calls[0].count, 2);
    EXPECT_DOUBLE_EQ(e.calls[0].ms, 0.5);
    EXPECT_EQ(e.calls[1].name, "cudaMemcpy");
    EXPECT_EQ(e.bytesCopied, 8 << 20);
    EXPECT_EQ(e.kernels, 2);
}

// A timer's events complete on the GPU once the work enqueued before them has: a kernel
// enqueued before the stop event and ending after it is in the timer, a copy enqueued after
// it is not, and work enqueued before the start event delays the start.
TEST(ExplainVerdict, ATimerStopsWhenItsWorkEnds) {
    Trace trace;
    trace.ownTimer = true;
    trace.callEndNs = 12000;
    TraceEvent before = copy(0, 1500, false, 64);
    before.kind = TraceEvent::Kind::Memset;
    before.launchNs = -100;
    TraceEvent async = kernel(2500, 9000);
    async.launchNs = 1500;
    TraceEvent after = copy(9000, 12000, true, 4096);
    after.launchNs = 3500;
    trace.events = {before, call("cudaEventRecord", 0, 1000), call("cudaEventRecord", 2000, 3000), async, after};
    const Explanation e = Harness::explain(trace, {});
    EXPECT_DOUBLE_EQ(e.callMs, 0.0075);  // 1.5 to 9 us
    EXPECT_DOUBLE_EQ(e.kernelMs, 0.0065);
    EXPECT_DOUBLE_EQ(e.betweenMs, 0.001);
    EXPECT_EQ(e.copies, 0);
    EXPECT_EQ(e.bytesCopied, 0);
    EXPECT_EQ(e.verdict, "kernel-bound: 1 kernel busy 87% of the call");
}

// Without two cudaEventRecords (a CPU timer, or none) a submission's call is its span on the host.
TEST(ExplainVerdict, ATimerWithoutEventsIsTheCallOnTheHost) {
    Trace trace;
    trace.ownTimer = true;
    trace.callEndNs = 1000;
    trace.events = {call("cudaEventRecord", 0, 10), kernel(100, 1400)};
    const Explanation e = Harness::explain(trace, {});
    EXPECT_EQ(e.span, "the call on the host, to the end of its GPU work");
    EXPECT_DOUBLE_EQ(e.callMs, 0.0014);
}

// Not held and not a submission's timer: from the call's start to its last GPU work.
TEST(ExplainVerdict, AnUnheldCallStartsOnTheHost) {
    Trace trace;
    trace.callEndNs = 3000;
    trace.events = {kernel(2000, 2500), call("cudaStreamSynchronize", 2600, 9000), kernel(2600, 9000)};
    const Explanation e = Harness::explain(trace, {});
    EXPECT_DOUBLE_EQ(e.callMs, 0.009);
    EXPECT_DOUBLE_EQ(e.kernelMs, 0.0069);
    EXPECT_DOUBLE_EQ(e.hostCallsMs, 0);  // the wait overlaps the kernel
    EXPECT_EQ(e.bound, Bound::KernelBound);
    EXPECT_EQ(e.verdict, "kernel-bound: 2 kernels busy 77% of the call");
}

TEST(ExplainVerdict, CopyBound) {
    Trace trace = heldTrace({copy(0, 9000, false, 1 << 20), kernel(9000, 10000)}, 10);
    trace.events.push_back(copy(10000, 10100, false, 4));
    trace.events.back().kind = TraceEvent::Kind::Memset;
    const Explanation e = Harness::explain(trace, {});
    EXPECT_EQ(e.bound, Bound::CopyBound);
    EXPECT_EQ(e.verdict, "copy-bound: 2 memcpys and memsets, 90% of the call");
    EXPECT_EQ(e.copies, 2);
}

TEST(ExplainVerdict, NoGpuWork) {
    Trace trace;
    trace.callEndNs = 1000;
    const Explanation e = Harness::explain(trace, {});
    EXPECT_EQ(e.bound, Bound::HostBound);
    EXPECT_EQ(e.verdict, "no GPU work: the call ran no kernel, copy or allocation");
}

TEST(ExplainVerdict, HostOnlyAndUnavailable) {
    Trace host;
    host.hostOnly = true;
    const Explanation cpu = Harness::explain(host, {});
    EXPECT_EQ(cpu.bound, Bound::HostOnly);
    EXPECT_FALSE(cpu.traced());
    EXPECT_EQ(cpu.verdict, "host only: a CPU back end launches no GPU work (not traced)");
    Trace none;
    none.unavailable = "another tool holds CUPTI (Nsight Systems, Nsight Compute, cuda-gdb or compute-sanitizer)";
    const Explanation e = Harness::explain(none, {});
    EXPECT_EQ(e.bound, Bound::Unavailable);
    EXPECT_FALSE(e.traced());
    EXPECT_EQ(e.verdict, "unavailable: " + none.unavailable);
}

TEST(ExplainVerdict, DroppedRecordsAreSaid) {
    Trace trace = heldTrace(kernelChain(2, 0, 1000, 10), 10);
    trace.dropped = 7;
    EXPECT_EQ(Harness::explain(trace, {}).verdict, "kernel-bound: 2 kernels busy 100% of the call (incomplete: CUPTI "
                                                   "dropped 7 records)");
}

TEST(ExplainVerdict, CallsText) {
    const std::vector<Harness::CallCount> calls = {{"cudaMalloc", CallKind::Allocate, 3, 0.1},
                                                   {"cudaFree", CallKind::Free, 3, 0.1},
                                                   {"cudaMemcpy", CallKind::Copy, 1, 0.1}};
    EXPECT_EQ(Harness::callsText(calls, {CallKind::Allocate, CallKind::Copy, CallKind::Free}),
              "3 cudaMalloc, 1 cudaMemcpy and 3 cudaFree");
    EXPECT_EQ(Harness::callsText(calls, {CallKind::Free}), "3 cudaFree");
    EXPECT_EQ(Harness::callsText(calls, {CallKind::Wait}), "");
}

}  // namespace
