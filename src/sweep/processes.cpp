#include "sweep/processes.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#if !defined(_WIN32) && !defined(SC_NO_POSIX)
#include <unistd.h>
#define SC_HAS_MKSTEMPS 1
#endif

namespace Harness {

namespace {

// An empty file with a unique name ending ".json" in $TMPDIR (or /tmp), for a child's
// report, removed when this goes.
class TemporaryReport {
public:
    TemporaryReport() {
#ifdef SC_HAS_MKSTEMPS
        const char *directory = std::getenv("TMPDIR");
        std::string pattern = std::string(directory && *directory ? directory : "/tmp") + "/cis565-process-XXXXXX.json";
        const int fd = mkstemps(pattern.data(), 5);
        if (fd < 0) {
            throw std::runtime_error(fmt::format("--processes: cannot make a file for a child process's report ({}): {}",
                                                 pattern, std::strerror(errno)));
        }
        close(fd);
        path_ = pattern;
#else
        throw std::runtime_error("--processes: this build cannot start child processes");
#endif
    }
    ~TemporaryReport() {
        if (!path_.empty()) std::remove(path_.c_str());
    }
    TemporaryReport(const TemporaryReport &) = delete;
    TemporaryReport &operator=(const TemporaryReport &) = delete;

    const std::string &path() const { return path_; }

private:
    std::string path_;
};

const ChildRunner *childRunnerForTesting = nullptr;

// The report a started child wrote. A child that ended as a sweep does (its cells
// verified or failed) and left a report this program cannot read throws that error;
// one that ended otherwise throws naming it and how it ended, after its error output
// (`printed`).
JsonReport readChildReport(const std::string &path, const std::string &who, const ChildExit &exit,
                           const std::string &printed) {
    const bool endedAsASweep = exit.signal == 0 && (exit.status == kExitVerified || exit.status == kExitFailed ||
                                                    exit.status == kExitNothingRan);
    if (endedAsASweep) {
        std::ifstream in(path);
        JsonReport report = readJsonReport(in, fmt::format("the report of {} ('{}')", who, path));
        if (report.complete) return report;
    }
    if (!printed.empty()) fmt::print(stderr, "{}{}", printed, printed.back() == '\n' ? "" : "\n");
    const std::string how = exit.signal ? fmt::format("signal {}", exit.signal)
                                        : fmt::format("exit status {}; its error is above", exit.status);
    throw std::runtime_error(fmt::format("{} ended before its sweep did ({})", who, how));
}

// Child `index` of `processes`, started (or stood in for) and read back.
JsonReport runChild(const Options &options, int index, const volatile std::sig_atomic_t *stop) {
    const TemporaryReport file;
    const std::vector<std::string> arguments = childArguments(options.arguments, file.path());
    if (childRunnerForTesting) return (*childRunnerForTesting)(index, arguments);
    std::string printed;  // its stderr: shown when it fails
    ChildSettings settings;
    settings.stop = stop;
    settings.endWithParent = true;
    settings.stdoutTo = ChildSettings::Output::Discard;
    settings.stderrTo = ChildSettings::Output::Capture;
    settings.onOutput = [&printed](std::string_view chunk) {
        printed.append(chunk);
        if (printed.size() > 16384) printed.erase(0, printed.size() - 8192);
    };
    const ChildExit exit = runProgram(thisProgram(options.program), arguments, settings);
    if (stop && *stop) return {};
    return readChildReport(file.path(), processLabel(index, options.processes), exit, printed);
}

// Whether `word` is `flag` or "flag=...".
bool isFlag(const std::string &word, const char *flag) {
    const std::size_t length = std::strlen(flag);
    return word.compare(0, length, flag) == 0 && (word.size() == length || word[length] == '=');
}

}  // namespace

CellKey keyOf(const Row &row) { return {row.op, row.backend, row.size, row.npot, row.blockSize ? *row.blockSize : 0}; }

ProcessCells cellsOf(const JsonReport &report) {
    ProcessCells cells;
    for (const Row &row : report.rows) cells[keyOf(row)] = row;
    return cells;
}

std::string processLabel(int index, int processes) { return fmt::format("process {} of {}", index, processes); }

PooledRounds poolProcesses(const std::vector<Statistics> &processes) {
    PooledRounds pooled;
    Statistics &all = pooled.all;
    std::vector<double> medians;
    double sum = 0, callsVariance = 0, p10 = 0, p90 = 0;
    int quantileSamples = 0;
    for (const Statistics &each : processes) {
        if (each.samples == 0) continue;
        all.minMs = medians.empty() ? each.minMs : std::min(all.minMs, each.minMs);
        all.maxMs = medians.empty() ? each.maxMs : std::max(all.maxMs, each.maxMs);
        medians.push_back(each.medianMs);
        all.samples += each.samples;
        sum += each.meanMs * each.samples;
        const double error = relativeError(each.noise(), each.samples);
        callsVariance += error * error;
        if (each.p10Ms > 0 || each.p90Ms > 0) {
            p10 += each.p10Ms * each.samples;
            p90 += each.p90Ms * each.samples;
            quantileSamples += each.samples;
        }
    }
    all.rounds = static_cast<int>(medians.size());
    if (medians.empty()) return pooled;
    all.meanMs = sum / all.samples;
    double squares = 0;  // about the pooled mean: each process's own, and its mean's distance
    for (const Statistics &each : processes) {
        if (each.samples == 0) continue;
        const double apart = each.meanMs - all.meanMs;
        squares += (each.samples - 1) * each.stddevMs * each.stddevMs + each.samples * apart * apart;
    }
    all.stddevMs = all.samples > 1 ? std::sqrt(squares / (all.samples - 1)) : 0;
    if (quantileSamples > 0) {
        all.p10Ms = p10 / quantileSamples;
        all.p90Ms = p90 / quantileSamples;
    }
    const Statistics ofMedians = summarize(medians);
    all.medianMs = ofMedians.meanMs;
    all.roundsError = meanError(ofMedians);
    pooled.medianSpread = ofMedians.minMs > 0 ? ofMedians.maxMs / ofMedians.minMs - 1 : 0;
    pooled.callsError = std::sqrt(callsVariance) / static_cast<double>(medians.size());
    return pooled;
}

std::vector<Statistics> childFigures(const CellKey &key, const std::vector<ProcessCells> &children) {
    std::vector<Statistics> figures;
    for (const ProcessCells &cells : children) {
        const auto found = cells.find(key);
        if (found == cells.end() || found->second.status != Row::Status::Passed) continue;
        if (found->second.timing.samples > 0) figures.push_back(found->second.timing);
    }
    return figures;
}

void mergeChildVerdicts(Row &row, const std::vector<ProcessCells> &children, int processes) {
    if (row.status == Row::Status::Failed) return;
    const CellKey key = keyOf(row);
    for (std::size_t k = 0; k < children.size(); ++k) {
        const auto found = children[k].find(key);
        if (found == children[k].end()) continue;
        const Row &cell = found->second;
        const std::string who = processLabel(static_cast<int>(k) + 1, processes);
        if (cell.status == Row::Status::Failed) {
            row.status = Row::Status::Failed;
            row.note = fmt::format("{}: {}", who, cell.note);
            return;
        }
        if (row.status == Row::Status::Skipped) continue;  // only a failure changes a skipped row
        std::string note;
        if (cell.status == Row::Status::Skipped) note = fmt::format("skipped in {}: {}", who, cell.note);
        if (cell.throttled) {
            row.throttled = true;
            note = fmt::format("throttled in {}", who);
        }
        if (!note.empty()) row.note = row.note.empty() ? note : row.note + "; " + note;
    }
}

std::vector<std::string> childArguments(const std::vector<std::string> &arguments, const std::string &reportPath) {
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const std::string &word = arguments[i];
        // The parent alone traces (--explain): a child's rows give their figures only.
        if (word == "--quiet" || word == "--explain") continue;
        bool dropped = false;
        for (const char *flag : {"--processes", "--output", "--format"}) {
            if (!isFlag(word, flag)) continue;
            dropped = true;
            if (word == flag) ++i;  // its value follows
        }
        if (!dropped) kept.push_back(word);
    }
    kept.insert(kept.end(), {"--output", reportPath, "--quiet"});
    return kept;
}

void setChildRunnerForTesting(const ChildRunner *runner) { childRunnerForTesting = runner; }

std::vector<ProcessCells> runChildren(const Options &options, const volatile std::sig_atomic_t *stop) {
    std::vector<ProcessCells> children;
    for (int k = 1; k < options.processes && !(stop && *stop); ++k) {
        JsonReport report = runChild(options, k, stop);
        if (stop && *stop) break;
        children.push_back(cellsOf(report));
    }
    return children;
}

}  // namespace Harness
