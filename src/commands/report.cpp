#include "commands/report.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/student.h>

#include "cli/cli.h"
#include "platform/child_process.h"
#include "platform/platform.h"
#include "platform/progress.h"
#include "report/performance.h"
#include "sweep/plan.h"

namespace Harness {

namespace Student = StreamCompaction::Student;
namespace fs = std::filesystem;

namespace {

constexpr const char *kProgram = "cis565_stream_compaction report";
constexpr const char *kUsage = "usage: cis565_stream_compaction report [--out DIR] [--quick] [--quiet]";
// Thrust's scan traced, beside performance.md, which links it.
constexpr const char *kTraceFile = "thrust-scan-timeline.json";

// scripts/plot of the source tree the program was built from (CMakeLists.txt).
#ifdef SC_PLOT_SCRIPT
constexpr const char *kPlotScript = SC_PLOT_SCRIPT;
#else
constexpr const char *kPlotScript = "scripts/plot";
#endif

struct ReportOptions {
    std::string out = "performance";
    bool quick = false;
    bool quiet = false;
    bool help = false;
};

ReportOptions parseArgs(const std::vector<std::string> &args) {
    ReportOptions options;
    CLI::App app{"", kProgram};
    app.set_help_flag();
    app.add_flag("-h,--help", options.help);
    app.add_option("--out", options.out)->type_name("DIR");
    app.add_flag("--quick", options.quick);
    app.add_flag("--quiet", options.quiet);
    std::vector<std::string> words(args.rbegin(), args.rend());  // CLI11 takes them last first
    try {
        app.parse(words);
    } catch (const CLI::ParseError &e) {
        throw BadInput(fmt::format("{}; {}", e.what(), kUsage));
    }
    if (options.out.empty()) throw BadInput(fmt::format("--out needs a folder; {}", kUsage));
    return options;
}

constexpr const char *kHelp =
    "Writes the course's Performance Analysis section for your own code (STUDENT=DIR; without it, for the\n"
    "project's own cpu, naive, efficient and thrust back ends) into a folder, ready to paste into a README:\n"
    "performance.md with 1. block sizes (naive and work-efficient, 128 to 1024 threads), 2. array sizes (every\n"
    "scan and compaction against the CPU, with the project's decoupled look-back and CUB as references, as\n"
    "tables and plots), 3. the bottlenecks, 4. Thrust's timeline, 5. the course's test output. The runs'\n"
    "own reports go to DIR/data/. Sized for about 2 minutes on a data-centre GPU; without a GPU, the CPU parts.\n"
    "\n"
    "  --out DIR   the folder (default: performance)\n"
    "  --quick     smaller sizes and shorter sampling, sized for about a minute on a laptop GPU\n"
    "  --quiet     no progress line\n"
    "\n"
    "Exit status: 0 written, 1 the submission did not build or the folder cannot be written, 2 bad input.\n";

// One run of the program: its arguments, what the progress line calls it, and how many
// progress units it is (the course's tests, or a sweep's cells).
struct Step {
    std::string what;
    std::vector<std::string> args;
    long long units = 1;
    bool sweep = false;  // units are CSV rows on stdout, else the course's "==== " headers
};

// What the report is about and how large it is.
struct Plan {
    CourseBackends backends;
    std::string whose;
    bool gpu = false;
    bool quick = false;
    fs::path data;  // the runs' own files
    std::string maxTime() const { return quick ? "0.1s" : "0.25s"; }
};

// The course's tests the chosen back ends print: two per function (one for a function not offered).
long long courseTests(const CourseBackends &backends) {
    long long tests = 0;
    for (const std::string &name : backends.course()) {
        const StreamCompaction::Backend *row = StreamCompaction::findBackend(name);
        if (!row) continue;
        if (StreamCompaction::timedByImplementation(*row)) {
            for (const Student::CourseFunction &f : Student::courseFunctions()) tests += f.row->name == name ? 2 : 0;
            continue;
        }
        for (Op op : kAllOps) tests += describe(op).courseSection && offers(*row, op) ? 2 : 0;
        tests += row->onGpu ? 0 : 2;  // the CPU's compaction with scan
    }
    return std::max<long long>(tests, 1);
}

// A sweep's cells, as the program would count them for these arguments.
long long sweepCells(const std::vector<std::string> &args) {
    std::vector<const char *> argv = {"cis565_stream_compaction"};
    for (const std::string &arg : args) argv.push_back(arg.c_str());
    Options options;
    if (parseCommandLine(static_cast<int>(argv.size()), argv.data(), options) >= 0) return 1;
    return std::max<long long>(cellCount(options), 1);
}

Step courseStep(const Plan &plan) {
    Step step{"the course's tests", {"--backends", fmt::format("{}", fmt::join(plan.backends.course(), ","))}};
    if (plan.quick) step.args.insert(step.args.end(), {"--max-time", plan.maxTime()});
    step.units = courseTests(plan.backends);
    return step;
}

Step sweepStep(const Plan &plan, std::string what, std::vector<std::string> args, const std::string &name,
               const std::vector<std::string> &names) {
    args.insert(args.end(), {"--ops", offeredOps(names), "--max-time", plan.maxTime(), "--quiet", "--format", "csv",
                             "--output", (plan.data / (name + ".json")).string(), "--output",
                             (plan.data / (name + ".csv")).string()});
    Step step{std::move(what), std::move(args), 1, true};
    step.units = sweepCells(step.args);
    return step;
}

Step blocksStep(const Plan &plan) {
    const std::vector<std::string> names = {plan.backends.naive, plan.backends.efficient};
    return sweepStep(plan, "block sizes",
                     {"--sizes", plan.quick ? "2^20" : "2^24", "--block-sizes", "128,256,512,1024", "--backends",
                      fmt::format("{}", fmt::join(names, ","))},
                     "blocks", names);
}

Step sizesStep(const Plan &plan, int blockSize) {
    std::vector<std::string> names = plan.backends.course();
    names.insert(names.end(), plan.backends.references.begin(), plan.backends.references.end());
    if (!plan.gpu) names = {plan.backends.cpu};
    std::vector<std::string> args = {"--sizes", plan.quick ? "2^10:2^22:2" : "2^10:2^26:2", "--no-npot",
                                     "--block-size", std::to_string(blockSize), "--backends",
                                     fmt::format("{}", fmt::join(names, ","))};
    if (plan.gpu) args.push_back("--explain");  // one more call of each cell, traced
    return sweepStep(plan, "array sizes", std::move(args), "sizes", names);
}

// The Thrust scan whose timeline section 4 shows: the submission's, else the project's.
std::string thrustOf(const CourseBackends &backends) {
    const StreamCompaction::Backend *row = StreamCompaction::findBackend(backends.thrust);
    return row && row->scan ? backends.thrust : "thrust";
}

Step timelineStep(const Plan &plan, const fs::path &trace) {
    return {"Thrust's timeline",
            {"explain", "--backends", thrustOf(plan.backends), "--op", "scan", "--size", "2^20", "--trace", trace.string()}};
}

// Whether a line of a step's output is one of its units: a sweep's CSV row (after the
// header, each row opens with the run's id), or a course test's "==== " header.
bool countsAUnit(const Step &step, const std::string &line, bool &header, std::string &runId) {
    if (!step.sweep) return line.rfind("==== ", 0) == 0;
    if (line.rfind("run_id,", 0) == 0) {
        header = true;
        return false;
    }
    if (!header) return false;
    if (runId.empty() && line.find(',') != std::string::npos) runId = line.substr(0, line.find(',') + 1);
    return !runId.empty() && line.rfind(runId, 0) == 0;
}

// What a run printed (stdout and stderr together) and how it ended.
struct Ran {
    std::string output;
    ChildExit exit;
};

// Runs the steps one after another as child processes of the program, with one progress
// line over all their units (on a terminal), or a line per step (elsewhere, unless quiet).
class Runner {
public:
    Runner(long long total, int steps, const ReportOptions &options, std::FILE *err)
        : line_(!options.quiet && stderrIsTerminal()), quiet_(options.quiet), steps_(steps), err_(err),
          progress_(total, line_, "report: ") {}

