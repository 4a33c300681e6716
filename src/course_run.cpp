#include "course_run.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include <stream_compaction/cpu.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>

#include "device_info.h"
#include "reporters.h"
#include "runner.h"
#include "testing_helpers.hpp"

namespace Harness {

using StreamCompaction::Backend;
using StreamCompaction::Predicate;
namespace Common = StreamCompaction::Common;

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
    explicit CourseRun(const Options &options) : options_(options) {
        settings_.warmup = options.warmup;
        settings_.reps = options.reps;
    }

    const Tally &tally() const { return tally_; }

    // One section: every chosen back end offering `op`, on the power-of-two input and
    // on its first NPOT elements. The CPU's outputs are printed, as in the course.
    void section(const std::string &title, Op op, const std::vector<int> &input) {
        const auto backends = offering(options_.backends, op);
        if (backends.empty()) return;
        printBanner(title);
        fmt::print("    {}\n", TestingHelpers::formatArray(static_cast<long long>(input.size()), input.data(), true));
        const std::vector<int> npotInput(input.begin(), input.end() - 3);
        const Expected potExpected = expected(op, input, settings_.keep);
        const Expected npotExpected = expected(op, npotInput, settings_.keep);
        for (const Backend *backend : backends) {
            const std::string label = backend->onGpu || op != Op::Compact
                                          ? fmt::format("{} {}", backend->title, opName(op))
                                          : "cpu compact without scan";
            test(label + ", power-of-two", *backend, op, input, potExpected);
            test(label + ", non-power-of-two", *backend, op, npotInput, npotExpected);
            if (!backend->onGpu && op == Op::Compact) {
                const Backend withScan{.name = "cpu", .title = "cpu", .onGpu = false,
                                       .timer = StreamCompaction::CPU::timer,
                                       .compact = StreamCompaction::CPU::compactWithScan};
                test("cpu compact with scan, power-of-two", withScan, op, input, potExpected);
                test("cpu compact with scan, non-power-of-two", withScan, op, npotInput, npotExpected);
            }
        }
    }

private:
    void test(const std::string &description, const Backend &backend, Op op, const std::vector<int> &input,
              const Expected &want) {
        fmt::print("==== {} ====\n", description);
        if (backend.onGpu && !Common::deviceAvailable()) {
            fmt::print("    skipped: no CUDA device\n");
            tally_.count(Row::Status::Skipped);
            return;
        }
        Run result;
        try {
            result = run(backend, op, input, settings_);
        } catch (const StreamCompaction::Unsupported &e) {
            fmt::print("    skipped: {}\n", e.what());
            tally_.count(Row::Status::Skipped);
            return;
        }
        fmt::print("   elapsed time: {:g}ms    ({} Measured)\n", result.timing.medianMs,
                   backend.onGpu ? "CUDA" : "std::chrono");
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
        "cis565_stream_compaction {} | {} | SIZE {} = {}, NPOT {} | seed {} | block size {} | "
        "times: median of {} calls after {} untimed",
        SC_VERSION, gpuDescription(), formatSize(options.size), options.size, options.size - 3, options.seed,
        options.blockSize, options.reps, options.warmup);
}

int runCourseSequence(const Options &options) {
    Common::setBlockSize(options.blockSize);
    TestingHelpers::setSeed(options.seed);
    fmt::print("{}\n", courseHeader(options));

    CourseRun course(options);
    std::vector<int> input;
    std::vector<int> (*madeBy)(long long) = nullptr;  // the generator of `input`
    for (Op op : kAllOps) {
        const Operation &operation = describe(op);
        if (operation.randomInput != madeBy) input = operation.randomInput(options.size);
        madeBy = operation.randomInput;
        course.section(operation.courseSection, op, input);
    }
    fmt::print("\n{}\n", course.tally().courseSummary());
    std::fflush(stdout);
    return course.tally().exitStatus();
}

}  // namespace Harness
