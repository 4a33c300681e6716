#include "commands/grade.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <string_view>

#include <fmt/format.h>

#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>
#include <stream_compaction/student.h>

#include "measure/device_info.h"
#include "report/reporters.h"
#include "measure/runner.h"
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

void sendLine(int fd, const std::string &line) {
    const std::string text = line + "\n";
    std::size_t sent = 0;
    while (sent < text.size()) {
        const ssize_t n = write(fd, text.data() + sent, text.size() - sent);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        sent += static_cast<std::size_t>(n);
    }
}

std::string describeGpu() {
    if (!Common::deviceAvailable()) return "none (no CUDA device; GPU cases are skipped)";
    try {
        const DeviceInfo gpu = deviceInfo();
        return fmt::format("{} (sm_{}{})", gpu.name, gpu.computeMajor, gpu.computeMinor);
    } catch (const std::exception &e) {
        return std::string("unknown: ") + e.what();
    }
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
        for (std::size_t next = nextOpen(0); next < tasks_.size(); next = nextOpen(next)) next = runChild(next);
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
    static void finish(Task &task, Outcome outcome, std::string detail) {
        task.done = true;
        task.cell.outcome = outcome;
        task.cell.detail = std::move(detail);
    }

    std::size_t nextOpen(std::size_t from) const {
        while (from < tasks_.size() && tasks_[from].done) ++from;
        return from;
    }

    // The child: runs the open tasks from `start` on, one result line each, and ends
    // after the last one, or after a fault that leaves the GPU unusable.
    [[noreturn]] void childMain(int results, std::size_t start) const {
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
        std::fflush(stdout);
        _exit(0);
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

    // Runs a child from task `start`; returns where the next child starts.
    std::size_t runChild(std::size_t start) {
        std::fflush(stdout);
        std::fflush(stderr);
        int results[2], output[2];
        if (pipe(results) != 0 || pipe(output) != 0) throw std::runtime_error("--grade: cannot make a pipe");
        const pid_t pid = fork();
        if (pid < 0) throw std::runtime_error(std::string("--grade: cannot start a process: ") + std::strerror(errno));
        if (pid == 0) {
            close(results[0]);
            close(output[0]);
            // The submission's own printing (and its error checks') goes to the parent,
            // which keeps the end of it for a crash's detail.
            dup2(output[1], STDOUT_FILENO);
            dup2(output[1], STDERR_FILENO);
            close(output[1]);
            childMain(results[1], start);
        }
        close(results[1]);
        close(output[1]);

        std::size_t lastReported = tasks_.size();  // none yet
        std::string pending, printed;
        bool timedOut = false;
        pollfd fds[2] = {{results[0], POLLIN, 0}, {output[0], POLLIN, 0}};
        while (fds[0].fd >= 0) {
            const int ready = poll(fds, 2, kCaseTimeoutSeconds * 1000);
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0) {  // no result and no output for the whole time limit
                kill(pid, SIGKILL);
                timedOut = true;
            }
            for (int k = 0; k < 2; ++k) {
                if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                char buffer[4096];
                const ssize_t n = read(fds[k].fd, buffer, sizeof buffer);
                if (n <= 0) {
                    close(fds[k].fd);
                    fds[k].fd = -1;
                    continue;
                }
                if (k == 1) {
                    printed.append(buffer, static_cast<std::size_t>(n));
                    if (printed.size() > 8192) printed.erase(0, printed.size() - 4096);
                    continue;
                }
                pending.append(buffer, static_cast<std::size_t>(n));
                for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
                    received(pending.substr(0, end), lastReported, printed);
                    pending.erase(0, end + 1);
                }
            }
        }
        if (fds[1].fd >= 0) {  // what the child printed last, up to its end
            char buffer[4096];
            for (ssize_t n; (n = read(fds[1].fd, buffer, sizeof buffer)) != 0;) {
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) break;
                printed.append(buffer, static_cast<std::size_t>(n));
                if (printed.size() > 8192) printed.erase(0, printed.size() - 4096);
            }
            close(fds[1].fd);
        }
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }

        if (!lost_.empty()) {
            for (Task &task : tasks_) {
                if (!task.done && task.gpu) finish(task, Outcome::NotRun, "not run after the GPU fault");
            }
        }
        const std::size_t resume = lastReported == tasks_.size() ? start : lastReported + 1;
        const std::size_t crashed = nextOpen(resume);
        if (crashed < tasks_.size() && lost_.empty()) {
            finish(tasks_[crashed], Outcome::Crashed, howItEnded(status, timedOut, printed));
            return crashed + 1;
        }
        return crashed;
    }

    static std::string howItEnded(int status, bool timedOut, const std::string &printed) {
        std::string how = timedOut ? fmt::format("did not finish within {} s, and was stopped", kCaseTimeoutSeconds)
                          : WIFSIGNALED(status)
                              ? fmt::format("the process died of signal {} ({})", WTERMSIG(status),
                                            strsignal(WTERMSIG(status)))
                              : fmt::format("the process exited with status {} during the call", WEXITSTATUS(status));
        // The last two lines it printed, such as a course error check's message before exit().
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

    std::vector<std::string> header() const {
        std::vector<std::string> names = {"case", "n"};
        for (const auto *function : functions_) names.push_back(function->label);
        return names;
    }

    std::vector<std::string> tableRow(std::size_t c) const {
        std::vector<std::string> row = {cases_[c].label, std::to_string(cases_[c].n)};
        for (std::size_t f = 0; f < functions_.size(); ++f) row.push_back(cellText(cell(f, c)));
        return row;
    }

    std::string text() const {
        std::vector<std::vector<std::string>> rows = {header()};
        for (std::size_t c = 0; c < cases_.size(); ++c) rows.push_back(tableRow(c));
        std::vector<std::size_t> widths(rows[0].size(), 0);
        for (const auto &row : rows) {
            for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
        }
        std::string out = fmt::format("cis565_stream_compaction --grade: {}\n{}\n\n", title(), settingsLine());
        const auto line = [&](const std::vector<std::string> &row) {
            std::string text;
            for (std::size_t i = 0; i < row.size(); ++i) {
                text += i == 0 ? "" : "  ";
                text += i == 1 ? fmt::format("{:>{}}", row[i], widths[i]) : fmt::format("{:<{}}", row[i], widths[i]);
            }
            while (!text.empty() && text.back() == ' ') text.pop_back();
            return text + "\n";
        };
        out += line(rows[0]);
        std::vector<std::string> rule;
        for (std::size_t width : widths) rule.push_back(std::string(width, '-'));
        out += line(rule);
        for (std::size_t r = 1; r < rows.size(); ++r) out += line(rows[r]);
        const std::vector<std::string> below = notes();
        if (!below.empty()) out += "\n";
        for (const std::string &note : below) out += note + "\n";
        return out + "\n" + summary() + "\n";
    }

    std::string markdown() const {
        const auto row = [](const std::vector<std::string> &cells) {
            std::string text = "|";
            for (const std::string &cell : cells) text += " " + cell + " |";
            return text + "\n";
        };
        std::string out = fmt::format("**Grade** of {}\n\n{}\n\n", title(), settingsLine());
        out += row(header());
        std::vector<std::string> rule = {"---", "---:"};
        rule.resize(header().size(), "---");
        out += row(rule);
        for (std::size_t c = 0; c < cases_.size(); ++c) out += row(tableRow(c));
        const std::vector<std::string> below = notes();
        if (!below.empty()) out += "\n";
        for (const std::string &note : below) out += "- " + note + "\n";
        return out + "\n" + summary() + "\n";
    }

    static std::string csvField(const std::string &text) {
        if (text.find_first_of(",\"\n") == std::string::npos) return text;
        std::string quoted = "\"";
        for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
        return quoted + "\"";
    }

    std::string csv() const {
        std::string out = fmt::format("# cis565_stream_compaction --grade: {}\n# {}\ncase,n,function,outcome,index,detail\n",
                                      title(), settingsLine());
        for (std::size_t c = 0; c < cases_.size(); ++c) {
            for (std::size_t f = 0; f < functions_.size(); ++f) {
                const GradeCell &each = cell(f, c);
                out += fmt::format("{},{},{},{},{},{}\n", csvField(cases_[c].label), cases_[c].n,
                                   csvField(functions_[f]->label), outcomeName(each.outcome),
                                   each.index >= 0 ? std::to_string(each.index) : "", csvField(each.detail));
            }
        }
        for (const std::string &note : notes()) out += "# " + note + "\n";
        return out + "# " + summary() + "\n";
    }

    static std::string jsonString(const std::string &text) {
        std::string out = "\"";
        for (unsigned char c : text) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\t': out += "\\t"; break;
                default:
                    if (c < 0x20) out += fmt::format("\\u{:04x}", c);
                    else out += static_cast<char>(c);
            }
        }
        return out + "\"";
    }

    std::string json() const {
        std::string out = "{\n";
        out += fmt::format("  \"submission\": {},\n  \"gpu\": {},\n  \"size\": {},\n  \"seed\": {},\n  \"block_size\": {},\n",
                           jsonString(Student::directory()), jsonString(gpuLine()), options_.size, options_.seed,
                           options_.blockSize);
        out += "  \"functions\": [";
        for (std::size_t f = 0; f < functions_.size(); ++f) out += (f ? ", " : "") + jsonString(functions_[f]->label);
        out += "],\n  \"cases\": [";
        for (std::size_t c = 0; c < cases_.size(); ++c) {
            out += fmt::format("{}\n    {{\"case\": {}, \"n\": {}, \"cells\": {{", c ? "," : "", jsonString(cases_[c].label),
                               cases_[c].n);
            for (std::size_t f = 0; f < functions_.size(); ++f) {
                const GradeCell &each = cell(f, c);
                out += fmt::format("{}{}: {{\"outcome\": {}", f ? ", " : "", jsonString(functions_[f]->label),
                                   jsonString(outcomeName(each.outcome)));
                if (each.index >= 0) out += fmt::format(", \"index\": {}", each.index);
                if (!each.detail.empty()) out += ", \"detail\": " + jsonString(each.detail);
                out += "}";
            }
            out += "}}";
        }
        out += "\n  ],\n";
        out += fmt::format("  \"gpu_fault\": {},\n", lost_.empty() ? "null" : jsonString(lost_));
        out += fmt::format("  \"passed\": {},\n  \"failed\": {},\n  \"skipped\": {}\n}}\n",
                           count([](Outcome o) { return o == Outcome::Passed; }), failures(),
                           count([](Outcome o) { return o == Outcome::Skipped; }));
        return out;
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
