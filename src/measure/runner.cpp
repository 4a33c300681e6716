#include "measure/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/measurement.h>

#include "measure/tracer.h"
#include "reference.hpp"
#include "testing_helpers.hpp"

namespace Harness {

using StreamCompaction::Backend;
using StreamCompaction::Predicate;
using StreamCompaction::Common::DeviceBuffer;
namespace Common = StreamCompaction::Common;

bool uses64BitApi(long long n, const RunSettings &settings) { return settings.use64BitApi || pastIntSizes(n); }

namespace {

// The index of the first of `count` values that is not poison, or -1.
template <typename Out>
long long firstWritten(const Out *values, std::size_t count) {
    const Out poison = poisonValue<Out>();
    for (std::size_t i = 0; i < count; ++i) {
        if (std::memcmp(&values[i], &poison, sizeof(Out)) != 0) return static_cast<long long>(i);
    }
    return -1;
}

// The first problem a check found, with the number of the call after which it was
// found; written out by text(calls) once the number of calls is known.
struct Finding {
    int call = 0;
    std::string what;  // "changed the input: in[5] = 3, was 4"
    std::string text(int calls) const { return what.empty() ? "" : fmt::format("call {} of {} {}", call, calls, what); }
};

// The input as a back end holds it, compared with the caller's copy after the first
// call and after the last: a call that writes its input leaves it changed for every
// later call, so these two see any such call, and reading n elements back between the
// timed calls would cost a pass over the array each time and replace what the L2 cache
// holds between them. `readBack(first, count, into)` copies the back end's input
// [first, first + count).
template <typename ReadBack>
void checkInput(const std::vector<int> &input, int call, ReadBack readBack, Finding &finding) {
    if (!finding.what.empty()) return;
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    std::vector<int> held(std::min(kChunk, input.size()));
    for (std::size_t first = 0; first < input.size(); first += kChunk) {
        const std::size_t count = std::min(kChunk, input.size() - first);
        readBack(first, count, held.data());
        const long long i =
            TestingHelpers::firstMismatch<int>(static_cast<long long>(count), held.data(), input.data() + first);
        if (i >= 0) {
            const std::size_t at = first + static_cast<std::size_t>(i);
            finding = {call, fmt::format("changed the input: in[{}] = {}, was {}", at, held[static_cast<std::size_t>(i)],
                                         input[at])};
            return;
        }
    }
}

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

// The events and the stream hold every GPU measurement shares, made on first use.
struct DeviceTiming {
    Common::EventPair events;
    Common::StreamHold hold;
};

DeviceTiming &deviceTiming() {
    static DeviceTiming timing;
    return timing;
}

using Clock = std::chrono::steady_clock;

// An NVTX range around one call, which a profiler's timeline shows under its name.
class CallRange {
public:
    explicit CallRange(const std::string &name) { nvtxRangePushA(name.c_str()); }
    ~CallRange() { nvtxRangePop(); }
    CallRange(const CallRange &) = delete;
    CallRange &operator=(const CallRange &) = delete;
};

// Whether the samples so far meet the stopping rule of `settings`: enough of them, enough
// timed work, and their median known to within +-maxNoise (medianNoise, judged on a
// schedule by RunningMedianNoise).
bool noiseKnown(const RunningMedianNoise &noise, const RunSettings &settings) {
    return noise.samples() >= settings.minSamples && noise.totalMs() >= settings.minTimeMs &&
           noise.noise() <= settings.maxNoise;
}

}  // namespace

// One cell, whatever the output type: Measurement's interface.
struct Measurement::Cell {
    virtual ~Cell() = default;
    virtual void warmUp() = 0;
    virtual bool done() const = 0;
    virtual void sample() = 0;
    virtual Run finish() = 0;
    virtual const void *deviceOutput() const = 0;
    virtual Trace trace() = 0;
};

namespace {

// A cell whose outputs are Outs: int, or long long for a scan's int64 sums. `call(out,
// in, kept)` makes one call and returns what Operation::call returns.
template <typename Out, typename Call>
class CellOf : public Measurement::Cell {
public:
    CellOf(const Backend &backend, Op op, const std::vector<int> &input, const RunSettings &settings, bool wide,
           Call call)
        : backend_(backend),
          operation_(describe(op)),
          paired_(operation_.pairs ? withPairValues(input) : std::vector<int>{}),
          input_(operation_.pairs ? paired_ : input),
          settings_(settings),
          call_(std::move(call)),
          n_(input.size()),
          outputs_(operation_.pairs ? 2 * n_ : n_),
          onDevice_(!StreamCompaction::takesHostArrays(backend)),
          ownTimer_(StreamCompaction::timedByImplementation(backend)),
          output_(outputs_ + kGuardElements),
          rangeName_(fmt::format("{} {}, n = {}", backend.name, operation_.name, n_)),
          untimedName_(rangeName_ + " (untimed)") {
        // A call waits for the device when it returns a count to the host on the way: a
        // compaction or partition of a back end that counts on the host, and every 64-bit
        // one. The hold would then never be released.
        synchronizes_ = onDevice_ && operation_.returnsCount && (backend.countsOnHost || wide);
        hold_ = onDevice_ && settings.blockingKernel && !synchronizes_;
        if (onDevice_) {
            dIn_.reserve(input_.size());
            dOut_.reserve(outputs_ + kGuardElements);
            dKept_.reserve(1);
            dIn_.upload(input_.data(), input_.size());
        } else {
            held_ = input_;  // the back end's copy: the caller's stays as it was
        }
        if (ownTimer_) initialReading_ = backend.implementationTimer();
    }

