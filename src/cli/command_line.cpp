#include "cli/command_line.h"

#include <algorithm>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/student.h>

#include "cli/parsers.h"
#include "commands/subcommands.h"
#include "sweep/processes.h"

namespace Harness {

namespace {

// Adapts a throwing parser to a CLI11 validator, whose message CLI11 prefixes with the
// flag's name. `name` is the option's placeholder in --help ("SIZE"); the validator has no
// description of its own, so that --help shows "--size SIZE", not "--size TEXT:SIZE".
template <typename Check>
CLI::Validator validator(const char *name, Check check) {
    return CLI::Validator(
        [check](std::string &value) {
            try {
                check(value);
                return std::string();
            } catch (const std::invalid_argument &e) {
                return std::string(e.what());
            }
        },
        "", name);
}

// An option of `group` shown in --help as "--name PLACEHOLDER", whose text `check` accepts:
// a CLI::Validator, or a function that throws std::invalid_argument on bad text (validator()).
template <typename T>
CLI::Option *addChecked(CLI::App &app, const std::string &name, T &target, const std::string &description,
                        const char *group, const char *placeholder, const CLI::Validator &check) {
    return app.add_option(name, target, description)->group(group)->type_name(placeholder)->check(check);
}

template <typename T, typename Check>
CLI::Option *addChecked(CLI::App &app, const std::string &name, T &target, const std::string &description,
                        const char *group, const char *placeholder, Check check) {
    return addChecked(app, name, target, description, group, placeholder, validator(placeholder, check));
}

// A count of processes, 1 to kMaxProcesses (--processes).
void checkProcessCount(const std::string &text) {
    const int count = parseCount(text);
    if (count < 1 || count > kMaxProcesses) {
        throw std::invalid_argument(fmt::format("'{}' is not a count of processes; use 1 to {}", text, kMaxProcesses));
    }
}

// A count of runs from `least` to 1000 (--reps, --warmup).
CLI::Validator runCount(const char *name, int least) {
    return validator(name, [least](const std::string &text) {
        const int count = parseCount(text);
        if (count < least || count > 1000) {
            throw std::invalid_argument(fmt::format("'{}' is not a count of runs; use {} to 1000", text, least));
        }
    });
}

std::string joinedBackendNames() { return joinedNames(allBackendNames()); }

// The back ends with 64-bit entry points: those a sweep runs past 2^31 - 1.
std::string joined64BitBackendNames() {
    std::vector<std::string> names;
    for (const auto &backend : StreamCompaction::backends()) {
        const auto offersAny = [&backend](Op op) { return offers64(backend, op); };
        if (std::any_of(std::begin(kAllOps), std::end(kAllOps), offersAny)) names.push_back(backend.name);
    }
    return joinedNames(names);
}

// The back ends that run at the block size (Backend::honoursBlockSize), comma-separated.
std::string blockSizeBackends() {
    std::vector<std::string> names;
    for (const auto &backend : StreamCompaction::backends()) {
        if (backend.honoursBlockSize) names.push_back(backend.name);
    }
    return fmt::format("{}", fmt::join(names, ", "));
}

std::string opNames() { return joinedNames(opNameList()); }

// What --ops is when not given (kDefaultOps), joined.
std::string defaultOpNames() {
    std::vector<std::string> names;
    for (Op op : kDefaultOps) names.push_back(opName(op));
    return joinedNames(names);
}

// The names of the back ends among `chosen` that offer `op`, joined.
std::string backendsOffering(const std::vector<std::string> &chosen, Op op) {
    std::vector<std::string> names;
    for (const StreamCompaction::Backend *backend : offering(chosen, op)) names.push_back(backend->name);
    return joinedNames(names);
}

// The command line as one could type it again: arguments with spaces or shell
// characters in single quotes.
std::string typedCommandLine(int argc, const char *const *argv) {
    std::string line;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                                 "0123456789^:,._-+=/") == std::string::npos;
        std::string quoted = "'";
        for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += (i ? " " : "") + (plain ? arg : quoted + "'");
    }
    return line;
}

}  // namespace