    Ran run(const Step &step) {
        ++number_;
        if (!line_ && !quiet_) fmt::print(err_, "report: {} of {}: {}\n", number_, steps_, step.what);
        const long long start = done_;
        progress_.show(done_ + 1, step.what);
        Ran ran;
        std::string pending, runId;
        bool header = false;
        ChildSettings settings = ChildSettings::capturing([&](std::string_view chunk) {
            ran.output.append(chunk);
            pending.append(chunk);
            for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
                const bool unit = countsAUnit(step, pending.substr(0, end), header, runId);
                pending.erase(0, end + 1);
                if (unit && done_ + 1 < start + step.units) progress_.show(++done_ + 1, step.what);
            }
        });
        settings.endWithParent = true;  // a report stopped stops its runs
        ran.exit = runProgram(thisProgram(""), step.args, settings);
        done_ = start + step.units;
        progress_.clear();
        return ran;
    }

private:
    bool line_, quiet_;
    int steps_, number_ = 0;
    std::FILE *err_;
    Progress progress_;
    long long done_ = 0;
};

// The last line a run printed, for a reason it stopped.
std::string lastLine(const std::string &output) {
    std::istringstream lines(output);
    std::string last;
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) last = line;
    }
    return last;
}

// Why a run left nothing to read: the signal that ended it, else the last line it printed.
std::string whyStopped(const Ran &ran) {
    return ran.exit.signal ? "the run ended by " + signalText(ran.exit.signal) : lastLine(ran.output);
}

