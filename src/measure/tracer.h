#pragma once
// The tracer of one call (--explain), through CUPTI's activity API: the kernels, memcpys
// and memsets the call ran on the GPU, and the runtime calls it made (trace.h). CUPTI is
// attached for the one call and detached after it (cuptiFinalize), so that the calls
// timed later run without it.

#include <cstdint>
#include <string>

#include "measure/trace.h"

namespace Harness {

/**
 * Traces one call: construct it before the call's preparation (an L2 flush, the stream
 * held), begin() just before the call, end() just after it returns, then collect() once
 * the device has finished the call's work. One at a time in a process.
 *
 * Where CUPTI cannot trace (no CUDA device, the device lost, no driver support, another
 * profiler or compute-sanitizer holding CUPTI), unavailable() says why, begin() and end()
 * do nothing, and collect() returns a trace whose `unavailable` says it. Never throws.
 */
class CallTracer {
public:
    CallTracer();
    /** Why nothing can be traced, or "". */
    const std::string &unavailable() const { return unavailable_; }
    void begin();
    void end();
    /** The call's trace (traceOfCall); detaches CUPTI. */
    Trace collect();
    ~CallTracer();

private:
    CallTracer(const CallTracer &) = delete;
    CallTracer &operator=(const CallTracer &) = delete;
    void detach();

    std::string unavailable_;
    bool attached_ = false;
    std::uint64_t beginNs_ = 0;
    std::uint64_t endNs_ = 0;
};

}  // namespace Harness