RunSettings runSettings(const Options &options) {
    RunSettings settings;
    settings.warmup = options.warmup;
    settings.reps = options.reps;
    settings.minSamples = options.minSamples;
    settings.minTimeMs = options.minTimeMs;
    settings.maxNoise = options.maxNoise;
    settings.maxTimeMs = options.maxTimeMs;
    settings.cold = !options.hot;
    settings.blockingKernel = options.blockingKernel;
    settings.keep = options.keep;
    return settings;
}

std::string samplingText(const Options &o) {
    const std::string calls =
        o.reps > 0 ? fmt::format("median of {} calls", o.reps)
                   : fmt::format("median of calls until its 95% interval is within +-{:g}% (at least {} calls and "
                                 "{:g} ms, at most {:g} s)",
                                 o.maxNoise * 100, o.minSamples, o.minTimeMs, o.maxTimeMs / 1000);
    std::string rounds;
    const std::string perProcess = o.rounds > 1 ? fmt::format("{} rounds", o.rounds) : std::string("one round");
    if (o.processes > 1) {
        rounds = fmt::format("; {} in each of {} processes, one after another; a figure is the mean of the {} "
                             "processes' medians",
                             perProcess, o.processes, o.processes);
    } else if (o.rounds > 1) {
        rounds = fmt::format("; {} rounds, buffers allocated again for each; a figure is the mean of the rounds' "
                             "medians",
                             o.rounds);
    }
    return fmt::format("{} after {} untimed; GPU: L2 {}, {}{}", calls, o.warmup,
                       o.hot ? "left warm (--hot)" : "flushed before each",
                       o.blockingKernel ? "launch time out (blocking kernel)" : "launch time in (--no-blocking-kernel)",
                       rounds);
}

