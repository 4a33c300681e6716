#include "commands/explain.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>
#include <stream_compaction/student.h>

#include "cli/cli.h"
#include "measure/context.h"
#include "measure/explain.h"
#include "measure/runner.h"
#include "platform/child_process.h"
#include "report/timeline.h"
#include "testing_helpers.hpp"

namespace Harness {

namespace {

constexpr const char *kProgram = "cis565_stream_compaction explain";
constexpr const char *kUsage =
    "usage: cis565_stream_compaction explain --backends NAMES --op OP [--size N] [--block-size B] [--seed S] "
    "[--hot] [--trace FILE.json]";
constexpr int kTimedCalls = 5;
// With a submission among the back ends, one back end's calls are killed when they have
// not all returned after this long.
constexpr int kBackendLimitSeconds = 120;

constexpr const char *kHelp =
    "Times each back end's operation (one untimed call, then 5 timed ones), checks it, then traces one call\n"
    "more with CUPTI and prints its timeline: each kernel, copy and allocating or waiting runtime call with\n"
    "its start (from the call's start), its duration and a bar drawn to scale; then the kernel count, the\n"
    "time in kernels, in copies, in runtime calls and between them, the kernels' bytes against the copy\n"
    "ceiling, and a verdict (docs/explain.md).\n"
    "\n"
    "  --backends NAMES  comma-separated back ends (course submissions' student-* with STUDENT=DIR)\n"
    "  --op OP           scan, compact, partition, sort, sort-pairs or sort-unsigned\n"
    "  --size N          1048576, 2^20 or 1M (default 2^20)\n"
    "  --block-size B    threads per block of the back ends that take one (default 128)\n"
    "  --seed S          seed of the random input (default 565)\n"
    "  --hot             leave the L2 cache warm before each call (default: flushed)\n"
    "  --trace FILE.json also write the traced calls in the Chrome trace-event format, which\n"
    "                    ui.perfetto.dev and chrome://tracing open\n"
    "\n"
    "With a submission's back end (student-*) among them, the back ends run in a child process: a\n"
    "crash, an exit() or a back end still running after 120 s ends it alone, and a FAIL line names the\n"
    "back end it was in.\n"
    "\n"
    "Exit status: 0 a call was traced, 1 a CUDA error, a submission's crash or a trace file not written,\n"
    "2 bad input, 3 no call could be traced (no CUDA device, or CUPTI held by another profiler).\n";

struct ExplainOptions {
    std::vector<std::string> backends;
    Op op = Op::Scan;
    long long size = 1 << 20;
    int blockSize = 128;
    std::uint64_t seed = 565;
    bool hot = false;
    std::string traceFile;
    bool help = false;
};

// A flag's text stored through `parse`, whose std::invalid_argument becomes bad input
// naming the flag.
template <typename Parse>
std::function<void(const std::string &)> stored(const char *flag, Parse parse) {
    return [flag, parse](const std::string &text) {
        try {
            parse(text);
        } catch (const std::invalid_argument &e) {
            throw BadInput(fmt::format("{}: {}", flag, e.what()));
        }
    };
}

void checkChoices(const ExplainOptions &o) {
    if (o.backends.empty()) throw BadInput(fmt::format("--backends is required; {}", kUsage));
    for (const std::string &name : o.backends) {
        const StreamCompaction::Backend *backend = StreamCompaction::findBackend(name);
        if (!backend) {
            throw BadInput("--backends: " + unknownNameMessage("back end", "back ends", name, allBackendNames()));
        }
        if (StreamCompaction::timedByImplementation(*backend) && !StreamCompaction::Student::problem().empty()) {
            const std::string &problem = StreamCompaction::Student::problem();
            throw BadInput(fmt::format("--backends: {}: {}", name, problem.substr(0, problem.find('\n'))));
        }
        if (!(pastIntSizes(o.size) ? offers64(*backend, o.op) : offers(*backend, o.op))) {
            throw BadInput(
                fmt::format("--backends: {} offers no {} at n = {}", name, opName(o.op), formatSize(o.size)));
        }
    }
    if (!o.traceFile.empty() && formatForPath(o.traceFile) != Format::Json) {
        throw BadInput(fmt::format("--trace: '{}' is not a .json file; name the trace FILE.json", o.traceFile));
    }
}

ExplainOptions parseArgs(const std::vector<std::string> &args) {
    ExplainOptions o;
    bool opGiven = false;
    CLI::App app{"", kProgram};
    app.set_help_flag();  // the command's own help text (kHelp)
    app.add_flag("-h,--help", o.help);
    app.add_option("--backends", o.backends)->delimiter(',');
    app.add_option_function<std::string>("--op", stored("--op", [&](const std::string &t) {
                                             o.op = parseOp(t);
                                             opGiven = true;
                                         }));
    app.add_option_function<std::string>("--size",
                                         stored("--size", [&](const std::string &t) { o.size = parseSize(t); }));
    app.add_option_function<std::string>(
        "--block-size", stored("--block-size", [&](const std::string &t) { o.blockSize = parseBlockSize(t); }));
    app.add_option_function<std::string>("--seed", stored("--seed", [&](const std::string &t) {
                                             if (!parseSeed(t)) {
                                                 throw std::invalid_argument(fmt::format(
                                                     "'{}' is not a seed; use a whole number from 0 to 2^64 - 1", t));
                                             }
                                             o.seed = *parseSeed(t);
                                         }));
    app.add_flag("--hot", o.hot);
    app.add_option("--trace", o.traceFile);
    std::vector<const char *> argv = {kProgram};
    for (const std::string &arg : args) argv.push_back(arg.c_str());
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError &e) {
        throw BadInput(fmt::format("{}; {}", e.what(), kUsage));
    }
    if (o.help) return o;
    if (!opGiven) throw BadInput(fmt::format("--op is required; {}", kUsage));
    checkChoices(o);
    return o;
}

// One back end's traced call, its timeline printed to `out`; false when it could not be traced.
bool explainOne(const StreamCompaction::Backend &backend, const ExplainOptions &o, const std::vector<int> &input,
                const CopyCeiling &copy, std::FILE *out, std::vector<NamedTrace> &traced) {
    const std::string title = fmt::format("{} {}, n = {}", backend.name, opName(o.op), formatSize(o.size));
    if (backend.onGpu && !StreamCompaction::Common::deviceAvailable()) {
        fmt::print(out, "{}\nverdict: unavailable: no CUDA device\n\n", title);
        return false;
    }
    RunSettings settings;
    settings.reps = kTimedCalls;
    settings.cold = !o.hot;
    settings.explain = true;
    const Run result = run(backend, o.op, input, settings);
    const Verdict verdict = verify(o.op, result, expected(o.op, input, settings.keep, uses64BitApi(o.size, settings)),
                                   rulesFor(backend));
    const Explanation explanation =
        explain(*result.trace, {describe(o.op).trafficBytes(o.size, result.kept), copy.GBs});
    const std::string heading =
        fmt::format("{}: the call traced after {} timed ones (median {:.4g} ms{}); result {}", title, kTimedCalls,
                    result.timing.medianMs, result.timing.byImplementation ? ", timed by the implementation" : "",
                    verdict.passed() ? "passed" : "FAIL: " + verdict.detail);
    fmt::print(out, "{}\n", timelineText(heading, *result.trace, explanation));
    if (!explanation.traced()) return false;
    traced.push_back({title, *result.trace, explanation});
    return true;
}

void writeTrace(const std::string &path, const std::vector<NamedTrace> &traced, std::FILE *out) {
    const auto failed = [&path] {
        return std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    };
    std::FILE *file = std::fopen(path.c_str(), "w");
    if (!file) throw failed();
    const bool written = std::fputs(chromeTrace(traced).c_str(), file) >= 0;
    if (std::fclose(file) != 0 || !written) throw failed();
    fmt::print(out, "trace: {} ({} call{}; open it in ui.perfetto.dev or chrome://tracing)\n", path, traced.size(),
               traced.size() == 1 ? "" : "s");
}

// Every chosen back end's traced call; `messages`, where not -1, hears "begin NAME" before each.
int explainAll(const ExplainOptions &o, std::FILE *out, int messages) {
    StreamCompaction::Common::setBlockSize(o.blockSize);
    TestingHelpers::setSeed(o.seed);
    const std::vector<int> input = randomInput(o.op, o.size);
    const CopyCeiling copy =
        StreamCompaction::Common::deviceAvailable() ? measureCopyCeiling(copyCeilingBytes()) : CopyCeiling{};
    std::vector<NamedTrace> traced;
    for (const std::string &name : o.backends) {
        if (messages >= 0) sendLine(messages, "begin " + name);
        explainOne(*StreamCompaction::findBackend(name), o, input, copy, out, traced);
    }
    if (!o.traceFile.empty() && !traced.empty()) writeTrace(o.traceFile, traced, out);
    if (!o.traceFile.empty() && traced.empty()) {
        fmt::print(out, "trace: {} not written: no call was traced\n", o.traceFile);
    }
    std::fflush(out);
    return traced.empty() ? kExitNothingRan : 0;
}

bool takesSubmission(const ExplainOptions &o) {
    return std::any_of(o.backends.begin(), o.backends.end(), [](const std::string &name) {
        return StreamCompaction::timedByImplementation(*StreamCompaction::findBackend(name));
    });
}

// explainAll in a forked child (child_process.h), run when a submission's code is among
// the calls: its crash, exit() or hang ends the child alone, and this process names the
// back end it was in and how it ended.
int explainIsolated(const ExplainOptions &o, std::FILE *out, std::FILE *err) {
    std::string current;
    int status = -1;
    ChildSettings settings;
    settings.silenceLimitMs = kBackendLimitSeconds * 1000;  // each back end starts with a message
    settings.endWithParent = true;
    settings.onMessage = [&](const std::string &line) {
        if (line.rfind("begin ", 0) == 0) current = line.substr(6);
        if (line.rfind("exit ", 0) == 0) status = std::atoi(line.c_str() + 5);
    };
    std::fflush(out);
    std::fflush(err);
    const ChildExit exit = runChild(
        [&](int messages) {
            std::setvbuf(out, nullptr, _IOLBF, 0);  // the lines before a crash still come
            int code = 1;
            try {
                code = explainAll(o, out, messages);
            } catch (const std::exception &e) {
                std::fflush(out);
                fmt::print(err, "{}: error: {}\n", kProgram, e.what());
            }
            std::fflush(out);
            std::fflush(err);
            sendLine(messages, fmt::format("exit {}", code));
        },
        settings);
    if (status >= 0) return status;
    fmt::print(out, "FAIL: {} {} {} during its calls; nothing after it was traced\n",
               current.empty() ? "the submission" : current, opName(o.op), endedText(exit, kBackendLimitSeconds));
    if (!o.traceFile.empty()) fmt::print(out, "trace: {} not written: the run ended before it\n", o.traceFile);
    std::fflush(out);
    return kExitFailed;
}

}  // namespace

int runExplain(const std::vector<std::string> &args, std::FILE *out, std::FILE *err) {
    StreamCompaction::Student::load();  // its student-* rows, before the names are checked
    try {
        const ExplainOptions o = parseArgs(args);
        if (o.help) {
            fmt::print(out, "{}\n\n{}", kUsage, kHelp);
            return 0;
        }
        return takesSubmission(o) && canStartProcesses() ? explainIsolated(o, out, err) : explainAll(o, out, -1);
    } catch (const BadInput &e) {
        fmt::print(err, "{}: {}\n", kProgram, e.what());
        return kExitBadInput;
    } catch (const std::exception &e) {
        std::fflush(out);
        fmt::print(err, "{}: error: {}\n", kProgram, e.what());
        return 1;
    }
}

}  // namespace Harness