    void warmUp() override {
        for (int i = 0; i < settings_.warmup; ++i) callOnce(false);
    }

    // The time limit counts this cell's own calls only (spentMs_), not the time other
    // cells take between its turns when a sweep interleaves them, and never stops a cell
    // before it has minSamples samples.
    bool done() const override {
        if (settings_.reps > 0) {
            return static_cast<int>(times_.size()) >= settings_.reps || droppedSamples_ >= settings_.reps;
        }
        if (noise_.samples() < settings_.minSamples) return false;
        return noiseKnown(noise_, settings_) || spentMs_ >= settings_.maxTimeMs;
    }

    const void *deviceOutput() const override { return onDevice_ ? dOut_.get() : nullptr; }

    void sample() override {
        const Clock::time_point start = Clock::now();
        callOnce(true);
        spentMs_ += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }

    Run finish() override {
        Run run;
        if (onDevice_) {
            dOut_.download(output_.data(), output_.size());
            checkInput(input_, calls_, [&](std::size_t first, std::size_t count, int *into) {
                SC_CUDA_CHECK(cudaMemcpy(into, dIn_.get() + first, count * sizeof(int), cudaMemcpyDeviceToHost));
            }, inputChange_);
        } else {
            checkInput(input_, calls_, [&](std::size_t first, std::size_t count, int *into) {
                std::copy_n(held_.begin() + static_cast<std::ptrdiff_t>(first), count, into);
            }, inputChange_);
        }
        run.inputChange = inputChange_.text(calls_);
        run.outsideWrite = guardWrite_.text(calls_);
        run.kept = operation_.returnsCount ? kept_ : static_cast<long long>(n_);
        // A count outside [0, n] is reported by verify(); the output then holds what fits.
        const long long defined = operation_.keptOnly ? kept_ : static_cast<long long>(outputs_);
        const auto kept = static_cast<std::size_t>(std::clamp<long long>(defined, 0, static_cast<long long>(outputs_)));
        const long long past = firstWritten(output_.data() + kept, outputs_ - kept);
        if (past >= 0) {
            const std::size_t at = kept + static_cast<std::size_t>(past);
            run.writtenPastCountAt = static_cast<long long>(at);
            run.writtenPastCount = fmt::format("a[{}] = {} was written past the {} element{} the call returned", at,
                                               output_[at], kept, kept == 1 ? "" : "s");
        }
        run.untouched = outputs_ > 0 && firstWritten(output_.data(), outputs_) < 0;
        output_.resize(kept);
        std::vector<double> times = times_;
        if (ownTimer_) {
            run.timing.note = implementationTimerNote(times, initialReading_);
            std::erase_if(times, [](double ms) { return std::isnan(ms); });
        }
        run.timing.samplesMs = times;
        static_cast<Statistics &>(run.timing) = summarize(std::move(times));
        run.timing.cold = onDevice_ && settings_.cold;
        run.timing.held = hold_;
        run.timing.synchronizes = synchronizes_;
        run.timing.outOfTime = settings_.reps == 0 && !noiseKnown(noise_, settings_);
        run.timing.byImplementation = ownTimer_;
        if constexpr (std::is_same_v<Out, long long>) {
            run.sums64 = std::move(output_);
        } else {
            run.output = std::move(output_);
        }
        return run;
    }

