#include "measure/tracer.h"

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define SC_DEMANGLE 1
#endif

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

// CUPTI's headers put anonymous structs in unions, which -pedantic reports as an extension.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnested-anon-types"
#pragma clang diagnostic ignored "-Wgnu-anonymous-struct"
#endif
#include <cupti.h>
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
#include <fmt/format.h>

#include <stream_compaction/errors.h>
#include <stream_compaction/measurement.h>

namespace Harness {

namespace Common = StreamCompaction::Common;

namespace {

constexpr std::size_t kBufferBytes = std::size_t{8} << 20;
constexpr std::size_t kBufferAlignment = 8;  // CUPTI's records are 8-byte aligned

// What is traced: the GPU work, and the runtime and driver calls that launched it (the
// driver's only to match GPU work to the call; runtime calls are the ones reported).
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                         CUPTI_ACTIVITY_KIND_DRIVER};

// The records CUPTI has handed back; its completion callback may run on a thread of its own.
struct Collected {
    std::mutex mutex;
    std::vector<TracedRecord> records;
    long long dropped = 0;
};

Collected &collected() {
    static Collected records;
    return records;
}

// A kernel's name as its source writes it, where the C++ ABI's demangler is at hand
// (GCC, Clang); as CUPTI gives it elsewhere.
std::string demangled(const char *name) {
    if (name == nullptr) return "(unnamed kernel)";
#ifdef SC_DEMANGLE
    int status = 0;
    const std::unique_ptr<char, void (*)(void *)> text(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
    if (status == 0 && text) return text.get();
#endif
    return name;
}

const char *copyDirection(std::uint8_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy host to device";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy device to host";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy device to device";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "memcpy host to host";
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "memcpy peer to peer";
        default: return "memcpy (array)";
    }
}

bool touchesHost(std::uint8_t kind) {
    return kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD || kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ||
           kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOA || kind == CUPTI_ACTIVITY_MEMCPY_KIND_ATOH ||
           kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
}

// An event with its kind, name, times and stream.
TracedRecord timed(TraceEvent::Kind kind, std::string name, std::uint64_t start, std::uint64_t end,
                   std::uint32_t stream, std::uint32_t correlation) {
    TracedRecord record;
    record.event.kind = kind;
    record.event.name = std::move(name);
    record.event.startNs = static_cast<long long>(start);
    record.event.endNs = static_cast<long long>(end);
    record.event.stream = stream;
    record.correlation = correlation;
    return record;
}

// One of CUPTI's records as the trace holds it; false for a kind not traced.
bool convert(const CUpti_Activity &activity, TracedRecord &out) {
    switch (activity.kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const auto &k = reinterpret_cast<const CUpti_ActivityKernel10 &>(activity);
            out = timed(TraceEvent::Kind::Kernel, demangled(k.name), k.start, k.end, k.streamId, k.correlationId);
            out.event.grid = {k.gridX, k.gridY, k.gridZ};
            out.event.block = {k.blockX, k.blockY, k.blockZ};
            out.event.registers = k.registersPerThread;
            out.event.sharedBytes = static_cast<long long>(k.staticSharedMemory) + k.dynamicSharedMemory;
            return true;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto &m = reinterpret_cast<const CUpti_ActivityMemcpy6 &>(activity);
            out = timed(TraceEvent::Kind::Memcpy, copyDirection(m.copyKind), m.start, m.end, m.streamId,
                        m.correlationId);
            out.event.bytes = static_cast<long long>(m.bytes);
            out.event.hostSide = touchesHost(m.copyKind);
            return true;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto &m = reinterpret_cast<const CUpti_ActivityMemset4 &>(activity);
            out = timed(TraceEvent::Kind::Memset, "memset", m.start, m.end, m.streamId, m.correlationId);
            out.event.bytes = static_cast<long long>(m.bytes);
            return true;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            const auto &a = reinterpret_cast<const CUpti_ActivityAPI &>(activity);
            const bool runtime = activity.kind == CUPTI_ACTIVITY_KIND_RUNTIME;
            const char *name = nullptr;
            cuptiGetCallbackName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a.cbid, &name);
            const std::string call = callName(name ? name : "?");
            out = timed(TraceEvent::Kind::Call, call, a.start, a.end, 0, a.correlationId);
            out.event.call = runtime ? callKind(call) : CallKind::Other;  // driver calls: matching only
            return true;
        }
        default: return false;
    }
}

void CUPTIAPI bufferRequested(std::uint8_t **buffer, std::size_t *size, std::size_t *maxRecords) {
    // malloc's alignment (that of std::max_align_t) is CUPTI's 8 bytes or more.
    static_assert(alignof(std::max_align_t) >= kBufferAlignment);
    *buffer = static_cast<std::uint8_t *>(std::malloc(kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;  // as many as fit
}

void CUPTIAPI bufferCompleted(CUcontext context, std::uint32_t stream, std::uint8_t *buffer, std::size_t,
                              std::size_t validSize) {
    std::vector<TracedRecord> records;
    CUpti_Activity *activity = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &activity) == CUPTI_SUCCESS) {
        TracedRecord record;
        if (convert(*activity, record)) records.push_back(std::move(record));
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) != CUPTI_SUCCESS) dropped = 0;
    std::free(buffer);
    Collected &all = collected();
    const std::lock_guard<std::mutex> lock(all.mutex);
    all.records.insert(all.records.end(), std::make_move_iterator(records.begin()),
                       std::make_move_iterator(records.end()));
    all.dropped += static_cast<long long>(dropped);
}

