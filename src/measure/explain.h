#pragma once
// What one traced call (trace.h) says about a figure: how many kernels it ran, where its
// time went (in kernels, in copies, in runtime calls that allocate, copy or wait, and
// between them), how fast its kernels moved the operation's bytes against the copy
// ceiling, and a verdict in plain words (docs/explain.md). Pure CPU work on the trace.

#include <optional>
#include <string>
#include <vector>

#include "measure/trace.h"

namespace Harness {

/** What the derivation takes beside the trace. */
struct ExplainFigures {
    double bytesCounted = 0;  // the operation's bytes, as counted for its GB/s (Operation::trafficBytes)
    double copyGBs = 0;       // the measured copy bandwidth; 0 when not measured
};

/** Runtime calls of one name in the explained span: "2 cudaMalloc, 0.41 ms". */
struct CallCount {
    std::string name;
    CallKind kind = CallKind::Other;
    int count = 0;
    double ms = 0;  // their summed duration on the host
};

/** What bounds a call, the verdict's first word (docs/explain.md, "Verdicts"). */
enum class Bound {
    Unavailable,    // not traced: the verdict says why ("unavailable: no CUDA device")
    HostOnly,       // a CPU back end: no GPU work
    InsideTimer,    // most of the time in allocations, frees and host copies inside the timer
    LaunchBound,    // most of the time between kernels
    HostBound,      // most of the time between GPU work, with no kernel at all
    BandwidthBound, // the kernels move the bytes at >= kBandwidthBound of the copy ceiling
    CopyBound,      // most of the time in memcpy and memset on the device
    KernelBound,    // most of the time in kernels, below the copy ceiling
};

/** The share of the call that makes a verdict "most of the time": more than half. */
constexpr double kMostOfTheCall = 0.5;
/** Kernels at this fraction of the copy ceiling or above are bandwidth-bound. */
constexpr double kBandwidthBound = 0.7;

struct Explanation {
    Bound bound = Bound::Unavailable;
    std::string verdict;  // "launch-bound: 21 kernels, 78% of the call between them", or "unavailable: ..."
    // The span explained: the GPU's work when the stream was held (as the timed calls
    // were), a submission's timer (its first to its last cudaEventRecord), else the call
    // on the host until its last GPU work ended. What the span is, in words:
    std::string span;
    double callMs = 0;
    int kernels = 0;
    int copies = 0;          // memcpy and memset on the GPU
    double kernelMs = 0;     // with a kernel running
    double copyMs = 0;       // with a memcpy or memset running and no kernel
    double transferMs = 0;   // the part of copyMs that copies to or from the host
    double hostCallsMs = 0;  // in runtime calls that allocate, free, copy or wait, with no GPU work
    double betweenMs = 0;    // the rest: launch gaps and host work between GPU work
    double bytesCounted = 0;             // ExplainFigures::bytesCounted
    std::optional<double> copyFraction;  // bytesCounted / kernelMs, over the copy ceiling
    long long bytesCopied = 0;           // by the memcpys
    std::vector<CallCount> calls;        // allocating, freeing, copying, setting and waiting calls in the span
    long long dropped = 0;               // records CUPTI dropped: the trace is incomplete

    bool traced() const { return bound != Bound::Unavailable && bound != Bound::HostOnly; }
};

/** The explanation of a traced call (docs/explain.md). */
Explanation explain(const Trace &trace, const ExplainFigures &figures);

/**
 * The bound a verdict names, from its first words ("launch-bound: ...", "most of the time
 * in ... inside the timer"): for an explanation read back from a report, which keeps the
 * verdict and not the bound.
 */
Bound boundOfVerdict(const std::string &verdict);

/** "3 cudaMalloc, 2 cudaMemcpy and 3 cudaFree": the calls of the kinds `kinds`, in their order. */
std::string callsText(const std::vector<CallCount> &calls, const std::vector<CallKind> &kinds);

}  // namespace Harness
