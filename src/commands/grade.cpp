#include "commands/grade.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>
#include <stream_compaction/student.h>

#include "measure/device_info.h"
#include "measure/runner.h"
#include "platform/child_process.h"
#include "report/reporters.h"
#include "report/tables.h"
#include "testing_helpers.hpp"

namespace Harness {

using StreamCompaction::Backend;
namespace Common = StreamCompaction::Common;
namespace Student = StreamCompaction::Student;
using Outcome = GradeCell::Outcome;

std::vector<GradeCase> gradeCases(long long size) {
    const bool powerOfTwo = (size & (size - 1)) == 0;
    std::vector<GradeCase> cases = {
        {formatSize(size) + " (the course's)", size, GradeCase::Values::Course},
        {(powerOfTwo ? formatSize(size) + " - 3" : std::to_string(size - 3)) + " (the course's)", size - 3,
         GradeCase::Values::Course},
    };
    const std::pair<long long, const char *> sizes[] = {
        {1, "1"},     {2, "2"},     {3, "3"},         {31, "31"},          {32, "32"},         {33, "33"},
        {127, "127"}, {129, "129"}, {1000, "1000"}, {(1 << 16) - 1, "2^16 - 1"}, {(1 << 20) + 1, "2^20 + 1"},
        {(1 << 24) + 7, "2^24 + 7"}};
    for (const auto &[n, label] : sizes) cases.push_back({std::string("n = ") + label, n, GradeCase::Values::Course});
    constexpr long long kValuesSize = 10000;
    cases.push_back({"all zeros (n = 10000)", kValuesSize, GradeCase::Values::Zeros});
    cases.push_back({"no zeros (n = 10000)", kValuesSize, GradeCase::Values::NoZeros});
    cases.push_back({"negative values (n = 10000)", kValuesSize, GradeCase::Values::Negative});
    return cases;
}

namespace {

// A child that sends nothing for this long is stopped, and its case reads "crashed".
constexpr int kCaseTimeoutSeconds = 120;

Op opOf(const Student::CourseFunction &function) { return function.compacts ? Op::Compact : Op::Scan; }

// A case's input for `op`: the course's SIZE and SIZE - 3 are the course run's inputs
// at the run's seed (forEachCourseInput), every other case is drawn from its own seed.
std::vector<int> gradeInput(const std::vector<GradeCase> &cases, std::size_t which, Op op, std::uint64_t seed) {
    const GradeCase &c = cases[which];
    const int bound = op == Op::Scan ? 50 : 4;
    std::vector<int> values;
    if (which < 2) {
        forEachCourseInput(cases[0].n, seed, [&](Op each, const std::vector<int> &input) {
            if (each == op) values.assign(input.begin(), input.begin() + c.n);
            return each != op;
        });
        return values;
    }
    TestingHelpers::setSeed(seed + 1 + which);
    switch (c.values) {
        case GradeCase::Values::Course:
            values = randomInput(op, c.n);
            break;
        case GradeCase::Values::Zeros: values.assign(static_cast<std::size_t>(c.n), 0); break;
        case GradeCase::Values::NoZeros:
        case GradeCase::Values::Negative: {
            const bool negative = c.values == GradeCase::Values::Negative;
            std::uniform_int_distribution<int> draws(negative ? -bound : 1, bound - 1);
            values.resize(static_cast<std::size_t>(c.n));
            for (int &v : values) v = draws(TestingHelpers::generator());
            break;
        }
    }
    return values;
}

// One function on one case: a single call on a poisoned output, checked.
GradeCell gradeOne(const Student::CourseFunction &function, const std::vector<GradeCase> &cases, std::size_t which,
                   std::uint64_t seed) {
    GradeCell cell = {};
    if (function.row->onGpu && !Common::deviceAvailable()) {
        cell.outcome = Outcome::Skipped;
        cell.detail = "no CUDA device";
        return cell;
    }
    const Op op = opOf(function);
    const std::vector<int> input = gradeInput(cases, which, op, seed);
    const Expected want = expected(op, input, StreamCompaction::Predicate::nonZero());
    RunSettings settings;
    settings.warmup = 0;
    settings.reps = 1;
    try {
        const Run result = run(*function.row, op, input, settings);
        const Verdict verdict = verify(op, result, want, Rules::Course);
        cell.outcome = verdict.passed()                           ? Outcome::Passed
                       : verdict.kind == Verdict::Kind::FailCount ? Outcome::FailCount
                                                                  : Outcome::FailValue;
        cell.index = verdict.index;
        cell.detail = verdict.passed() ? verdict.note : verdict.detail;
        cell.hint = verdict.hint;
    } catch (const std::exception &e) {
        cell.outcome = Outcome::Crashed;
        cell.detail = e.what();
    }
    return cell;
}

// A column and a row of the table, and the cell between them.
struct Task {
    std::size_t function;
    std::size_t which;  // the case
    bool gpu;
    bool done = false;
    GradeCell cell = {};
};

std::string describeGpu() {
    if (!Common::deviceAvailable()) return "none (no CUDA device; GPU cases are skipped)";
    try {
        const DeviceInfo gpu = deviceInfo();
        return fmt::format("{} (sm_{}{})", gpu.name, gpu.computeMajor, gpu.computeMinor);
    } catch (const std::exception &e) {
        return std::string("unknown: ") + e.what();
    }
}

// A task done, with its outcome.
void finish(Task &task, Outcome outcome, std::string detail) {
    task.done = true;
    task.cell.outcome = outcome;
    task.cell.detail = std::move(detail);
}

// How a child that ended during a call ended, with the last two lines it printed (such as
// a course error check's message before exit()).
std::string howItEnded(const ChildExit &exit, const std::string &printed) {
    std::string how = exit.timedOut ? fmt::format("did not finish within {} s, and was stopped", kCaseTimeoutSeconds)
                      : exit.signal
                          ? "the process died of " + signalText(exit.signal)
                          : fmt::format("the process exited with status {} during the call", exit.status);
    std::vector<std::string> lines;
    std::string line;
    for (char c : printed) {
        if (c == '\n') {
            if (!line.empty()) lines.push_back(line);
            line.clear();
        } else {
            line += c;
        }
    }
    if (!line.empty()) lines.push_back(line);
    if (!lines.empty()) {
        const std::size_t from = lines.size() > 2 ? lines.size() - 2 : 0;
        std::string tail;
        for (std::size_t i = from; i < lines.size(); ++i) tail += (tail.empty() ? "" : " | ") + lines[i];
        how += "; it printed: " + tail;
    }
    return how;
}

// A child's message to the parent: one line of JSON ({"gpu": ...}, {"lost": ...} or a
// cell, {"task": i, "outcome": ..., ...}).
std::string message(const nlohmann::json &fields) {
    return fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string cellMessage(std::size_t task, const GradeCell &cell) {
    return message({{"task", task}, {"outcome", static_cast<int>(cell.outcome)}, {"index", cell.index},
                    {"detail", cell.detail}, {"hint", cell.hint}});
}

// The grade: the tasks, run in children, and the results they make.
class Grade {
public:
    Grade(const Options &options, std::vector<const Student::CourseFunction *> functions)
        : options_(options), functions_(std::move(functions)), cases_(gradeCases(options.size)) {
        // The CPU's columns first, so that a GPU fault leaves them all run.
        for (int gpuPass = 0; gpuPass < 2; ++gpuPass) {
            for (std::size_t f = 0; f < functions_.size(); ++f) {
                if (functions_[f]->row->onGpu != (gpuPass == 1)) continue;
                for (std::size_t c = 0; c < cases_.size(); ++c) tasks_.push_back({f, c, gpuPass == 1});
            }
        }
        for (Task &task : tasks_) {
            const Student::CourseFunction &function = *functions_[task.function];
            if (!Student::problem().empty()) {
                finish(task, Outcome::NotBuilt, "the submission did not build");
            } else if (!function.offered) {
                finish(task, Outcome::NotOffered,
                       fmt::format("the submission defines no {} with the course's type", function.symbol));
            }
        }
    }

    void run() {
        for (std::size_t next = nextOpen(0); next < tasks_.size(); next = nextOpen(next)) next = runFrom(next);
    }

    GradeResults results() const {
        GradeResults out{Student::directory(), gpu_, options_.size, options_.seed, options_.blockSize, {}, cases_,
                         std::vector<std::vector<GradeCell>>(functions_.size(), std::vector<GradeCell>(cases_.size())),
                         lost_};
        for (const auto *function : functions_) out.functions.push_back(function->label);
        for (const Task &task : tasks_) out.cells[task.function][task.which] = task.cell;
        return out;
    }

private:
    std::size_t nextOpen(std::size_t from) const {
        while (from < tasks_.size() && tasks_[from].done) ++from;
        return from;
    }

    // The child: runs the open tasks from `start` on, one message each, and ends after
    // the last one, or after a fault that leaves the GPU unusable.
    void childMain(int results, std::size_t start) const {
        Common::setBlockSize(options_.blockSize);
        sendLine(results, message({{"gpu", describeGpu()}}));
        for (std::size_t i = start; i < tasks_.size(); ++i) {
            if (tasks_[i].done) continue;
            const Task &task = tasks_[i];
            sendLine(results, cellMessage(i, gradeOne(*functions_[task.function], cases_, task.which, options_.seed)));
            if (!Common::deviceLost().empty()) {
                sendLine(results, message({{"lost", Common::deviceLost()}}));
                break;
            }
        }
    }

    // One message from a child.
    void received(const std::string &line, std::size_t &lastReported, std::string &output) {
        const nlohmann::json fields = nlohmann::json::parse(line, nullptr, false);
        if (!fields.is_object()) return;
        if (fields.contains("gpu") && gpu_.empty()) gpu_ = fields["gpu"].get<std::string>();
        if (fields.contains("lost")) lost_ = fields["lost"].get<std::string>();
        if (!fields.contains("task")) return;
        const auto i = fields["task"].get<std::size_t>();
        if (i >= tasks_.size()) return;
        Task &task = tasks_[i];
        finish(task, static_cast<Outcome>(fields["outcome"].get<int>()), fields["detail"].get<std::string>());
        task.cell.index = fields["index"].get<long long>();
        task.cell.hint = fields["hint"].get<std::string>();
        lastReported = i;
        output.clear();  // what a crash prints is what came after the last finished case
    }

    // Runs a child from task `start`; returns where the next child starts. The child's
    // own printing (and its error checks') comes to this process, which keeps the end of
    // it for a crash's detail; a child silent for kCaseTimeoutSeconds is stopped.
    std::size_t runFrom(std::size_t start) {
        std::size_t lastReported = tasks_.size();  // none yet
        std::string printed;
        ChildSettings settings = ChildSettings::capturing([&printed](std::string_view chunk) {
            printed.append(chunk);
            if (printed.size() > 8192) printed.erase(0, printed.size() - 4096);
        });
        settings.silenceLimitMs = kCaseTimeoutSeconds * 1000;
        settings.onMessage = [&](const std::string &line) { received(line, lastReported, printed); };
        ChildExit exit;
        try {
            exit = runChild([this, start](int results) { childMain(results, start); }, settings);
        } catch (const std::runtime_error &e) {
            throw std::runtime_error(std::string("--grade: ") + e.what());
        }
        if (!lost_.empty()) {
            for (Task &task : tasks_) {
                if (!task.done && task.gpu) finish(task, Outcome::NotRun, "not run after the GPU fault");
            }
        }
        const std::size_t resume = lastReported == tasks_.size() ? start : lastReported + 1;
        const std::size_t crashed = nextOpen(resume);
        if (crashed < tasks_.size() && lost_.empty()) {
            finish(tasks_[crashed], Outcome::Crashed, howItEnded(exit, printed));
            return crashed + 1;
        }
        return crashed;
    }

    const Options &options_;
    std::vector<const Student::CourseFunction *> functions_;
    std::vector<GradeCase> cases_;
    std::vector<Task> tasks_;
    std::string gpu_;   // the first child's description of the GPU
    std::string lost_;  // why the GPU cannot be used, after a sticky fault
};

}  // namespace

int runGrade(const Options &options) {
    // The chosen back ends' functions (every one by default), in the course's order.
    std::vector<const Student::CourseFunction *> functions;
    for (const Student::CourseFunction &function : Student::courseFunctions()) {
        if (std::find(options.backends.begin(), options.backends.end(), function.row->name) != options.backends.end()) {
            functions.push_back(&function);
        }
    }
    std::vector<std::FILE *> files;
    for (const std::string &path : options.outputs) {
        std::FILE *file = std::fopen(path.c_str(), "w");
        if (!file) {
            for (std::FILE *open : files) std::fclose(open);
            fmt::print(stderr, "cis565_stream_compaction: --output: cannot write '{}': {}\n", path, std::strerror(errno));
            return 2;
        }
        files.push_back(file);
    }
    Grade grade(options, std::move(functions));
    grade.run();
    const GradeResults results = grade.results();
    fmt::print("{}", renderGrade(results, options.format));
    std::fflush(stdout);
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string report = renderGrade(results, *formatForPath(options.outputs[i]));
        const bool written = std::fwrite(report.data(), 1, report.size(), files[i]) == report.size();
        if (std::fclose(files[i]) != 0 || !written) {
            throw std::runtime_error(fmt::format("--output: writing '{}' failed", options.outputs[i]));
        }
    }
    return gradeFailed(results) == 0 ? 0 : 1;
}

}  // namespace Harness