namespace {

constexpr const char *kCourseGroup = "Course test sequence (the default)";
constexpr const char *kRunGroup = "Back ends and timing";
constexpr const char *kSweepGroup = "Sweep (any of these runs a sweep instead of the test sequence)";
constexpr const char *kReportGroup = "Reports (--format and --output also run a sweep)";
constexpr const char *kGradeGroup = "Grading a course submission (make run STUDENT=DIR)";

// The text of the options, parsed here after CLI11 has checked them (CLI11's own number
// conversion would read "010" as octal 8).
struct RawText {
    std::string size, blockSize, seed, reps, warmup, sizes, blockSizes, keep, format;
    std::string minSamples, minTime, maxNoise, maxTime, rounds, processes;
    std::vector<std::string> ops;
};

void addRunOptions(CLI::App &app, Options &options, RawText &raw) {
    addChecked(app, "--size", raw.size,
               "Array size SIZE for the test sequence (NPOT = SIZE - 3): 1048576, 2^20 or 1M, "
               "up to 2^31 - 1; with a sweep, its one size (up to 2^33) unless --sizes",
               kCourseGroup, "SIZE", [](const std::string &text) { parseSize(text); });
    addChecked(app, "--block-size", raw.blockSize,
               fmt::format("Threads per block of the GPU back ends whose kernels take one ({}; the others have "
                           "fixed tile shapes) (default 128); with a sweep, its one block size unless "
                           "--block-sizes",
                           blockSizeBackends()),
               kRunGroup, "B", [](const std::string &text) { parseBlockSize(text); });
    addChecked(app, "--seed", raw.seed, "Seed of the random inputs (default 565)", kRunGroup, "S",
               [](const std::string &text) {
                   if (!parseSeed(text)) {
                       throw std::invalid_argument(
                           fmt::format("'{}' is not a seed; use a whole number from 0 to 2^64 - 1", text));
                   }
               });
    addChecked(app, "--backends", options.backends,
               "Comma-separated back ends to run: " + joinedBackendNames() + " (default: all)", kRunGroup, "NAMES",
               [](const std::string &name) {
                   if (!StreamCompaction::findBackend(name))
                       throw std::invalid_argument(unknownNameMessage("back end", "back ends", name, allBackendNames()));
               })
        ->delimiter(',');
    addChecked(app, "--reps", raw.reps,
               "Exactly R timed calls per figure, instead of calls until the noise is known (below)", kRunGroup, "R",
               runCount("R", 1));
    addChecked(app, "--warmup", raw.warmup, "Untimed calls before the timed ones (default 1)", kRunGroup, "W",
               runCount("W", 0));
    addChecked(app, "--min-samples", raw.minSamples, "Timed calls a figure takes at least (default 10)", kRunGroup, "N",
               [](const std::string &text) {
                   const int count = parseCount(text);
                   if (count < 2 || count > 100000) {
                       throw std::invalid_argument(fmt::format("'{}' is not a sample count; use 2 to 100000", text));
                   }
               });
    addChecked(app, "--min-time", raw.minTime, "Timed work a figure takes at least: 50ms (default), 0.2s", kRunGroup,
               "T", [](const std::string &text) { parseTimeMs(text); });
    addChecked(app, "--max-noise", raw.maxNoise,
               "Stop a figure's calls once its median is known to within +-P percent (the half-width of the "
               "median's 95% interval, which outliers do not widen): 0.5 (default), 2%",
               kRunGroup, "P", [](const std::string &text) { parseNoise(text); });
    addChecked(app, "--max-time", raw.maxTime, "Wall time of a figure's own calls after which they stop, once there are --min-samples: 2s (default)",
               kRunGroup, "T", [](const std::string &text) { parseTimeMs(text); });
    app.add_flag("--hot", options.hot, "Leave the L2 cache warm between timed calls (default: flushed before each)")
        ->group(kRunGroup);
    app.add_flag("--no-blocking-kernel")
        ->description("Time GPU calls without holding the stream, host launch time included")
        ->group(kRunGroup);
    app.add_flag("--no-interleave")
        ->description("A sweep measures its back ends one after another, not taking turns call by call")
        ->group(kRunGroup);
    app.add_flag("--explain", options.explain,
                 "After each figure's timed calls, trace one more call (CUPTI) and say what it ran and what bounds "
                 "it: kernels, time in and between them, allocations and copies inside the timer, % of copy; the "
                 "course run prints it under each test, a sweep in columns and a table of its own (docs/explain.md)")
        ->group(kRunGroup);
}

// Adds the report options, noting in sweepFlags those whose presence asks for a sweep.
void addReportOptions(CLI::App &app, Options &options, RawText &raw, std::vector<CLI::Option *> &sweepFlags) {
    sweepFlags.push_back(addChecked(app, "--format", raw.format,
                                    "Format on stdout: text (default), markdown, csv or json", kReportGroup, "FORMAT",
                                    [](const std::string &text) { parseFormat(text); }));
    sweepFlags.push_back(
        addChecked(app, "--output", options.outputs,
                   "Also write the report to FILE, in the format its extension names (.txt, .md, .csv, "
                   ".json); repeatable",
                   kReportGroup, "FILE",
                   [](const std::string &path) {
                       if (!formatForPath(path)) {
                           throw std::invalid_argument(fmt::format(
                               "'{}' has no known extension; name the file .txt, .md, .csv or .json", path));
                       }
                   })
            ->allow_extra_args(false));
    app.add_flag("--quiet", options.quiet, "No progress line on stderr (shown only when stderr is a terminal)")
        ->group(kReportGroup);
}

// Adds the sweep options, then the report options; returns those whose presence asks for a
// sweep.
std::vector<CLI::Option *> addSweepOptions(CLI::App &app, Options &options, RawText &raw) {
    std::vector<CLI::Option *> sweepFlags;
    sweepFlags.push_back(
        addChecked(app, "--sizes", raw.sizes,
                   "Array sizes up to 2^33: a list (1000,4096,1M,2^20) or a power-of-two range (2^16:2^28; "
                   "2^16:2^28:2 for every second power); past 2^31 - 1 only " +
                       joined64BitBackendNames() + " run",
                   kSweepGroup, "LIST", [](const std::string &text) { parseSizeList(text); })
            ->excludes("--size"));
    sweepFlags.push_back(addChecked(app, "--block-sizes", raw.blockSizes,
                                    "Block sizes for the GPU back ends: 128,256,512,1024 or 2^7:2^10", kSweepGroup,
                                    "LIST", [](const std::string &text) { parseBlockSizeList(text); })
                             ->excludes("--block-size"));
    sweepFlags.push_back(addChecked(app, "--ops", raw.ops,
                                    "Comma-separated operations: " + opNames() + " (default: " + defaultOpNames() + ")",
                                    kSweepGroup,
                                    "NAMES", [](const std::string &name) { parseOp(name); })
                             ->delimiter(','));
    sweepFlags.push_back(
        addChecked(app, "--keep", raw.keep,
                   "What compact and partition keep of their inputs (the course's values 0 to 3): nonzero "
                   "(default), mod:K (multiples of K, K not 0) or gt:T (values above T)",
                   kSweepGroup, "PREDICATE", [](const std::string &text) { parsePredicate(text); }));
    sweepFlags.push_back(addChecked(
        app, "--rounds", raw.rounds,
        "Measure every input N times, its cells' buffers allocated again for each round (where the cells take "
        "turns, beside the last round's, so at other addresses); a figure's median is the mean of the rounds' "
        "medians, its other statistics pool their calls, and round_spread_pct is the spread of the rounds' "
        "medians (default 1)",
        kSweepGroup, "N", [](const std::string &text) {
            const int count = parseCount(text);
            if (count < 1 || count > 100) {
                throw std::invalid_argument(fmt::format("'{}' is not a count of rounds; use 1 to 100", text));
            }
        }));
    sweepFlags.push_back(addChecked(
        app, "--processes", raw.processes,
        fmt::format("Run the sweep in N processes, one after another (N - 1 child processes of this program, then "
                    "this one), each writing a JSON report, and make each figure the mean of the processes' medians: "
                    "the GPU's launches run a few percent faster or slower for a whole process, so figures over "
                    "several processes agree better from run to run (default 1; up to {})",
                    kMaxProcesses),
        kSweepGroup, "N", checkProcessCount));
    // Two flags, not CLI11's "--npot,!--no-npot", so that both together can be refused
    // and --help shows no "{false}".
    sweepFlags.push_back(
        app.add_flag("--npot")
            ->description("Also measure SIZE - 3 for every power of two SIZE in --sizes (the default)")
            ->group(kSweepGroup));
    sweepFlags.push_back(app.add_flag("--no-npot")->description("Measure the sizes in --sizes alone")->group(kSweepGroup));
    addReportOptions(app, options, raw, sweepFlags);
    return sweepFlags;
}

// Keeps the first of equal items, in order: `--sizes 2^4,16` runs 2^4 once.
template <typename T>
void dropRepeats(std::vector<T> &items) {
    std::vector<T> firsts;
    for (const T &item : items) {
        if (std::find(firsts.begin(), firsts.end(), item) == firsts.end()) firsts.push_back(item);
    }
    items = std::move(firsts);
}

// Turns the checked text into values; returns a one-line error, or "".
std::string finish(const RawText &raw, Options &options) {
    if (!raw.size.empty()) options.size = parseSize(raw.size);
    if (!raw.blockSize.empty()) options.blockSize = parseBlockSize(raw.blockSize);
    if (!raw.seed.empty()) options.seed = *parseSeed(raw.seed);
    if (!raw.reps.empty()) options.reps = parseCount(raw.reps);
    if (!raw.warmup.empty()) options.warmup = parseCount(raw.warmup);
    if (!raw.minSamples.empty()) options.minSamples = parseCount(raw.minSamples);
    if (!raw.minTime.empty()) options.minTimeMs = parseTimeMs(raw.minTime);
    if (!raw.maxNoise.empty()) options.maxNoise = parseNoise(raw.maxNoise);
    if (!raw.maxTime.empty()) options.maxTimeMs = parseTimeMs(raw.maxTime);
    if (!raw.rounds.empty()) options.rounds = parseCount(raw.rounds);
    if (!raw.processes.empty()) options.processes = parseCount(raw.processes);
    if (options.processes > 1 && !canStartProcesses()) {
        return "--processes: this build cannot start child processes (it has no POSIX process spawning); use 1";
    }
    // The course's test sequence prints one figure per test, about forty of them: half a
    // second each keeps the default run short.
    if (raw.maxTime.empty() && !options.sweep && !options.grade) options.maxTimeMs = kCourseMaxTimeMs;
    if (options.maxTimeMs < options.minTimeMs) {
        return fmt::format("--max-time: {} ms is below --min-time ({} ms); give a --max-time of at least --min-time",
                           options.maxTimeMs, options.minTimeMs);
    }
    if (!options.sweep && options.size < 4) {
        return fmt::format("--size: '{}' is too small; the test sequence needs SIZE >= 4 for its non-power-of-two "
                           "size SIZE - 3",
                           raw.size);
    }
    if (!options.sweep && pastIntSizes(options.size)) {
        return fmt::format("--size: '{}' is past the test sequence's limit of 2^31 - 1 (the course API's int n); "
                           "a sweep (--sizes) takes sizes up to 2^33",
                           raw.size);
    }
    options.sizes = raw.sizes.empty() ? std::vector<long long>{options.size} : parseSizeList(raw.sizes);
    options.blockSizes =
        raw.blockSizes.empty() ? std::vector<int>{options.blockSize} : parseBlockSizeList(raw.blockSizes);
    if (!raw.keep.empty()) options.keep = parsePredicate(raw.keep);
    if (!raw.format.empty()) options.format = parseFormat(raw.format);
    if (options.backends.empty()) options.backends = allBackendNames();
    for (const std::string &name : raw.ops) {
        const Op op = parseOp(name);
        if (backendsOffering(options.backends, op).empty()) {
            return fmt::format("--ops: no chosen back end offers {}; these do: {}", name,
                               backendsOffering(allBackendNames(), op));
        }
        options.ops.push_back(op);
    }
    dropRepeats(options.sizes);
    dropRepeats(options.blockSizes);
    dropRepeats(options.ops);
    dropRepeats(options.backends);
    if (options.ops.empty()) options.ops.assign(std::begin(kDefaultOps), std::end(kDefaultOps));
    return "";
}

// "unknown flag --backend; did you mean --backends?" for the first argument that looks
// like a long flag ("--name" or "--name=value") and names none of `app`'s, else "".
std::string unknownFlag(const CLI::App &app, int argc, const char *const *argv) {
    std::vector<std::string> flags;
    for (const CLI::Option *option : app.get_options()) {
        for (const std::string &name : option->get_lnames()) flags.push_back("--" + name);
    }
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0 || arg == "--") continue;
        const std::string flag = arg.substr(0, arg.find('='));
        if (std::find(flags.begin(), flags.end(), flag) != flags.end()) continue;
        const std::string guess = nearestName(flag, flags);
        return fmt::format("unknown flag {}; {}", flag, guess.empty() ? "see --help" : "did you mean " + guess + "?");
    }
    return "";
}