    void record(double ms) {
        times_.push_back(ms);
        noise_.add(ms);
    }

    Trace trace() override {
        if (!backend_.onGpu) {
            Trace host;
            host.hostOnly = true;
            return host;
        }
        const CallRange range(rangeName_ + " (traced)");
        std::vector<Out> scratch(onDevice_ ? 0 : outputs_ + kGuardElements);
        Trace traced = traceCall(onDevice_ && settings_.cold, onDevice_ && hold_ ? &deviceTiming().hold : nullptr,
                                 [&] { extraCall(scratch); });
        traced.ownTimer = ownTimer_;
        return traced;
    }

private:
    // One call, timed when `timed`, with the poisoning before it and the checks after it.
    void callOnce(bool timed) {
        ++calls_;
        if (onDevice_) {
            dOut_.fillBytes(kPoisonByte, outputs_ + kGuardElements);
            const long long returned =
                timed ? timedDeviceCall() : namedCall(false, dOut_.get(), dIn_.get(), dKept_.get());
            std::vector<Out> guard(kGuardElements);
            SC_CUDA_CHECK(
                cudaMemcpy(guard.data(), dOut_.get() + outputs_, kGuardElements * sizeof(Out), cudaMemcpyDeviceToHost));
            checkGuard(guard.data());
            if (operation_.returnsCount) {
                kept_ = returned >= 0 ? returned : n_ == 0 ? 0 : Common::downloadValue(dKept_.get());
            }
            if (calls_ == 1) {
                checkInput(input_, calls_, [&](std::size_t first, std::size_t count, int *into) {
                    SC_CUDA_CHECK(cudaMemcpy(into, dIn_.get() + first, count * sizeof(int), cudaMemcpyDeviceToHost));
                }, inputChange_);
            }
        } else {
            std::fill(output_.begin(), output_.end(), poisonValue<Out>());
            int kept = 0;
            const long long returned = namedCall(timed, output_.data(), held_.data(), &kept);
            if (timed) record(hostReading());
            checkGuard(output_.data() + outputs_);
            if (operation_.returnsCount) kept_ = returned >= 0 ? returned : n_ == 0 ? 0 : kept;
            if (calls_ == 1) {
                checkInput(input_, calls_, [&](std::size_t first, std::size_t count, int *into) {
                    std::copy_n(held_.begin() + static_cast<std::ptrdiff_t>(first), count, into);
                }, inputChange_);
            }
        }
    }

    // A GPU call between the events, after the flush, with the stream held while it is
    // enqueued. A call that waited for the held stream (the hold timed out) loses its
    // sample, and the later ones go without the hold.
    long long timedDeviceCall() {
        DeviceTiming &timing = deviceTiming();
        if (settings_.cold) Common::flushL2();
        const bool held = hold_;
        if (held) timing.hold.hold();
        long long returned = 0;
        const CallRange range(rangeName_);
        try {
            timing.events.start();
            returned = call_(dOut_.get(), dIn_.get(), dKept_.get());
            timing.events.stop();
        } catch (...) {
            if (held) timing.hold.release();
            throw;
        }
        const bool released = !held || timing.hold.release();
        const double ms = timing.events.elapsedMs();
        if (released) {
            record(ms);
        } else {
            hold_ = false;
            synchronizes_ = true;
            ++droppedSamples_;
        }
        return returned;
    }

    // A call outside the timed ones, unchecked: on the device buffers, or on host arrays
    // into `scratch` (a submission's, outputs_ + kGuardElements long).
    void extraCall(std::vector<Out> &scratch) {
        if (onDevice_) {
            call_(dOut_.get(), dIn_.get(), dKept_.get());
            return;
        }
        int kept = 0;
        call_(scratch.data(), held_.data(), &kept);
    }

    // One call in its NVTX range, named "(untimed)" for a warm-up.
    long long namedCall(bool timed, Out *out, const int *in, int *kept) {
        const CallRange range(timed ? rangeName_ : untimedName_);
        return call_(out, in, kept);
    }

    // The reading of the back end's own timer for the call just made: the CPU's, or, timed
    // by the implementation, the submission's.
    double hostReading() const {
        if (ownTimer_) return backend_.implementationTimer();
        return backend_.timer().getCpuElapsedTimeForPreviousOperation();
    }

