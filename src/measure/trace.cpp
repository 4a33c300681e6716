#include "measure/trace.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace Harness {

namespace {

bool startsWith(const std::string &text, const char *prefix) { return text.rfind(prefix, 0) == 0; }

// The end of the bracketed part that opens at `open` (a '<' or '('), or npos.
std::size_t closing(const std::string &text, std::size_t open) {
    const char first = text[open];
    const char last = first == '<' ? '>' : ')';
    int depth = 0;
    for (std::size_t i = open; i < text.size(); ++i) {
        if (text[i] == first) ++depth;
        if (text[i] == last && --depth == 0) return i;
    }
    return std::string::npos;
}

}  // namespace

std::string callName(const std::string &cuptiName) {
    const std::size_t suffix = cuptiName.rfind("_v");
    if (suffix == std::string::npos || suffix + 2 >= cuptiName.size()) return cuptiName;
    const bool digits = std::all_of(cuptiName.begin() + static_cast<std::ptrdiff_t>(suffix) + 2, cuptiName.end(),
                                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    return digits ? cuptiName.substr(0, suffix) : cuptiName;
}

CallKind callKind(const std::string &name) {
    const std::string call = callName(name);
    if (startsWith(call, "cudaMalloc") || call == "cudaHostAlloc") return CallKind::Allocate;
    if (startsWith(call, "cudaFree")) return CallKind::Free;
    if (startsWith(call, "cudaMemcpy")) return CallKind::Copy;
    if (startsWith(call, "cudaMemset")) return CallKind::Set;
    if (call == "cudaDeviceSynchronize" || call == "cudaStreamSynchronize" || call == "cudaEventSynchronize" ||
        call == "cudaThreadSynchronize") {
        return CallKind::Wait;
    }
    if (startsWith(call, "cudaEventRecord")) return CallKind::EventRecord;
    return CallKind::Other;
}

std::string shortKernelName(const std::string &demangled) {
    // The name proper ends where its parameters start: the last top-level '('.
    std::string name = demangled;
    int depth = 0;
    std::size_t parameters = std::string::npos;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<') ++depth;
        if (name[i] == '>') --depth;
        if (name[i] != '(' || depth != 0 || i == 0) continue;
        if (name.compare(i, 21, "(anonymous namespace)") != 0) {
            parameters = i;
            break;
        }
        i = closing(name, i);
        if (i == std::string::npos) break;
    }
    if (parameters != std::string::npos) name.erase(parameters);
    // Its last top-level "::" or space (a return type) starts the function's own name.
    depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<' || name[i] == '(') ++depth;
        if (name[i] == '>' || name[i] == ')') --depth;
        if (depth == 0 && (name[i] == ' ' || (name[i] == ':' && i + 1 < name.size() && name[i + 1] == ':'))) {
            start = name[i] == ' ' ? i + 1 : i + 2;
        }
    }
    name = name.substr(start);
    const std::size_t open = name.find('<');
    constexpr std::size_t kShortArguments = 24;
    if (open != std::string::npos && name.size() - open > kShortArguments) name = name.substr(0, open) + "<…>";
    return name.empty() ? demangled : name;
}

Trace traceOfCall(const std::vector<TracedRecord> &records, std::uint64_t beginNs, std::uint64_t endNs) {
    const auto inCall = [&](long long startNs) {
        return startNs >= static_cast<long long>(beginNs) && startNs <= static_cast<long long>(endNs);
    };
    std::map<std::uint32_t, long long> launched;  // the calls made during the call: correlation id -> start
    for (const TracedRecord &record : records) {
        if (record.event.onGpu() || !inCall(record.event.startNs)) continue;
        const auto [at, added] = launched.emplace(record.correlation, record.event.startNs);
        if (!added) at->second = std::min(at->second, record.event.startNs);
    }
    Trace trace;
    trace.callEndNs = static_cast<long long>(endNs - beginNs);
    for (const TracedRecord &record : records) {
        const TraceEvent &event = record.event;
        const bool keep = event.onGpu() ? launched.count(record.correlation) > 0
                                        : inCall(event.startNs) && event.call != CallKind::Other;
        if (!keep) continue;
        TraceEvent shifted = event;
        if (event.onGpu()) shifted.launchNs = launched.at(record.correlation) - static_cast<long long>(beginNs);
        shifted.startNs -= static_cast<long long>(beginNs);
        shifted.endNs -= static_cast<long long>(beginNs);
        trace.events.push_back(std::move(shifted));
    }
    std::stable_sort(trace.events.begin(), trace.events.end(),
                     [](const TraceEvent &a, const TraceEvent &b) { return a.startNs < b.startNs; });
    return trace;
}

}  // namespace Harness