// The subcommands' part of --help: a usage line and an indented summary each.
std::string subcommandsText() {
    std::string text = "Subcommands (NAME --help says more):";
    for (const Subcommand &sub : subcommands()) {
        text += fmt::format("\n  cis565_stream_compaction {}\n      {}", sub.usage, sub.summary);
    }
    return text;
}

// The program's description, version and exit statuses in --help.
void describe(CLI::App &app) {
    app.description("CIS 565 Project 2: scan and stream compaction on the CPU and the GPU.\n"
                    "With no arguments, runs the course's test sequence on 2^20 random ints; with sweep or report\n"
                    "flags, times every chosen op, size, block size and back end and reports tables, CSV or JSON.\n"
                    "Sizes and block sizes are written 1048576, 2^20 or 1M (K, M, G = 2^10, 2^20, 2^30).\n"
                    "\n"
                    "Examples (the course's whole performance report, for your code with make report\n"
                    "STUDENT=DIR; by hand, its block-size table, then its array-size plot's CSV, for\n"
                    "scripts/plot sizes.csv):\n"
                    "  cis565_stream_compaction report\n"
                    "  cis565_stream_compaction --sizes 2^24 --block-sizes 2^7:2^10 \\\n"
                    "      --backends naive,efficient,textbook,shared --ops scan,compact --format markdown\n"
                    "  cis565_stream_compaction --sizes 2^10:2^28 --ops scan,compact --output sizes.csv\n"
                    "  cis565_stream_compaction --size 2^24 --block-size 256   # the test sequence at 2^24\n"
                    "\n" +
                    subcommandsText());
    app.set_version_flag("--version", "cis565_stream_compaction " SC_VERSION);
    app.footer("Exit status: 0 every test or cell verified (some may be skipped), 1 one failed, 2 a bad command\n"
               "line or output (nothing run), 3 nothing could run (every one skipped), 130 or 143 stopped by\n"
               "SIGINT or SIGTERM. The course run ends with \"N passed, N failed, N skipped\" on stdout; a sweep\n"
               "with \"N cells verified, N failed, N skipped\" on stderr, so that a CSV or JSON stdout stays plain.");
}