    void checkGuard(const Out *guard) {
        const long long i = firstWritten(guard, kGuardElements);
        if (i >= 0 && guardWrite_.what.empty()) {
            guardWrite_ = {calls_, fmt::format("wrote a[{}] = {}, past the end of the output ({} elements)",
                                               outputs_ + static_cast<std::size_t>(i), guard[static_cast<std::size_t>(i)],
                                               outputs_)};
        }
    }

    const Backend &backend_;
    const Operation &operation_;
    std::vector<int> paired_;  // sort-pairs: the keys, then their values (Operation::pairs)
    const std::vector<int> &input_;  // what the call reads: the caller's input, or paired_
    const RunSettings settings_;
    Call call_;
    std::size_t n_;
    std::size_t outputs_;  // the output elements a call writes: n, or 2n for sort-pairs
    bool onDevice_;
    bool ownTimer_;
    bool synchronizes_ = false;
    bool hold_ = false;
    DeviceBuffer<int> dIn_;
    DeviceBuffer<Out> dOut_;
    DeviceBuffer<int> dKept_;
    std::vector<int> held_;
    std::vector<Out> output_;  // the last call's output and guard, read back
    std::vector<double> times_;
    RunningMedianNoise noise_;  // of times_, for the stopping rule
    double initialReading_ = 0;  // an implementation's timer before any call
    int calls_ = 0;
    int droppedSamples_ = 0;
    long long kept_ = 0;
    double spentMs_ = 0;  // wall time of this cell's timed calls, checks included
    Finding guardWrite_;
    Finding inputChange_;
    std::string rangeName_;  // the timed calls' NVTX range: "thrust scan, n = 1048576"
    std::string untimedName_;
};

template <typename Out, typename Call>
std::unique_ptr<Measurement::Cell> makeCell(const Backend &backend, Op op, const std::vector<int> &input,
                                            const RunSettings &settings, bool wide, Call call) {
    return std::make_unique<CellOf<Out, Call>>(backend, op, input, settings, wide, std::move(call));
}

}  // namespace

Measurement::Measurement(const Backend &backend, Op op, const std::vector<int> &input, const RunSettings &settings) {
    const bool wide = uses64BitApi(static_cast<long long>(input.size()), settings);
    if (!(wide ? offers64(backend, op) : offers(backend, op))) {
        throw std::invalid_argument(fmt::format("{} offers no {}{}", backend.name, wide ? "64-bit " : "", opName(op)));
    }
    const Operation &operation = describe(op);
    const auto n = static_cast<long long>(input.size());
    const Predicate keep = settings.keep;
    if (wide && operation.callInt64Sums) {
        cell_ = makeCell<long long>(backend, op, input, settings, wide,
                                    [&backend, &operation, n](long long *out, const int *in, int *) {
                                        operation.callInt64Sums(backend, static_cast<std::size_t>(n), out, in);
                                        return n;
                                    });
    } else {
        cell_ = makeCell<int>(backend, op, input, settings, wide,
                              [&backend, &operation, wide, n, keep](int *out, const int *in, int *kept) {
                                  return operation.call(backend, wide, n, out, in, keep, kept);
                              });
    }
}

Measurement::~Measurement() = default;

void Measurement::warmUp() { cell_->warmUp(); }
bool Measurement::done() const { return cell_->done(); }
void Measurement::sample() { cell_->sample(); }
Run Measurement::finish() { return cell_->finish(); }
const void *Measurement::deviceOutput() const { return cell_->deviceOutput(); }
Trace Measurement::trace() { return cell_->trace(); }

Run run(const Backend &backend, Op op, const std::vector<int> &input, const RunSettings &settings) {
    std::optional<Run> result;
    try {
        Measurement measurement(backend, op, input, settings);
        measurement.warmUp();
        while (!measurement.done()) measurement.sample();
        result = measurement.finish();
        if (settings.explain) result->trace = measurement.trace();
    } catch (const std::invalid_argument &) {
        throw;  // nothing ran
    } catch (...) {
        // The buffers are freed by now; clear the error (a sticky one marks the device
        // lost) and let the timers start again, then report the error.
        StreamCompaction::Common::afterError();
        throw;
    }
    return std::move(*result);
}

}  // namespace Harness
