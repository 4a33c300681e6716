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

// The JSON and CSV spelling of an outcome; the table writes the failures in capitals.
const char *outcomeName(Outcome outcome) {
    switch (outcome) {
        case Outcome::Passed: return "passed";
        case Outcome::FailValue: return "fail value";
        case Outcome::FailCount: return "fail count";
        case Outcome::Crashed: return "crashed";
        case Outcome::NotOffered: return "not offered";
        case Outcome::NotBuilt: return "not built";
        case Outcome::Skipped: return "skipped";
        case Outcome::NotRun: return "not run";
    }
    return "";
}

}  // namespace

std::string cellText(const GradeCell &cell) {
    if (cell.outcome == Outcome::FailValue) return fmt::format("FAIL VALUE at {}", cell.index);
    if (cell.outcome == Outcome::FailCount) return "FAIL COUNT";
    return outcomeName(cell.outcome);
}

namespace {

// A child that sends nothing for this long is stopped, and its case reads "crashed".
constexpr int kCaseTimeoutSeconds = 120;

bool failed(Outcome outcome) { return outcome != Outcome::Passed && outcome != Outcome::Skipped; }

Op opOf(const Student::CourseFunction &function) { return function.compacts ? Op::Compact : Op::Scan; }

// A case's input for `op`: the course's SIZE and SIZE - 3 from one draw at the run's
// seed (the course run's input), every other case from its own seed.
std::vector<int> gradeInput(const std::vector<GradeCase> &cases, std::size_t which, Op op, std::uint64_t seed) {
    const GradeCase &c = cases[which];
    const int bound = op == Op::Scan ? 50 : 4;
    const bool courseSequence = which < 2;
    TestingHelpers::setSeed(courseSequence ? seed : seed + 1 + which);
    std::vector<int> values;
    switch (c.values) {
        case GradeCase::Values::Course:
            values = randomInput(op, courseSequence ? cases[0].n : c.n);
            values.resize(static_cast<std::size_t>(c.n));
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
        const Verdict verdict = verify(op, result, want);
        cell.detail = verdict.detail;
        if (verdict.passed()) {
            cell.outcome = Outcome::Passed;
        } else if (verdict.kind == Verdict::Kind::FailCount) {
            cell.outcome = Outcome::FailCount;
        } else {
            cell.outcome = Outcome::FailValue;
            cell.index = TestingHelpers::firstMismatch<int>(static_cast<long long>(result.output.size()),
                                                            result.output.data(), want.output.data());
        }
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
                          ? fmt::format("the process died of signal {} ({})", exit.signal, strsignal(exit.signal))
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

// The grade: the tasks, run in children, and the table they make.
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

    std::string render(Format format) const {
        switch (format) {
            case Format::Markdown: return markdown();
            case Format::Csv: return csv();
            case Format::Json: return json();
            case Format::Text: break;
        }
        return text();
    }

    long long count(bool (*test)(Outcome)) const {
        return std::count_if(tasks_.begin(), tasks_.end(), [test](const Task &t) { return test(t.cell.outcome); });
    }
    long long failures() const { return count(failed); }

private:
    std::size_t nextOpen(std::size_t from) const {
        while (from < tasks_.size() && tasks_[from].done) ++from;
        return from;
    }

    // The child: runs the open tasks from `start` on, one result line each, and ends
    // after the last one, or after a fault that leaves the GPU unusable.
    void childMain(int results, std::size_t start) const {
        Common::setBlockSize(options_.blockSize);
        sendLine(results, fmt::format("D\t{}", oneLine(describeGpu())));
        for (std::size_t i = start; i < tasks_.size(); ++i) {
            if (tasks_[i].done) continue;
            const Task &task = tasks_[i];
            const GradeCell cell = gradeOne(*functions_[task.function], cases_, task.which, options_.seed);
            sendLine(results, fmt::format("R\t{}\t{}\t{}\t{}", i, static_cast<int>(cell.outcome), cell.index,
                                          oneLine(cell.detail)));
            if (!Common::deviceLost().empty()) {
                sendLine(results, "L\t" + oneLine(Common::deviceLost()));
                break;
            }
        }
    }

    // One result line from a child.
    void received(const std::string &line, std::size_t &lastReported, std::string &output) {
        if (line.rfind("D\t", 0) == 0) {
            if (gpu_.empty()) gpu_ = line.substr(2);
        } else if (line.rfind("L\t", 0) == 0) {
            lost_ = line.substr(2);
        } else if (line.rfind("R\t", 0) == 0) {
            std::size_t i = 0;
            int outcome = 0;
            long long index = -1;
            int consumed = 0;
            if (std::sscanf(line.c_str(), "R\t%zu\t%d\t%lld\t%n", &i, &outcome, &index, &consumed) < 3 ||
                i >= tasks_.size()) {
                return;
            }
            Task &task = tasks_[i];
            finish(task, static_cast<Outcome>(outcome), line.substr(static_cast<std::size_t>(consumed)));
            task.cell.index = index;
            lastReported = i;
            output.clear();  // what a crash prints is what came after the last finished case
        }
    }

    // Runs a child from task `start`; returns where the next child starts. The child's
    // own printing (and its error checks') comes to this process, which keeps the end of
    // it for a crash's detail; a child silent for kCaseTimeoutSeconds is stopped.
    std::size_t runFrom(std::size_t start) {
        std::size_t lastReported = tasks_.size();  // none yet
        std::string printed;
        ChildSettings settings;
        settings.silenceLimitMs = kCaseTimeoutSeconds * 1000;
        settings.stdoutTo = ChildSettings::Output::Capture;
        settings.stderrTo = ChildSettings::Output::Capture;
        settings.onMessage = [&](const std::string &line) { received(line, lastReported, printed); };
        settings.onOutput = [&printed](std::string_view chunk) {
            printed.append(chunk);
            if (printed.size() > 8192) printed.erase(0, printed.size() - 4096);
        };
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

    const GradeCell &cell(std::size_t function, std::size_t which) const {
        for (const Task &task : tasks_) {
            if (task.function == function && task.which == which) return task.cell;
        }
        static const GradeCell none;
        return none;
    }

    std::string gpuLine() const { return gpu_.empty() ? "not queried" : gpu_; }

    std::string title() const {
        return fmt::format("the course submission in {}", Student::directory().empty() ? "?" : Student::directory());
    }

    std::string settingsLine() const {
        return fmt::format("GPU: {} | SIZE {} | seed {} | block size {} | one call per case, on an output poisoned "
                           "with 0x{:X} bytes, checked against the project's references",
                           gpuLine(), formatSize(options_.size), options_.seed, options_.blockSize, kPoisonByte);
    }

    // The lines under the table: what failed and why, a column's "not offered" once, the
    // GPU fault, the counts.
    std::vector<std::string> notes() const {
        std::vector<std::string> lines;
        for (std::size_t f = 0; f < functions_.size(); ++f) {
            const GradeCell &first = cell(f, 0);
            if (first.outcome == Outcome::NotOffered || first.outcome == Outcome::NotBuilt) {
                lines.push_back(fmt::format("{}: {}: {}", functions_[f]->label, cellText(first), first.detail));
                continue;
            }
            for (std::size_t c = 0; c < cases_.size(); ++c) {
                const GradeCell &each = cell(f, c);
                if (!failed(each.outcome) || each.outcome == Outcome::NotRun) continue;
                lines.push_back(fmt::format("{}, {}: {}{}", functions_[f]->label, cases_[c].label, cellText(each),
                                            each.detail.empty() ? "" : ": " + each.detail));
            }
        }
        if (!lost_.empty()) {
            lines.push_back(fmt::format("GPU cases stop here: {}; the remaining GPU cases are not run", lost_));
        }
        const long long skipped = count([](Outcome o) { return o == Outcome::Skipped; });
        if (skipped > 0) lines.push_back(fmt::format("{} skipped: no CUDA device", skipped));
        return lines;
    }

    std::string summary() const {
        return fmt::format("{} passed, {} failed", count([](Outcome o) { return o == Outcome::Passed; }), failures());
    }

    // The table of cases x functions: the case's label and n, then a cell per function.
    Table table(std::string title) const {
        Table t{std::move(title), {"case", "n"}, {}, {Table::Align::Left, Table::Align::Right}};
        for (const auto *function : functions_) {
            t.header.push_back(function->label);
            t.align.push_back(Table::Align::Left);
        }
        for (std::size_t c = 0; c < cases_.size(); ++c) {
            std::vector<std::string> row = {cases_[c].label, std::to_string(cases_[c].n)};
            for (std::size_t f = 0; f < functions_.size(); ++f) row.push_back(cellText(cell(f, c)));
            t.rows.push_back(std::move(row));
        }
        return t;
    }

    std::string text() const {
        std::string out =
            textTable(table(fmt::format("cis565_stream_compaction --grade: {}\n{}\n", title(), settingsLine())));
        for (const std::string &note : notes()) out += note + "\n";
        return out + "\n" + summary() + "\n";
    }

    std::string markdown() const {
        std::string out = markdownTable(table("Grade of " + title()));
        out += settingsLine() + "\n\n";
        for (const std::string &note : notes()) out += "- " + note + "\n";
        return out + "\n" + summary() + "\n";
    }

    // One line per case and function under a header line: plain CSV.
    std::string csv() const {
        std::string out = "case,n,function,outcome,index,detail\n";
        for (std::size_t c = 0; c < cases_.size(); ++c) {
            for (std::size_t f = 0; f < functions_.size(); ++f) {
                const GradeCell &each = cell(f, c);
                out += fmt::format("{},{},{},{},{},{}\n", csvField(cases_[c].label), cases_[c].n,
                                   csvField(functions_[f]->label), outcomeName(each.outcome),
                                   each.index >= 0 ? std::to_string(each.index) : "", csvField(each.detail));
            }
        }
        return out;
    }

    std::string json() const {
        nlohmann::ordered_json out;
        out["submission"] = Student::directory();
        out["gpu"] = gpuLine();
        out["size"] = options_.size;
        out["seed"] = options_.seed;
        out["block_size"] = options_.blockSize;
        out["functions"] = nlohmann::ordered_json::array();
        for (const auto *function : functions_) out["functions"].push_back(function->label);
        out["cases"] = nlohmann::ordered_json::array();
        for (std::size_t c = 0; c < cases_.size(); ++c) {
            nlohmann::ordered_json cells = nlohmann::ordered_json::object();
            for (std::size_t f = 0; f < functions_.size(); ++f) {
                const GradeCell &each = cell(f, c);
                nlohmann::ordered_json one = {{"outcome", outcomeName(each.outcome)}};
                if (each.index >= 0) one["index"] = each.index;
                if (!each.detail.empty()) one["detail"] = each.detail;
                cells[functions_[f]->label] = std::move(one);
            }
            out["cases"].push_back({{"case", cases_[c].label}, {"n", cases_[c].n}, {"cells", std::move(cells)}});
        }
        out["gpu_fault"] = lost_.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(lost_);
        out["passed"] = count([](Outcome o) { return o == Outcome::Passed; });
        out["failed"] = failures();
        out["skipped"] = count([](Outcome o) { return o == Outcome::Skipped; });
        return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
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
    fmt::print("{}", grade.render(options.format));
    std::fflush(stdout);
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string report = grade.render(*formatForPath(options.outputs[i]));
        const bool written = std::fwrite(report.data(), 1, report.size(), files[i]) == report.size();
        if (std::fclose(files[i]) != 0 || !written) {
            throw std::runtime_error(fmt::format("--output: writing '{}' failed", options.outputs[i]));
        }
    }
    return grade.failures() == 0 ? 0 : 1;
}

}  // namespace Harness
