#include "runner.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

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

std::vector<const Backend *> offering(const std::vector<std::string> &names, Op op) {
    std::vector<const Backend *> chosen;
    for (const std::string &name : names) {
        const Backend *backend = StreamCompaction::findBackend(name);
        if (backend && offers(*backend, op)) chosen.push_back(backend);
    }
    return chosen;
}

bool offers64(const Backend &backend, Op op) {
    switch (op) {
        case Op::Scan: return backend.scan64 != nullptr;
        case Op::Compact: return backend.compact64 != nullptr;
        case Op::Partition: return backend.partition64 != nullptr;
        case Op::Sort: return backend.sort64 != nullptr;
    }
    return false;
}

bool uses64BitApi(long long n, const RunSettings &settings) { return settings.use64BitApi || pastIntSizes(n); }

namespace {

// One call of an operation whose outputs are ints: every one but the 64-bit scan, whose
// sums are int64. `wide` picks the 64-bit entry points. Returns how many output elements
// the call defines; `kept` gets how many elements a compaction or partition kept.
long long invoke(const Backend &backend, Op op, bool wide, long long n, int *out, const int *in, Predicate keep,
                 long long &kept) {
    const int count = static_cast<int>(n);  // used only when !wide, that is n <= 2^31 - 1
    const auto size = static_cast<std::size_t>(n);
    switch (op) {
        case Op::Scan: backend.scan(count, out, in); return n;
        case Op::Compact:
            return kept = wide ? static_cast<long long>(backend.compact64(size, out, in, keep))
                               : backend.compact(count, out, in, keep);
        case Op::Partition:
            kept = wide ? static_cast<long long>(backend.partition64(size, out, in, keep))
                        : backend.partition(count, out, in, keep);
            return n;
        case Op::Sort:
            if (wide) backend.sort64(size, out, in);
            else backend.sort(count, out, in);
            return n;
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

// An Out whose bytes are all kPoisonByte.
template <typename Out>
Out poisonValue() {
    Out value;
    std::memset(&value, kPoisonByte, sizeof value);
    return value;
}

// The index of the first of `count` values that is not poison, or -1.
template <typename Out>
long long firstWritten(const Out *values, std::size_t count) {
    const Out poison = poisonValue<Out>();
    for (std::size_t i = 0; i < count; ++i) {
        if (std::memcmp(&values[i], &poison, sizeof(Out)) != 0) return static_cast<long long>(i);
    }
    return -1;
}

// The input as a back end holds it, compared after every call with the caller's copy.
// The first difference found is kept, as "call 2 of 6 changed the input: in[5] = 3, was 4".
class InputCheck {
public:
    InputCheck(const std::vector<int> &input, int calls) : input_(input), calls_(calls) {}

    // `readBack(first, count, into)` copies the back end's input [first, first + count).
    template <typename ReadBack>
    void afterCall(int call, ReadBack readBack) {
        if (!problem_.empty()) return;
        constexpr std::size_t kChunk = std::size_t{1} << 20;
        std::vector<int> held(std::min(kChunk, input_.size()));
        for (std::size_t first = 0; first < input_.size(); first += kChunk) {
            const std::size_t count = std::min(kChunk, input_.size() - first);
            readBack(first, count, held.data());
            const long long i = TestingHelpers::firstMismatch<int>(static_cast<long long>(count), held.data(),
                                                                   input_.data() + first);
            if (i >= 0) {
                const std::size_t at = first + static_cast<std::size_t>(i);
                problem_ = fmt::format("call {} of {} changed the input: in[{}] = {}, was {}", call, calls_, at,
                                       held[static_cast<std::size_t>(i)], input_[at]);
                return;
            }
        }
    }
    const std::string &problem() const { return problem_; }

private:
    const std::vector<int> &input_;
    int calls_;
    std::string problem_;
};

// Makes settings.warmup untimed and settings.reps timed calls of `call(out, in)`, which
// returns how many output elements it defines, with the output and the guard elements
// after it poisoned before each: on device copies of the input for a GPU back end, on
// host arrays for the CPU. After every call the guard must still be poison and the
// input as it was; after the last, so must every output element past those it defines.
// Returns the elements the last call defined; `timing` gets the timed calls' summary and
// `run` what the checks found.
template <typename Out, typename Call>
std::vector<Out> timedCalls(const Backend &backend, const std::vector<int> &input, const RunSettings &settings,
                            Call call, Timing &timing, Run &run) {
    auto elapsedMs = [&backend] {
        return backend.onGpu ? backend.timer().getGpuElapsedTimeForPreviousOperation()
                             : backend.timer().getCpuElapsedTimeForPreviousOperation();
    };
    const std::size_t n = input.size();
    const int calls = settings.warmup + settings.reps;
    InputCheck inputCheck(input, calls);
    std::vector<double> times;
    long long defined = 0;
    std::vector<Out> output(n + kGuardElements);  // the last call's output and guard, read back
    // `afterCall(number)` checks the guard and the input after call `number` (from 1).
    auto warmUpThenTime = [&](auto poisonedCall, auto afterCall) {
        for (int i = 0; i < settings.warmup; ++i) {
            poisonedCall();
            afterCall(i + 1);
        }
        for (int i = 0; i < settings.reps; ++i) {
            defined = poisonedCall();
            times.push_back(elapsedMs());
            afterCall(settings.warmup + i + 1);
        }
    };
    auto checkGuard = [&](int number, const Out *guard) {
        const long long i = firstWritten(guard, kGuardElements);
        if (i >= 0 && run.outsideWrite.empty()) {
            run.outsideWrite = fmt::format("call {} of {} wrote a[{}] = {}, past the end of the output ({} elements)",
                                           number, calls, n + static_cast<std::size_t>(i),
                                           guard[static_cast<std::size_t>(i)], n);
        }
    };
    if (backend.onGpu) {
        DeviceBuffer<int> dIn(n);
        DeviceBuffer<Out> dOut(n + kGuardElements);
        dIn.upload(input.data(), n);
        warmUpThenTime(
            [&] {
                dOut.fillBytes(kPoisonByte, n + kGuardElements);
                return call(dOut.get(), dIn.get());
            },
            [&](int number) {
                std::vector<Out> guard(kGuardElements);
                SC_CUDA_CHECK(cudaMemcpy(guard.data(), dOut.get() + n, kGuardElements * sizeof(Out),
                                         cudaMemcpyDeviceToHost));
                checkGuard(number, guard.data());
                inputCheck.afterCall(number, [&](std::size_t first, std::size_t count, int *into) {
                    SC_CUDA_CHECK(cudaMemcpy(into, dIn.get() + first, count * sizeof(int), cudaMemcpyDeviceToHost));
                });
            });
        dOut.download(output.data(), output.size());
    } else {
        std::vector<int> held(input);  // the back end's copy: the caller's stays as it was
        warmUpThenTime(
            [&] {
                std::fill(output.begin(), output.end(), poisonValue<Out>());
                return call(output.data(), held.data());
            },
            [&](int number) {
                checkGuard(number, output.data() + n);
                inputCheck.afterCall(number, [&](std::size_t first, std::size_t count, int *into) {
                    std::copy_n(held.begin() + static_cast<std::ptrdiff_t>(first), count, into);
                });
            });
    }
    run.inputChange = inputCheck.problem();
    // A count outside [0, n] is reported by verify(); the output then holds what fits.
    const auto kept = static_cast<std::size_t>(std::clamp<long long>(defined, 0, static_cast<long long>(n)));
    const long long past = firstWritten(output.data() + kept, n - kept);
    if (past >= 0 && run.outsideWrite.empty()) {
        run.outsideWrite = fmt::format("a[{}] = {} was written past the {} elements the call returned",
                                       kept + static_cast<std::size_t>(past), output[kept + static_cast<std::size_t>(past)],
                                       kept);
    }
    output.resize(kept);
    timing = summarize(std::move(times));
    return output;
}

// `wide`: through the 64-bit entry points.
Run measure(const Backend &backend, Op op, bool wide, const std::vector<int> &input, const RunSettings &settings) {
    const auto n = static_cast<long long>(input.size());
    Run result;
    if (op == Op::Scan && wide) {
        result.sums64 = timedCalls<long long>(
            backend, input, settings,
            [&](long long *out, const int *in) {
                backend.scan64(input.size(), out, in);
                return n;
            },
            result.timing, result);
    } else {
        result.output = timedCalls<int>(
            backend, input, settings,
            [&](int *out, const int *in) { return invoke(backend, op, wide, n, out, in, settings.keep, result.kept); },
            result.timing, result);
    }
    return result;
}

}  // namespace

Run run(const Backend &backend, Op op, const std::vector<int> &input, const RunSettings &settings) {
    const bool wide = uses64BitApi(static_cast<long long>(input.size()), settings);
    if (!(wide ? offers64(backend, op) : offers(backend, op))) {
        throw std::invalid_argument(fmt::format("{} offers no {}{}", backend.name, wide ? "64-bit " : "", opName(op)));
    }
    try {
        return measure(backend, op, wide, input, settings);
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
        // genArray's draws, without its `int n`: size - 1 values, then the 0 already there.
        std::uniform_int_distribution<int> draws(0, op == Op::Scan ? 49 : 3);
        std::generate(values.begin(), values.end() - 1, [&draws] { return draws(TestingHelpers::generator()); });
    }
    return values;
}

Expected expected(Op op, const std::vector<int> &input, Predicate keep, bool int64Sums) {
    Expected result;
    switch (op) {
        case Op::Scan:
            if (int64Sums) result.sums64 = TestingHelpers::referenceScanInt64(input);
            else result.output = TestingHelpers::referenceScan(input);
            result.kept = static_cast<long long>(input.size());
            break;
        case Op::Compact:
            result.output = TestingHelpers::referenceCompact(input, keep);
            result.kept = static_cast<long long>(result.output.size());
            break;
        case Op::Partition:
            result.output = TestingHelpers::referencePartition(input, keep);
            result.kept = TestingHelpers::referenceKeptCount(input, keep);
            break;
        case Op::Sort:
            result.output = TestingHelpers::referenceSort(input);
            result.kept = static_cast<long long>(input.size());
            break;
    }
    return result;
}

namespace {

// A FailCount or FailValue verdict at the first difference of two outputs, or "passed".
template <typename T>
Verdict compare(const std::vector<T> &actual, const std::vector<T> &expected) {
    Verdict verdict;
    if (actual.size() != expected.size()) {
        verdict.kind = Verdict::Kind::FailCount;
        verdict.detail = fmt::format("expected {} elements, got {}", expected.size(), actual.size());
        return verdict;
    }
    long long i = TestingHelpers::firstMismatch<T>(static_cast<long long>(actual.size()), actual.data(), expected.data());
    if (i >= 0) {
        verdict.kind = Verdict::Kind::FailValue;
        verdict.detail = fmt::format("a[{}] = {}, expected {}", i, actual[i], expected[i]);
    }
    return verdict;
}

}  // namespace

Verdict verify(Op op, const Run &actual, const Expected &expected) {
    Verdict verdict;
    const bool counted = op == Op::Compact || op == Op::Partition;
    if (!actual.inputChange.empty()) {
        verdict.kind = Verdict::Kind::FailValue;
        verdict.detail = actual.inputChange;
        return verdict;
    }
    if (counted && actual.kept != expected.kept) {
        verdict.kind = Verdict::Kind::FailCount;
        verdict.detail = fmt::format("expected {} elements, got {}", expected.kept, actual.kept);
        return verdict;
    }
    if (!actual.outsideWrite.empty()) {
        verdict.kind = Verdict::Kind::FailValue;
        verdict.detail = actual.outsideWrite;
        return verdict;
    }
    const Verdict ints = compare(actual.output, expected.output);
    return ints.passed() ? compare(actual.sums64, expected.sums64) : ints;
}

}  // namespace Harness
