#include "commands/course_run.h"

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

#include "measure/device_info.h"
#include "report/reporters.h"
#include "measure/runner.h"
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

class CourseRun {
public:
    explicit CourseRun(const Options &options) : options_(options), settings_(runSettings(options)) {}

    const Tally &tally() const { return tally_; }

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
        printBanner(title);
        fmt::print("    {}\n", TestingHelpers::formatArray(static_cast<long long>(input.size()), input.data(), true));
        const std::vector<int> npotInput(input.begin(), input.end() - 3);
        const Expected potExpected = expected(op, input, settings_.keep);
        const Expected npotExpected = expected(op, npotInput, settings_.keep);
        const auto both = [&](const std::string &label, const Backend &backend) {
            test(label + ", power-of-two", backend, op, input, potExpected);
            test(label + ", non-power-of-two", backend, op, npotInput, npotExpected);
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
                        both(name, *function->row);
                    } else {
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

    void test(const std::string &description, const Backend &backend, Op op, const std::vector<int> &input,
              const Expected &want) {
        fmt::print("==== {} ====\n", description);
        if (backend.onGpu && !Common::deviceAvailable()) {
            fmt::print("    skipped: no CUDA device\n");
            tally_.count(Row::Status::Skipped);
            return;
        }
        const bool ownTimer = StreamCompaction::timedByImplementation(backend);
        std::optional<Run> ran;
        try {
            ran = run(backend, op, input, settings_);
        } catch (const StreamCompaction::Unsupported &e) {
            fmt::print("    skipped: {}\n", e.what());
            tally_.count(Row::Status::Skipped);
            return;
        } catch (const std::runtime_error &e) {
            // A submission's error (a CUDA error, an exception it threw) fails its test
            // and the sequence goes on; the project's own end the run.
            if (!ownTimer) throw;
            tally_.count(Row::Status::Failed);
            fmt::print("    crashed: {}\n", e.what());
            return;
        }
        const Run &result = *ran;
        fmt::print("   elapsed time: {:g}ms    ({} Measured{})\n", result.timing.medianMs,
                   backend.onGpu ? "CUDA" : "std::chrono", ownTimer ? ", timed by the implementation" : "");
        if (!result.timing.note.empty()) fmt::print("    note: {}\n", result.timing.note);
        if (!backend.onGpu) {
            fmt::print("    {}\n", TestingHelpers::formatArray(static_cast<long long>(result.output.size()),
                                                             result.output.data(), true));
        }
        const Verdict verdict = verify(op, result, want);
        if (verdict.passed()) {
            fmt::print("    passed\n");
            tally_.count(Row::Status::Passed);
            return;
        }
        tally_.count(Row::Status::Failed);
        fmt::print("    {}\n    {}\n", verdict.detail,
                   verdict.kind == Verdict::Kind::FailCount ? "FAIL COUNT" : "FAIL VALUE");
    }

    const Options &options_;
    RunSettings settings_;
    Tally tally_;
};

}  // namespace

std::string courseHeader(const Options &options) {
    return fmt::format(
        "cis565_stream_compaction {} | {} | SIZE {} = {}, NPOT {} | seed {} | block size {} | times: {}",
        SC_VERSION, gpuDescription(), formatSize(options.size), options.size, options.size - 3, options.seed,
        options.blockSize, samplingText(options));
}

int runCourseSequence(const Options &options) {
    Common::setBlockSize(options.blockSize);
    TestingHelpers::setSeed(options.seed);
    fmt::print("{}\n", courseHeader(options));
    if (Student::loaded()) {
        fmt::print("student-* back ends: the course submission in {}, timed by the implementation{}\n",
                   Student::directory(), Student::problem().empty() ? "" : " (not built: see above)");
    }

    CourseRun course(options);
    std::vector<int> input;
    std::vector<int> (*madeBy)(long long) = nullptr;  // the generator of `input`
    for (Op op : kAllOps) {
        const Operation &operation = describe(op);
        if (operation.courseSection == nullptr) continue;  // not one of the course's operations
        if (operation.randomInput != madeBy) input = operation.randomInput(options.size);
        madeBy = operation.randomInput;
        course.section(operation.courseSection, op, input);
    }
    fmt::print("\n{}\n", course.tally().courseSummary());
    std::fflush(stdout);
    return course.tally().exitStatus();
}

}  // namespace Harness