// A sweep's JSON report read back; none when the run left none, with why in `missing`
// and, named by `what`, in `skipped`.
std::optional<JsonReport> readBack(const fs::path &path, const Ran &ran, const std::string &what,
                                   std::vector<std::string> &skipped, std::string &missing) {
    std::ifstream in(path);
    try {
        if (!in) throw std::runtime_error("no report");
        JsonReport report = readJsonReport(in, path.string());
        if (ran.exit.signal == 0) return report;
    } catch (const std::runtime_error &) {
    }
    missing = whyStopped(ran);
    skipped.push_back(what + ": " + missing);
    return std::nullopt;
}

// Section 4 from the explain subcommand's run: its timeline (the lines before the one that
// names the trace file) and the trace file beside performance.md, or why it has none.
void addTimeline(PerformanceInputs &inputs, const Ran &ran, const Plan &plan) {
    std::istringstream lines(ran.output);
    std::string timeline;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("trace: ", 0) != 0) timeline += line + "\n";
    }
    if (ran.exit.status == 0 && fs::exists(plan.data.parent_path() / kTraceFile)) {
        inputs.thrustTimeline = timeline;
        inputs.thrustTrace = kTraceFile;
        return;
    }
    // Its verdict line says why ("verdict: unavailable: CUPTI ..."), else how the run ended.
    const std::size_t verdict = timeline.find("verdict: ");
    inputs.thrustUntraced = verdict == std::string::npos
                                ? whyStopped(ran)
                                : timeline.substr(verdict + 9, timeline.find('\n', verdict) - verdict - 9);
}

// The course's tests, the block sizes (with a GPU), the array sizes at the block size the
// work-efficient scan was fastest at, and Thrust's timeline (with a GPU); each run's own
// files under plan.data.
PerformanceInputs measure(const Plan &plan, const ReportOptions &options, std::FILE *err) {
    PerformanceInputs inputs;
    inputs.backends = plan.backends;
    inputs.whose = plan.whose;
    inputs.command = fmt::format("cis565_stream_compaction report{}{}", options.quick ? " --quick" : "",
                                 options.out == "performance" ? "" : " --out " + options.out);
    const std::vector<std::string> blockNames = {plan.backends.naive, plan.backends.efficient};
    const bool offered = !offering(blockNames, Op::Scan).empty() || !offering(blockNames, Op::Compact).empty();
    const Step course = courseStep(plan);
    const std::optional<Step> blocks = plan.gpu && offered ? std::optional(blocksStep(plan)) : std::nullopt;
    Step sizes = sizesStep(plan, 128);
    const std::optional<Step> timeline =
        plan.gpu ? std::optional(timelineStep(plan, plan.data.parent_path() / kTraceFile)) : std::nullopt;
    Runner runner(course.units + (blocks ? blocks->units : 0) + sizes.units + (timeline ? 1 : 0),
                  2 + (blocks ? 1 : 0) + (timeline ? 1 : 0), options, err);
    const Ran tests = runner.run(course);
    inputs.testOutput = tests.output;
    std::ofstream(plan.data / "course-run.txt") << tests.output;
    if (tests.exit.signal) inputs.skipped.push_back("the tests: the run ended by " + signalText(tests.exit.signal));
    int block = 128;
    if (!plan.gpu) {
        inputs.blocksMissing = "no CUDA device";
        inputs.skipped.push_back("the block sizes, the GPU's figures and Thrust's timeline: no CUDA device");
    } else if (!blocks) {
        inputs.blocksMissing = "the naive and work-efficient functions are not offered";
    } else {
        inputs.blocks = readBack(plan.data / "blocks.json", runner.run(*blocks), "block sizes", inputs.skipped,
                                 inputs.blocksMissing);
        if (inputs.blocks) block = bestBlockSize(*inputs.blocks, plan.backends.efficient, Op::Scan).value_or(block);
        inputs.sizesBlockSize = block;
    }
    sizes.args = sizesStep(plan, block).args;
    inputs.sizes = readBack(plan.data / "sizes.json", runner.run(sizes), "array sizes", inputs.skipped,
                            inputs.sizesMissing);
    if (timeline) addTimeline(inputs, runner.run(*timeline), plan);
    return inputs;
}

