#include "runner.h"

#include <algorithm>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "reference.hpp"
#include "testing_helpers.hpp"

namespace Harness {

using StreamCompaction::Backend;
using StreamCompaction::Predicate;
using StreamCompaction::Common::DeviceBuffer;

const char *opName(Op op) {
    switch (op) {
        case Op::Scan: return "scan";
        case Op::Compact: return "compact";
        case Op::Partition: return "partition";
        case Op::Sort: return "sort";
    }
    return "?";
}

bool offers(const Backend &backend, Op op) {
    switch (op) {
        case Op::Scan: return backend.scan != nullptr;
        case Op::Compact: return backend.compact != nullptr;
        case Op::Partition: return backend.partition != nullptr;
        case Op::Sort: return backend.sort != nullptr;
    }
    return false;
}

namespace {

// One call of the operation. Returns how many output elements it defines; `kept` gets
// how many elements a compaction or partition kept.
int invoke(const Backend &backend, Op op, int n, int *out, const int *in, Predicate keep, int &kept) {
    switch (op) {
        case Op::Scan: backend.scan(n, out, in); return n;
        case Op::Compact: return kept = backend.compact(n, out, in, keep);
        case Op::Partition: kept = backend.partition(n, out, in, keep); return n;
        case Op::Sort: backend.sort(n, out, in); return n;
    }
    return 0;
}

Timing summarize(std::vector<double> times) {
    Timing timing;
    timing.reps = static_cast<int>(times.size());
    if (times.empty()) return timing;
    std::sort(times.begin(), times.end());
    const std::size_t mid = times.size() / 2;
    timing.medianMs = times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
    timing.minMs = times.front();
    timing.maxMs = times.back();
    return timing;
}


Run measure(const Backend &backend, Op op, const std::vector<int> &input, const RunSettings &settings) {
    const int n = static_cast<int>(input.size());
    auto elapsedMs = [&backend] {
        return backend.onGpu ? backend.timer().getGpuElapsedTimeForPreviousOperation()
                             : backend.timer().getCpuElapsedTimeForPreviousOperation();
    };
    Run result;
    std::vector<double> times;
    int defined = 0;
    if (backend.onGpu) {
        DeviceBuffer<int> dIn(input.size()), dOut(input.size());
        dIn.upload(input.data(), input.size());
        auto call = [&] {
            dOut.fillBytes(kPoisonByte, input.size());
            return invoke(backend, op, n, dOut.get(), dIn.get(), settings.keep, result.kept);
        };
        for (int i = 0; i < settings.warmup; ++i) call();
        for (int i = 0; i < settings.reps; ++i) {
            defined = call();
            times.push_back(elapsedMs());
        }
        result.output.resize(static_cast<std::size_t>(defined));
        dOut.download(result.output.data(), result.output.size());
    } else {
        std::vector<int> out(input.size());
        auto call = [&] {
            std::fill(out.begin(), out.end(), kPoisonValue);
            return invoke(backend, op, n, out.data(), input.data(), settings.keep, result.kept);
        };
        for (int i = 0; i < settings.warmup; ++i) call();
        for (int i = 0; i < settings.reps; ++i) {
            defined = call();
            times.push_back(elapsedMs());
        }
        out.resize(static_cast<std::size_t>(defined));
        result.output = std::move(out);
    }
    result.timing = summarize(std::move(times));
    return result;
}

}  // namespace

Run run(const Backend &backend, Op op, const std::vector<int> &input, const RunSettings &settings) {
    try {
        return measure(backend, op, input, settings);
    } catch (...) {
        // The buffers are freed by now; leave the device and the timers usable for the
        // next call (a sticky error costs a device reset), then report the error.
        StreamCompaction::Common::recoverFromError();
        throw;
    }
}

std::vector<int> randomInput(Op op, long long size) {
    std::vector<int> values(static_cast<std::size_t>(size), 0);
    if (op == Op::Sort) {
        std::uniform_int_distribution<int> keys(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
        for (int &value : values) value = keys(TestingHelpers::generator());
    } else if (size > 0) {
        genArray(static_cast<int>(size - 1), values.data(), op == Op::Scan ? 50 : 4);
    }
    return values;
}

Expected expected(Op op, const std::vector<int> &input, Predicate keep) {
    Expected result;
    switch (op) {
        case Op::Scan:
            result.output = TestingHelpers::referenceScan(input);
            result.kept = static_cast<int>(input.size());
            break;
        case Op::Compact:
            result.output = TestingHelpers::referenceCompact(input, keep);
            result.kept = static_cast<int>(result.output.size());
            break;
        case Op::Partition:
            result.output = TestingHelpers::referencePartition(input, keep);
            result.kept = static_cast<int>(std::count_if(input.begin(), input.end(), keep));
            break;
        case Op::Sort:
            result.output = TestingHelpers::referenceSort(input);
            result.kept = static_cast<int>(input.size());
            break;
    }
    return result;
}

Verdict verify(Op op, const Run &actual, const Expected &expected) {
    Verdict verdict;
    const bool counted = op == Op::Compact || op == Op::Partition;
    if (counted && actual.kept != expected.kept) {
        verdict.kind = Verdict::Kind::FailCount;
        verdict.detail = fmt::format("expected {} elements, got {}", expected.kept, actual.kept);
        return verdict;
    }
    if (actual.output.size() != expected.output.size()) {
        verdict.kind = Verdict::Kind::FailCount;
        verdict.detail = fmt::format("expected {} elements, got {}", expected.output.size(), actual.output.size());
        return verdict;
    }
    long long i = TestingHelpers::firstMismatch<int>(static_cast<long long>(actual.output.size()),
                                                     actual.output.data(), expected.output.data());
    if (i >= 0) {
        verdict.kind = Verdict::Kind::FailValue;
        verdict.detail = fmt::format("a[{}] = {}, expected {}", i, actual.output[i], expected.output[i]);
    }
    return verdict;
}

}  // namespace Harness
