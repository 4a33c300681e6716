#include "commands/course_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <stream_compaction/cpu.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>
#include <stream_compaction/student.h>

#include "measure/context.h"
#include "measure/device_info.h"
#include "commands/submission_main.h"
#include "measure/explain.h"
#include "measure/hints.h"
#include "report/reporters.h"
#include "report/timeline.h"
#include "measure/runner.h"
#include "platform/child_process.h"
#include "testing_helpers.hpp"

namespace Harness {

using StreamCompaction::Backend;
using StreamCompaction::Predicate;
namespace Common = StreamCompaction::Common;
namespace Student = StreamCompaction::Student;

namespace {

void printBanner(const std::string &title) {
    const std::string stars(title.size() + 6, '*');
    fmt::print("\n{}\n** {} **\n{}\n", stars, title, stars);
}

std::string gpuDescription() {
    if (!Common::deviceAvailable()) return "GPU: none (no CUDA device; GPU tests are skipped)";
    const DeviceInfo gpu = deviceInfo();
    return fmt::format("GPU: {} (sm_{}{}, {} SMs, {:.1f} GiB), driver {}.{}, runtime {}.{}", gpu.name,
                       gpu.computeMajor, gpu.computeMinor, gpu.multiprocessors,
                       gpu.globalMemoryBytes / double(1ULL << 30), gpu.driverVersion / 1000,
                       gpu.driverVersion % 1000 / 10, gpu.runtimeVersion / 1000, gpu.runtimeVersion % 1000 / 10);
}

// What a test printed, and how it ended.
struct Outcome {
    Row::Status status = Row::Status::Failed;
    bool crashed = false;  // an error, a signal, an exit() or a hang, not a wrong result
};

// A test run in a child process: its lines, its outcome, and how the child ended when it
// did not answer ("student-cpu scan crashed: SIGSEGV (segmentation fault)").
struct Isolated {
    std::string printed;
    Outcome outcome;
    std::string crash;
};

// The most of a child's printing that is kept.
constexpr std::size_t kMaxPrinted = 1 << 20;

// A submission's test in a child process is killed after this long, or after ten times
// --max-time where that is longer.
constexpr int kIsolatedLimitSeconds = 30;

class CourseRun {
public:
    explicit CourseRun(const Options &options) : options_(options), settings_(runSettings(options)) {
        settings_.explain = options.explain;
        const bool anyStudent = std::any_of(options.backends.begin(), options.backends.end(), [](const std::string &name) {
            const Backend *backend = StreamCompaction::findBackend(name);
            return backend && StreamCompaction::timedByImplementation(*backend);
        });
        isolates_ = anyStudent && Student::problem().empty() && canStartProcesses();
        limitSeconds_ = std::max(kIsolatedLimitSeconds, static_cast<int>(std::ceil(options.maxTimeMs / 100)));
        if (isolates_) mainNote_ = mainNote();
    }

    const Tally &tally() const { return tally_; }

    // Whether a submission's tests run in child processes, in a pass of their own.
    bool isolates() const { return isolates_; }

    // The pass that runs a submission's tests in child processes and prints nothing, on
    // or off.
    void setIsolating(bool on) { isolating_ = on; }

    // One section: every chosen back end offering `op`, on the power-of-two input and
    // on its first NPOT elements. The CPU's outputs are printed, as in the course. A
    // course submission's function that the course asks for and the submission does not
    // define reads "not offered", and counts as failed.
    void section(const std::string &title, Op op, const std::vector<int> &input) {
        std::vector<const Backend *> chosen;
        for (const std::string &name : options_.backends) {
            const Backend *backend = StreamCompaction::findBackend(name);
            if (backend && (offers(*backend, op) || !courseFunctionsOf(*backend, op).empty())) chosen.push_back(backend);
        }
        if (chosen.empty()) return;
        if (!isolating_) {
            printBanner(title);
            fmt::print("    {}\n", TestingHelpers::formatArray(static_cast<long long>(input.size()), input.data(), true));
        }
        const std::vector<int> npotInput(input.begin(), input.end() - 3);
        const Expected potExpected = expected(op, input, settings_.keep);
        const Expected npotExpected = expected(op, npotInput, settings_.keep);
        const auto both = [&](const std::string &label, const Backend &backend,
                              const Student::CourseFunction *function = nullptr) {
            const Row::Status pot = test(label + ", power-of-two", backend, op, input, potExpected, function);
            const Row::Status npot = test(label + ", non-power-of-two", backend, op, npotInput, npotExpected, function);
            printSizeHint(pot, npot, static_cast<long long>(input.size()));
        };
        for (const Backend *backend : chosen) {
            const std::string label = backend->onGpu || op != Op::Compact
                                          ? fmt::format("{} {}", backend->title, opName(op))
                                          : fmt::format("{} compact without scan", backend->title);
            if (StreamCompaction::timedByImplementation(*backend)) {
                for (const Student::CourseFunction *function : courseFunctionsOf(*backend, op)) {
                    const bool withScan = function->row == &Student::cpuCompactWithScan();
                    const std::string name = withScan ? fmt::format("{} compact with scan", backend->title) : label;
                    if (function->offered) {
                        both(name, *function->row, function);
                    } else if (!isolating_) {
                        tally_.count(Row::Status::Failed);
                        fmt::print("==== {} ====\n", name);
                        if (Student::problem().empty()) {
                            fmt::print("    not offered: the submission defines no {} with the course's type\n",
                                       function->symbol);
                        } else {
                            fmt::print("    not offered: the submission did not build (see above)\n");
                        }
                    }
                }
                continue;
            }
            if (isolating_) continue;
            both(label, *backend);
            if (!backend->onGpu && op == Op::Compact) {
                const Backend withScan{.name = "cpu", .title = "cpu", .onGpu = false,
                                       .timer = StreamCompaction::CPU::timer,
                                       .compact = [](int n, int *out, const int *in, StreamCompaction::Predicate keep,
                                                     int *kept) {
                                           *kept = StreamCompaction::CPU::compactWithScan(n, out, in, keep);
                                       }};
                both("cpu compact with scan", withScan);
            }
        }
    }

private:
    // The course's functions of a submission's row for `op` (compactWithoutScan and
    // compactWithScan for the CPU's compaction); none for the project's rows.
    static std::vector<const Student::CourseFunction *> courseFunctionsOf(const Backend &backend, Op op) {
        std::vector<const Student::CourseFunction *> found;
        if (!StreamCompaction::timedByImplementation(backend) || (op != Op::Scan && op != Op::Compact)) return found;
        for (const Student::CourseFunction &function : Student::courseFunctions()) {
            if (std::string_view(function.row->name) == backend.name && function.compacts == (op == Op::Compact)) {
                found.push_back(&function);
            }
        }
        return found;
    }