// The checks between flags that CLI11 does not make, then the values (finish); returns a
// one-line error, or "".
std::string checkParsed(const CLI::App &app, const std::vector<CLI::Option *> &sweepFlags, const RawText &raw,
                        Options &options) {
    if (app.get_option("--npot")->count() > 0 && app.get_option("--no-npot")->count() > 0)
        return "--npot and --no-npot contradict each other; give one of them";
    options.npot = app.get_option("--no-npot")->count() == 0;
    options.blockingKernel = app.get_option("--no-blocking-kernel")->count() == 0;
    options.interleave = app.get_option("--no-interleave")->count() == 0;
    if (!raw.reps.empty() && (!raw.minSamples.empty() || !raw.maxNoise.empty() || !raw.minTime.empty() ||
                              !raw.maxTime.empty())) {
        return "--reps sets a fixed count of timed calls; it cannot be given with --min-samples, --min-time, "
               "--max-noise or --max-time, which decide the count from the noise";
    }
    options.sweep = !options.grade && std::any_of(sweepFlags.begin(), sweepFlags.end(),
                                                  [](const CLI::Option *flag) { return flag->count() > 0; });
    if (options.grade && !StreamCompaction::Student::loaded()) {
        return "--grade: no course submission is built in; build one with make run STUDENT=DIR ARGS=--grade "
               "(CMake: -DSC_STUDENT_DIR=DIR)";
    }
    return finish(raw, options);
}

}  // namespace

