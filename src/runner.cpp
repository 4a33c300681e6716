#include "runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>

#include "reference.hpp"
#include "testing_helpers.hpp"

namespace Harness {

using StreamCompaction::Backend;
using StreamCompaction::Predicate;
using StreamCompaction::Common::DeviceBuffer;

bool uses64BitApi(long long n, const RunSettings &settings) { return settings.use64BitApi || pastIntSizes(n); }

namespace {

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
    // The input is read back after the first call and after the last only: a call that
    // writes its input leaves it changed for every later call, so these two see any such
    // call, and reading n elements back between the timed calls would cost a pass over
    // the array each time and replace what the L2 cache holds between them.
    template <typename ReadBack>
    void afterCall(int call, ReadBack readBack) {
        if (!problem_.empty() || (call != 1 && call != calls_)) return;
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


// What is wrong with an implementation's own timer readings, one per timed call:
// readings of zero, below zero or not a number, or every one the same as the reading
// before the first call (a function that never sets its timer; comparing with that one
// reading, left by an earlier operation, and not call by call, keeps equal readings of a
// tiny input from passing for it); "" when nothing is.
std::string implementationTimerNote(const std::vector<double> &readings, double initial) {
    const auto count = [&readings](auto test) { return std::count_if(readings.begin(), readings.end(), test); };
    const auto n = readings.size();
    std::vector<std::string> notes;
    const auto add = [&](long long k, const char *what) {
        if (k > 0) notes.push_back(fmt::format("the timer read {} on {} of {} calls", what, k, n));
    };
    add(count([](double ms) { return ms == 0; }), "0 ms");
    add(count([](double ms) { return ms < 0; }), "a negative time");
    add(count([](double ms) { return std::isnan(ms); }), "NaN");
    const auto unchanged = count([initial](double ms) { return ms == initial; });
    if (n > 0 && unchanged == static_cast<long long>(n)) {
        notes.push_back("the timer's reading never changed across a call: the function does not set it");
    }
    std::string note;
    for (const std::string &each : notes) note += (note.empty() ? "" : "; ") + each;
    return note;
}

// Makes settings.warmup untimed and settings.reps timed calls of `call(out, in)`, which
// returns how many output elements it defines, with the output and the guard elements
// after it poisoned before each: on device copies of the input for a GPU back end, on
// host arrays for a back end that takes them (the CPU, a course submission). After every
// call the guard must still be poison, after the first and the last the input as it was
// (InputCheck); after the last, so must every output element past those it defines. Returns the elements the last call
// defined; `timing` gets the timed calls' summary, from the back end's timer or, timed by
// the implementation, its own; `run` what the checks found.
template <typename Out, typename Call>
std::vector<Out> timedCalls(const Backend &backend, const std::vector<int> &input, const RunSettings &settings,
                            Call call, Timing &timing, Run &run) {
    const bool ownTimer = StreamCompaction::timedByImplementation(backend);
    auto elapsedMs = [&backend, ownTimer]() -> double {
        if (ownTimer) return backend.implementationTimer();
        return backend.onGpu ? backend.timer().getGpuElapsedTimeForPreviousOperation()
                             : backend.timer().getCpuElapsedTimeForPreviousOperation();
    };
    const std::size_t n = input.size();
    const int calls = settings.warmup + settings.reps;
    InputCheck inputCheck(input, calls);
    std::vector<double> times;
    const double initial = ownTimer ? elapsedMs() : 0;  // an implementation's timer before any call
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
    if (!StreamCompaction::takesHostArrays(backend)) {
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
    std::string note;
    if (ownTimer) {
        note = implementationTimerNote(times, initial);
        std::erase_if(times, [](double ms) { return std::isnan(ms); });
    }
    timing = summarize(std::move(times));
    timing.note = std::move(note);
    return output;
}

// `wide`: through the 64-bit entry points.
Run measure(const Backend &backend, Op op, bool wide, const std::vector<int> &input, const RunSettings &settings) {
    const auto n = static_cast<long long>(input.size());
    Run result;
    const Operation &operation = describe(op);
    if (wide && operation.callInt64Sums) {
        result.sums64 = timedCalls<long long>(
            backend, input, settings,
            [&](long long *out, const int *in) {
                operation.callInt64Sums(backend, input.size(), out, in);
                return n;
            },
            result.timing, result);
    } else {
        result.output = timedCalls<int>(
            backend, input, settings,
            [&](int *out, const int *in) { return operation.call(backend, wide, n, out, in, settings.keep, result.kept); },
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
        // The buffers are freed by now; clear the error (a sticky one marks the device
        // lost) and let the timers start again, then report the error.
        StreamCompaction::Common::afterError();
        throw;
    }
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
    const bool counted = describe(op).returnsCount;
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