    // After a function's two tests: the hint when it failed at SIZE - 3 alone.
    void printSizeHint(Row::Status pot, Row::Status npot, long long size) const {
        if (isolating_ || pot == Row::Status::Skipped || npot == Row::Status::Skipped) return;
        const std::string hint =
            sizeHint({{size, pot == Row::Status::Passed}, {size - 3, npot == Row::Status::Passed}});
        if (!hint.empty()) fmt::print("    hint: {}\n", hint);
    }

    // One test: its header line, then its lines, from this process or from the child
    // that ran it (a submission's function, while isolating_; the tests print nothing).
    // Returns how it ended (Skipped while isolating_).
    Row::Status test(const std::string &description, const Backend &backend, Op op, const std::vector<int> &input,
                     const Expected &want, const Student::CourseFunction *function = nullptr) {
        const bool isolate = function != nullptr && isolates_;
        if (isolating_) {
            if (isolate) isolated_[description] = runIsolated(backend, op, input, want, *function);
            return Row::Status::Skipped;
        }
        fmt::print("==== {} ====\n", description);
        const auto found = isolated_.find(description);
        if (!isolate || found == isolated_.end()) {
            const Row::Status status = runHere(backend, op, input, want).status;
            tally_.count(status);
            return status;
        }
        const Isolated &result = found->second;
        fmt::print("{}", result.printed);
        if (!result.printed.empty() && result.printed.back() != '\n') fmt::print("\n");
        if (!result.crash.empty()) fmt::print("    FAIL: {}\n", result.crash);
        if (result.outcome.crashed && !mainNote_.empty()) fmt::print("    note: {}\n", mainNote_);
        tally_.count(result.outcome.status);
        return result.outcome.status;
    }

    // Runs one test in this process and prints its lines; a submission's error (a CUDA
    // error, an exception it threw) reads "crashed", the project's propagate.
    Outcome runHere(const Backend &backend, Op op, const std::vector<int> &input, const Expected &want) {
        if (backend.onGpu && !Common::deviceAvailable()) {
            fmt::print("    skipped: no CUDA device\n");
            return {Row::Status::Skipped};
        }
        const bool ownTimer = StreamCompaction::timedByImplementation(backend);
        std::optional<Run> ran;
        try {
            ran = run(backend, op, input, settings_);
        } catch (const StreamCompaction::Unsupported &e) {
            fmt::print("    skipped: {}\n", e.what());
            return {Row::Status::Skipped};
        } catch (const std::runtime_error &e) {
            if (!ownTimer) throw;
            fmt::print("    crashed: {}\n", e.what());
            return {Row::Status::Failed, true};
        }
        const Run &result = *ran;
        fmt::print("   elapsed time: {:g}ms    ({} Measured{})\n", result.timing.medianMs,
                   backend.onGpu ? "CUDA" : "std::chrono", ownTimer ? ", timed by the implementation" : "");
        if (!result.timing.note.empty()) fmt::print("    note: {}\n", result.timing.note);
        if (!backend.onGpu) {
            fmt::print("    {}\n", TestingHelpers::formatArray(static_cast<long long>(result.output.size()),
                                                             result.output.data(), true));
        }
        const Verdict verdict = verify(op, result, want, rulesFor(backend));
        if (verdict.passed()) fmt::print("    passed{}\n", verdict.note.empty() ? "" : " (note: " + verdict.note + ")");
        else printFailure(verdict);
        if (result.trace) printExplanation(op, static_cast<long long>(input.size()), result);
        return {verdict.passed() ? Row::Status::Passed : Row::Status::Failed};
    }

