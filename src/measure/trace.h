#pragma once
// One traced call (--explain): what it ran on the GPU (kernels, memcpy, memset) and the
// CUDA runtime calls it made that allocate, copy or wait, each with its start and end on
// one clock, in ns from the call's start. The tracer (tracer.h) records it through
// CUPTI; explain.h derives what bounds the call from it; report/timeline.h draws it.
// Nothing here needs CUDA or CUPTI, so that every rule can be tested on crafted traces.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace Harness {

/** What a CUDA runtime call does, as far as explaining a call goes. */
enum class CallKind { Allocate, Free, Copy, Set, Wait, EventRecord, Other };

/**
 * The kind of the runtime call `name` ("cudaMalloc", "cudaMemcpyAsync", CUPTI's
 * "cudaFree_v3020" with its version suffix): cudaMalloc* and cudaHostAlloc allocate;
 * cudaFree* free; cudaMemcpy* copy; cudaMemset* set; cudaDeviceSynchronize,
 * cudaStreamSynchronize, cudaEventSynchronize and cudaThreadSynchronize wait;
 * cudaEventRecord* records an event (a course timer's start and stop); the rest are Other.
 */
CallKind callKind(const std::string &name);

/** A runtime call's name without CUPTI's version suffix: "cudaMalloc_v3020" -> "cudaMalloc". */
std::string callName(const std::string &cuptiName);

/**
 * A demangled kernel name, short enough for a timeline: no return type, parameters or
 * namespaces, and its template arguments only when they are short ("kernScanPass<true>",
 * "DeviceScanKernel<…>").
 */
std::string shortKernelName(const std::string &demangled);

struct TraceEvent {
    enum class Kind { Kernel, Memcpy, Memset, Call };
    Kind kind = Kind::Kernel;
    // A kernel's demangled name; "memcpy host to device" (or device to host, device to
    // device, host to host, peer to peer); "memset"; a runtime call's name ("cudaMalloc").
    std::string name;
    long long startNs = 0;  // from the call's start (Trace)
    long long endNs = 0;
    std::uint32_t stream = 0;  // GPU work: CUPTI's stream id
    // Kernels: the launch's shape, registers per thread and shared memory per block
    // (static and dynamic).
    std::array<int, 3> grid{};
    std::array<int, 3> block{};
    int registers = 0;
    long long sharedBytes = 0;
    long long launchNs = 0;           // GPU work: when the runtime call that enqueued it started
    long long bytes = 0;              // memcpy and memset
    bool hostSide = false;            // memcpy: to or from host memory
    CallKind call = CallKind::Other;  // runtime calls

    long long durationNs() const { return endNs - startNs; }
    bool onGpu() const { return kind != Kind::Call; }
};

struct Trace {
    std::string unavailable;  // why nothing was traced ("no CUDA device"), "" when traced
    bool hostOnly = false;    // a CPU back end: not traced, it launches no GPU work
    // The call on the host: from just before it started (0) to just after it returned.
    long long callEndNs = 0;
    // The GPU work waited for the whole call to be enqueued, the stream held, as the timed
    // calls did: the GPU's span is what the figure measures.
    bool held = false;
    // Timed by the implementation (a course submission's timer): its window, from its
    // first cudaEventRecord to its last, is what the figure measures.
    bool ownTimer = false;
    long long dropped = 0;  // records CUPTI dropped (its buffers full)
    std::vector<TraceEvent> events;  // in order of start
};

/** A record as the tracer collects it: an event on CUPTI's clock, and its correlation id. */
struct TracedRecord {
    TraceEvent event;  // times in CUPTI's ns, not yet from the call's start
    std::uint32_t correlation = 0;
};

/**
 * The call's trace from everything recorded while tracing was on: the runtime and
 * driver calls that started between `beginNs` and `endNs` (CUPTI's clock), and the GPU
 * work that those calls launched (matched by correlation id), so that work enqueued before
 * the call (an L2 flush, the kernel that holds the stream) is left out. Only calls of a
 * kind other than Other are kept as events; GPU work gets its launching call's start
 * (TraceEvent::launchNs). Times become ns from `beginNs`; events are sorted by start.
 */
Trace traceOfCall(const std::vector<TracedRecord> &records, std::uint64_t beginNs, std::uint64_t endNs);

}  // namespace Harness