// Why CUPTI refused, in words a user can act on.
std::string refusal(CUptiResult result, const char *step) {
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        return "another tool holds CUPTI (Nsight Systems, Nsight Compute, cuda-gdb or compute-sanitizer)";
    }
    const char *text = nullptr;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
    if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) return fmt::format("CUPTI is not permitted here ({})", text);
    return fmt::format("CUPTI cannot trace here: {} failed: {}", step, text);
}

// CUPTI's one subscriber, held while tracing: a profiler that holds it (Nsight Systems,
// Nsight Compute, cuda-gdb) keeps this program's hands off CUPTI altogether.
CUpti_SubscriberHandle subscriber = nullptr;

void CUPTIAPI noCallbacks(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

// Takes CUPTI's subscriber slot; returns why not, or "".
std::string subscribe() {
    char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "cis565_stream_compaction --explain";
    params.oldSubscriberName = holder;
    params.oldSubscriberSize = sizeof holder;
    const CUptiResult result = cuptiSubscribe_v2(&subscriber, noCallbacks, nullptr, &params);
    if (result == CUPTI_SUCCESS) return "";
    subscriber = nullptr;
    // A holder that gives no name (compute-sanitizer's reads "<not provided>") is left unnamed.
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && holder[0] != '\0' && holder[0] != '<') {
        return fmt::format("another tool holds CUPTI ({})", holder);
    }
    return refusal(result, "cuptiSubscribe");
}

// Why no call can be traced before CUPTI is asked, or "".
std::string deviceProblem() {
    if (!Common::deviceAvailable()) return "no CUDA device";
    if (!Common::deviceLost().empty()) return Common::deviceLost();
    return subscriber != nullptr ? "another call is being traced" : "";  // one CallTracer at a time
}

}  // namespace

CallTracer::CallTracer() : unavailable_(deviceProblem()) {
    if (!unavailable_.empty()) return;
    {
        Collected &all = collected();
        const std::lock_guard<std::mutex> lock(all.mutex);
        all.records.clear();
        all.dropped = 0;
    }
    unavailable_ = subscribe();
    if (!unavailable_.empty()) return;
    attached_ = true;
    const CUptiResult registered = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
    if (registered != CUPTI_SUCCESS) {
        unavailable_ = refusal(registered, "cuptiActivityRegisterCallbacks");
        detach();
        return;
    }
    for (CUpti_ActivityKind kind : kKinds) {
        const CUptiResult enabled = cuptiActivityEnable(kind);
        if (enabled != CUPTI_SUCCESS) {
            unavailable_ = refusal(enabled, "cuptiActivityEnable");
            detach();
            return;
        }
    }
}

CallTracer::~CallTracer() { detach(); }

void CallTracer::begin() {
    if (attached_ && cuptiGetTimestamp(&beginNs_) != CUPTI_SUCCESS) unavailable_ = "CUPTI gave no timestamp";
}

void CallTracer::end() {
    if (attached_ && cuptiGetTimestamp(&endNs_) != CUPTI_SUCCESS) unavailable_ = "CUPTI gave no timestamp";
}

Trace CallTracer::collect() {
    Trace trace;
    if (!attached_) {  // refused: the records, if any, are another tracer's
        trace.unavailable = unavailable_;
        return trace;
    }
    const CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (flushed != CUPTI_SUCCESS && unavailable_.empty()) unavailable_ = refusal(flushed, "cuptiActivityFlushAll");
    std::vector<TracedRecord> records;
    long long dropped = 0;
    {
        Collected &all = collected();
        const std::lock_guard<std::mutex> lock(all.mutex);
        records.swap(all.records);
        dropped = all.dropped;
    }
    detach();
    if (!unavailable_.empty()) {
        trace.unavailable = unavailable_;
        return trace;
    }
    trace = traceOfCall(records, beginNs_, endNs_);
    trace.dropped = dropped;
    return trace;
}

// Stops every kind, hands back CUPTI's buffers and detaches CUPTI from the process, so
// that the calls timed after this one run as they did before it.
void CallTracer::detach() {
    if (!attached_) return;
    // After a failed call, no GPU work is left in flight when CUPTI lets go; the call has
    // reported its error already, so it is read and dropped here.
    if (cudaDeviceSynchronize() != cudaSuccess) static_cast<void>(cudaGetLastError());
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cuptiUnsubscribe(subscriber);
    subscriber = nullptr;
    cuptiFinalize();
    attached_ = false;
    Collected &all = collected();
    const std::lock_guard<std::mutex> lock(all.mutex);
    all.records.clear();
}

Trace traceCall(bool cold, Common::StreamHold *hold, const std::function<void()> &call) {
    CallTracer tracer;
    if (!tracer.unavailable().empty()) return tracer.collect();
    call();
    SC_CUDA_CHECK(cudaDeviceSynchronize());
    if (cold) Common::flushL2();
    if (hold) {
        hold->hold();
    } else {
        SC_CUDA_CHECK(cudaDeviceSynchronize());
    }
    try {
        tracer.begin();
        call();
        tracer.end();
    } catch (...) {
        if (hold) hold->release();
        throw;
    }
    const bool held = hold && hold->release();
    SC_CUDA_CHECK(cudaDeviceSynchronize());
    Trace traced = tracer.collect();
    traced.held = held;
    return traced;
}

}  // namespace Harness