    // --explain: the block under a test (timeline.h); its kernels' bytes are compared with
    // the copy ceiling, measured once in this process before the first traced call's.
    void printExplanation(Op op, long long n, const Run &result) {
        const Trace &trace = *result.trace;
        if (!copy_ && trace.unavailable.empty() && !trace.hostOnly) copy_ = measureCopyCeiling(copyCeilingBytes());
        const ExplainFigures figures{describe(op).trafficBytes(n, result.kept), copy_ ? copy_->GBs : 0};
        const Explanation explanation = explain(trace, figures);
        for (const std::string &line : explainLines(explanation)) fmt::print("{}\n", line);
        const std::string hint = trace.ownTimer ? timerHint(explanation) : "";
        if (!hint.empty()) fmt::print("    hint: {}\n", hint);
    }

    // A failed result's lines: what differed, FAIL COUNT or FAIL VALUE, and the hint.
    static void printFailure(const Verdict &verdict) {
        fmt::print("    {}\n    {}\n", verdict.detail,
                   verdict.kind == Verdict::Kind::FailCount ? "FAIL COUNT" : "FAIL VALUE");
        if (!verdict.hint.empty()) fmt::print("    hint: {}\n", verdict.hint);
    }

    // Runs one test of a submission's function in a child process (child_process.h), so
    // that a signal, an exit() or a hang ends the child alone: the child prints the
    // test's lines into a pipe and sends its outcome; one that never answers reads as
    // a crash naming `function` and how the child ended.
    Isolated runIsolated(const Backend &backend, Op op, const std::vector<int> &input, const Expected &want,
                         const Student::CourseFunction &function) {
        Isolated result;
        bool answered = false;
        ChildSettings settings = ChildSettings::capturing([&result](std::string_view chunk) {
            if (result.printed.size() < kMaxPrinted) result.printed.append(chunk);
        });
        settings.runLimitMs = limitSeconds_ * 1000;
        settings.onMessage = [&](const std::string &line) {
            int status = 0;
            int crashed = 0;
            if (std::sscanf(line.c_str(), "%d %d", &status, &crashed) != 2) return;
            result.outcome = {static_cast<Row::Status>(status), crashed != 0};
            answered = true;
        };
        const ChildExit exit = runChild(
            [&](int messages) {
                std::setvbuf(stdout, nullptr, _IOLBF, 0);  // the lines before a crash still come
                Outcome outcome{Row::Status::Failed, true};
                try {
                    outcome = runHere(backend, op, input, want);
                } catch (const std::exception &e) {
                    fmt::print("    crashed: {}\n", e.what());
                }
                std::fflush(stdout);
                sendLine(messages, fmt::format("{} {}", static_cast<int>(outcome.status), outcome.crashed ? 1 : 0));
            },
            settings);
        if (answered) return result;
        const std::string name = std::string("student-") + function.label;
        result.outcome = {Row::Status::Failed, true};
        result.crash = fmt::format("{} {}{}", name, endedText(exit, limitSeconds_),
                                   exit.timedOut || exit.signal ? "" : " during the call");
        return result;
    }

    const Options &options_;
    RunSettings settings_;
    Tally tally_;
    bool isolates_ = false;   // a submission's tests run in child processes
    bool isolating_ = false;  // this pass runs them, and prints nothing
    int limitSeconds_ = 0;    // a child still running after this long is killed
    std::map<std::string, Isolated> isolated_;  // by the test's header
    std::string mainNote_;  // what the submission's main.cpp does that the harness does not
    std::optional<CopyCeiling> copy_;  // --explain: measured before the first traced GPU call's figures
};

}  // namespace

std::string courseHeader(const Options &options) {
    return fmt::format(
        "cis565_stream_compaction {} | {} | SIZE {} = {}, NPOT {} | seed {} | block size {} | times: {}",
        SC_VERSION, gpuDescription(), formatSize(options.size), options.size, options.size - 3, options.seed,
        options.blockSize, samplingText(options));
}

namespace {

// Every section of the course, on the inputs the seed makes.
void runSections(CourseRun &course, const Options &options) {
    forEachCourseInput(options.size, options.seed, [&course](Op op, const std::vector<int> &input) {
        course.section(describe(op).courseSection, op, input);
        return true;
    });
}

}  // namespace

int runCourseSequence(const Options &options) {
    Common::setBlockSize(options.blockSize);
    CourseRun course(options);
    if (course.isolates()) {
        // Before this process's first CUDA call, so that each child makes its own context.
        course.setIsolating(true);
        runSections(course, options);
        course.setIsolating(false);
    }
    fmt::print("{}\n", courseHeader(options));
    if (Student::loaded()) {
        fmt::print("student-* back ends: the course submission in {}, timed by the implementation{}\n",
                   Student::directory(), Student::problem().empty() ? "" : " (not built: see above)");
    }

    runSections(course, options);
    fmt::print("\n{}\n", course.tally().courseSummary());
    std::fflush(stdout);
    return course.tally().exitStatus();
}

}  // namespace Harness
