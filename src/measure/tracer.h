#pragma once
// The tracer of one call (--explain), through CUPTI's activity API: the kernels, memcpys
// and memsets the call ran on the GPU, and the runtime calls it made (trace.h). CUPTI is
// attached for the one call and detached after it (cuptiFinalize), so that the calls
// timed later run without it.

#include <cstdint>
#include <functional>
#include <string>

#include "measure/trace.h"

namespace StreamCompaction::Common {
class StreamHold;
}  // namespace StreamCompaction::Common

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

/**
 * One call traced as a timed call is made (Measurement::trace): `call()` makes it. First a
 * call with CUPTI attached, left out of the trace, since CUPTI sets itself up on the first
 * work it sees; then the L2 flush when `cold`, and the traced call, with the stream held
 * by `hold` where the timed calls held it, else once the flush has finished (as a timed
 * call's start event waits for it). Trace::held says whether the hold lasted the call.
 * Throws what `call` throws, and CudaError when CUDA fails.
 */
Trace traceCall(bool cold, StreamCompaction::Common::StreamHold *hold, const std::function<void()> &call);

}  // namespace Harness