// The array-size plots (scripts/plot) beside performance.md; their file names.
std::vector<std::string> plot(const Plan &plan, const fs::path &dir, std::vector<std::string> &skipped) {
    const fs::path csv = plan.data / "sizes.csv";
    if (!fs::exists(csv)) return {};
    std::string output;
    const ChildSettings settings = ChildSettings::capturing([&output](std::string_view chunk) { output.append(chunk); });
    ChildExit exit;
    try {
        exit = runProgram("python3", {kPlotScript, csv.string(), "--out", dir.string(), "--name", "sizes", "--reference",
                                      fmt::format("{}", fmt::join(plan.backends.references, ","))},
                          settings);
    } catch (const std::runtime_error &) {
        skipped.push_back("the plots: python3 is not installed (Debian: sudo apt install python3 python3-matplotlib)");
        return {};
    }
    if (exit.status != 0) skipped.push_back("the plots: " + lastLine(output));
    std::vector<std::string> images;
    for (const char *op : {"scan", "compact"}) {
        for (const char *kind : {"time", "bandwidth"}) {
            const std::string name = fmt::format("sizes-{}-{}.png", op, kind);
            if (exit.status == 0 && fs::exists(dir / name)) images.push_back(name);
        }
    }
    return images;
}

Plan makePlan(const ReportOptions &options) {
    Plan plan;
    plan.quick = options.quick;
    plan.gpu = StreamCompaction::Common::deviceAvailable();
    plan.data = fs::path(options.out) / "data";
    if (Student::loaded()) {
        plan.backends = {"student-cpu", "student-naive", "student-efficient", "student-thrust", {"decoupled", "cub"}, true};
        plan.whose = fmt::format("The course submission in {}", Student::directory());
    } else {
        plan.whose = "The project's own course back ends (cpu, naive, efficient, thrust)";
    }
    return plan;
}

}  // namespace

int runReport(const std::vector<std::string> &args, std::FILE *out, std::FILE *err) {
    ReportOptions options;
    try {
        options = parseArgs(args);
    } catch (const BadInput &e) {
        fmt::print(err, "{}: {}\n", kProgram, e.what());
        return kExitBadInput;
    }
    if (options.help) {
        fmt::print(out, "{}\n\n{}", kUsage, kHelp);
        return 0;
    }
    Student::load();
    if (!Student::problem().empty()) {
        fmt::print(err, "{}: {}\n", kProgram, Student::problem());
        return 1;
    }
    const Plan plan = makePlan(options);
    // An earlier report's runs are not read again: a step that writes nothing this time
    // leaves its part out rather than showing the old figures.
    std::error_code error;
    fs::remove_all(plan.data, error);
    if (!error) fs::create_directories(plan.data, error);
    if (error) {
        fmt::print(err, "{}: --out: cannot make '{}': {}\n", kProgram, plan.data.string(), error.message());
        return 1;
    }
    PerformanceInputs inputs = measure(plan, options, err);
    inputs.images = plot(plan, options.out, inputs.skipped);
    const fs::path path = fs::path(options.out) / "performance.md";
    std::ofstream file(path);
    file << performanceMarkdown(inputs);
    if (!file.flush()) {
        fmt::print(err, "{}: cannot write '{}': {}\n", kProgram, path.string(), std::strerror(errno));
        return 1;
    }
    fmt::print(out, "{}: {} performance analysis, with {} plot{}{}\n", path.string(),
               inputs.backends.student ? "the submission's" : "the project's course back ends'", inputs.images.size(),
               inputs.images.size() == 1 ? "" : "s",
               inputs.skipped.empty() ? "" : fmt::format("; left out: {}", fmt::join(inputs.skipped, "; ")));
    return 0;
}

std::string offeredOps(const std::vector<std::string> &names) {
    std::vector<std::string> ops;
    for (Op op : {Op::Scan, Op::Compact}) {
        if (!offering(names, op).empty()) ops.push_back(opName(op));
    }
    return ops.empty() ? "scan,compact" : fmt::format("{}", fmt::join(ops, ","));
}

}  // namespace Harness