int parseCommandLine(int argc, const char *const *argv, Options &options) {
    CLI::App app{"", "cis565_stream_compaction"};
    describe(app);
    RawText raw;
    addRunOptions(app, options, raw);
    const std::vector<CLI::Option *> sweepFlags = addSweepOptions(app, options, raw);
    CLI::Option *grade =
        app.add_flag("--grade", options.grade,
                     "Grade the course submission built in with STUDENT=DIR: every course function on the course's "
                     "SIZE and SIZE - 3 and on edge cases, one call each on a poisoned output, as a table of cases x "
                     "functions (--format and --output take it; --backends picks its student-* columns)")
            ->group(kGradeGroup);
    for (const char *sweepOnly :
         {"--sizes", "--block-sizes", "--ops", "--keep", "--npot", "--rounds", "--processes", "--explain"}) {
        grade->excludes(sweepOnly);
    }

    std::string problem = unknownFlag(app, argc, argv);
    if (problem.empty()) {
        try {
            app.parse(argc, argv);
        } catch (const CLI::Success &e) {
            return app.exit(e);  // --help, --version
        } catch (const CLI::ParseError &e) {
            problem = e.what();
        }
    }
    if (problem.empty()) problem = checkParsed(app, sweepFlags, raw, options);
    if (!problem.empty()) {
        fmt::print(stderr, "cis565_stream_compaction: {}\n", problem);
        return kExitBadInput;
    }
    options.commandLine = typedCommandLine(argc, argv);
    options.program = argc > 0 ? argv[0] : "cis565_stream_compaction";
    options.arguments.assign(argv + std::min(argc, 1), argv + argc);
    return -1;
}

}  // namespace Harness
