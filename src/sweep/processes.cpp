#include "sweep/processes.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <istream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#if !defined(_WIN32) && !defined(SC_NO_POSIX)
#define SC_HAS_SPAWN 1
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
#endif
#if defined(__linux__) && !defined(SC_NO_POSIX)
#include <sys/prctl.h>
#endif

namespace Harness {

namespace {

// The recorder's first line; readChildCells refuses anything else.
constexpr const char *kHeader = "cis565_stream_compaction child cells 1";

char statusLetter(Row::Status status) {
    return status == Row::Status::Passed ? 'p' : status == Row::Status::Failed ? 'f' : 's';
}

class ChildRecorder : public Reporter {
public:
    ChildRecorder(std::FILE *out, std::string where) : out_(out), where_(std::move(where)) {}

    // The first line is flushed at once: a file with it is a child under way. The child's
    // launch gap follows, where it was measured.
    void begin(const Context &context) override {
        write(std::string(kHeader) + "\n");
        if (context.launchGapUs > 0) write(fmt::format("gap {}\n", context.launchGapUs));
        if (std::fflush(out_) != 0) fail();
    }
    void add(const Row &row) override {
        const CellKey key = keyOf(row);
        std::string text = fmt::format("cell {} {} {} {} {} {} {}\n", opName(key.op), key.backend, key.size,
                                       key.npot ? 1 : 0, key.blockSize, statusLetter(row.status), row.throttled ? 1 : 0);
        if (!row.note.empty()) text += "note " + oneLine(row.note) + "\n";  // the format is line by line
        for (const std::vector<double> &round : row.roundSamplesMs) {
            text += "round";
            for (double ms : round) text += fmt::format(" {}", ms);
            text += "\n";
        }
        write(text);
    }
    void endOp() override {}
    void stop(const std::string &) override { stopped_ = true; }
    void end() override {
        if (!stopped_) write("end\n");
        if (std::fflush(out_) != 0) fail();
    }

private:
    void write(const std::string &text) {
        if (std::fwrite(text.data(), 1, text.size(), out_) != text.size()) fail();
    }
    [[noreturn]] void fail() const {
        throw std::runtime_error(fmt::format("cannot write the cells to {}: {}", where_, std::strerror(errno)));
    }

    std::FILE *out_;
    std::string where_;
    bool stopped_ = false;
};

[[noreturn]] void malformed(const std::string &who, int lineNumber, const std::string &line) {
    throw std::runtime_error(fmt::format("{} wrote a cell list this program cannot read (line {}: '{}')", who,
                                         lineNumber, line.substr(0, 60)));
}

}  // namespace

CellKey keyOf(const Row &row) {
    return {row.op, row.backend, row.size, row.npot, row.blockSize ? *row.blockSize : 0};
}

std::unique_ptr<Reporter> makeChildRecorder(std::FILE *out, const std::string &where) {
    return std::make_unique<ChildRecorder>(out, where);
}

ChildCells readChildCells(std::istream &in, const std::string &who, int exitStatus, double *launchGapUs) {
    ChildCells cells;
    ChildCell *current = nullptr;
    std::string line;
    int number = 0;
    bool ended = false;
    bool gapRead = false;  // one gap line, before the first cell
    while (std::getline(in, line)) {
        ++number;
        if (number == 1) {
            if (line != kHeader) malformed(who, number, line);
            continue;
        }
        if (ended) malformed(who, number, line);
        std::istringstream fields(line);
        std::string word;
        fields >> word;
        if (word == "end") {
            ended = true;
        } else if (word == "cell") {
            std::string op;
            CellKey key;
            int npot = 0;
            char status = 0;
            int throttled = 0;
            std::string extra;
            if (!(fields >> op >> key.backend >> key.size >> npot >> key.blockSize >> status >> throttled) ||
                fields >> extra)
                malformed(who, number, line);
            bool known = false;
            for (Op each : kAllOps) {
                if (op == opName(each)) {
                    key.op = each;
                    known = true;
                }
            }
            if (!known || (status != 'p' && status != 'f' && status != 's')) malformed(who, number, line);
            key.npot = npot != 0;
            current = &cells[key];
            current->status = status == 'p'   ? Row::Status::Passed
                              : status == 'f' ? Row::Status::Failed
                                              : Row::Status::Skipped;
            current->throttled = throttled != 0;
        } else if (word == "gap" && !current && !gapRead) {
            double us = 0;
            std::string extra;
            if (!(fields >> us) || fields >> extra || !(us > 0)) malformed(who, number, line);
            if (launchGapUs) *launchGapUs = us;
            gapRead = true;
        } else if (word == "note" && current) {
            current->note = line.size() > 5 ? line.substr(5) : "";
        } else if (word == "round" && current) {
            std::vector<double> round;
            for (double ms; fields >> ms;) round.push_back(ms);
            if (!fields.eof()) malformed(who, number, line);
            current->rounds.push_back(std::move(round));
        } else {
            malformed(who, number, line);
        }
    }
    if (number == 0 || !ended) {
        const std::string how = exitStatus > 128 ? fmt::format("signal {}", exitStatus - 128)
                                                 : fmt::format("exit status {}; its error is above", exitStatus);
        throw std::runtime_error(fmt::format("{} ended before its sweep did ({})", who, how));
    }
    return cells;
}

std::string processLabel(int index, int processes, int maxProcesses) {
    return maxProcesses > processes ? fmt::format("process {} of up to {}", index, maxProcesses)
                                    : fmt::format("process {} of {}", index, processes);
}

std::vector<SweepInput> unsettledInputs(const std::vector<SweepInput> &inputs, const std::vector<ChildCells> &children,
                                        double maxError) {
    std::set<CellKey> keys;
    for (const ChildCells &cells : children) {
        for (const auto &entry : cells) keys.insert(entry.first);
    }
    std::vector<bool> unsettled(inputs.size(), false);
    for (const CellKey &key : keys) {
        const auto at = std::find(inputs.begin(), inputs.end(), SweepInput{key.op, key.npot ? key.size + 3 : key.size});
        if (at == inputs.end() || unsettled[static_cast<std::size_t>(at - inputs.begin())]) continue;
        // Each child that passed the cell gives one figure, the mean of its rounds'
        // medians: its rounds share its state, so they count once. A cell a child failed
        // has its row's verdict already, and more processes would not change it.
        RunningNoise figures;
        double callsVariance = 0;  // of the figures' sum, relative, from their calls' noise alone
        bool failed = false;
        for (const ChildCells &cells : children) {
            const auto found = cells.find(key);
            if (found == cells.end()) continue;
            failed = failed || found->second.status == Row::Status::Failed;
            if (found->second.status != Row::Status::Passed) continue;
            const PooledRounds figure = poolRounds(found->second.rounds);
            if (figure.all.rounds == 0) continue;
            callsVariance += figure.callsError * figure.callsError;
            figures.add(figure.all.medianMs);
        }
        const int n = figures.samples();
        if (failed || n == 0) continue;
        // One figure leaves the spread unknown. Else the half-width of their mean's 95%
        // interval: from how far the figures spread, but never narrower than their calls'
        // noise allows, since figures that agree more closely than that (medians of
        // timings in whole clock ticks can be equal) do not show the processes' spread.
        const double ofChildren = studentT975(n - 1) * relativeError(figures.noise(), n);
        const double ofCalls = kNormal975 * std::sqrt(callsVariance) / n;
        unsettled[static_cast<std::size_t>(at - inputs.begin())] = n == 1 || std::max(ofChildren, ofCalls) > maxError;
    }
    std::vector<SweepInput> chosen;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (unsettled[i]) chosen.push_back(inputs[i]);
    }
    return chosen;
}

std::vector<double> everyLaunchGap(const std::vector<double> &childGaps, double ownGap, int processes) {
    std::vector<double> gaps = childGaps;
    gaps.push_back(ownGap);
    const bool whole = processes > 1 && gaps.size() == static_cast<std::size_t>(processes) &&
                       std::none_of(gaps.begin(), gaps.end(), [](double us) { return !(us > 0); });
    return whole ? gaps : std::vector<double>{};
}

void mergeChildVerdicts(Row &row, const std::vector<ChildCells> &children, int processes) {
    if (row.status == Row::Status::Failed) return;
    const CellKey key = keyOf(row);
    for (std::size_t k = 0; k < children.size(); ++k) {
        const auto found = children[k].find(key);
        if (found == children[k].end()) continue;
        const ChildCell &cell = found->second;
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

std::vector<std::vector<double>> childRounds(const CellKey &key, const std::vector<ChildCells> &children,
                                             int *processes) {
    std::vector<std::vector<double>> rounds;
    int contributing = 0;
    for (const ChildCells &cells : children) {
        const auto found = cells.find(key);
        if (found == cells.end() || found->second.status != Row::Status::Passed || found->second.rounds.empty())
            continue;
        rounds.insert(rounds.end(), found->second.rounds.begin(), found->second.rounds.end());
        ++contributing;
    }
    if (processes) *processes = contributing;
    return rounds;
}

#ifdef SC_HAS_SPAWN

TemporaryFile::TemporaryFile() {
    const char *directory = std::getenv("TMPDIR");
    std::string pattern = std::string(directory && *directory ? directory : "/tmp") + "/cis565-cells-XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0) {
        throw std::runtime_error(fmt::format("cannot make a file for a child process's cells ({}): {}", pattern,
                                             std::strerror(errno)));
    }
    close(fd);
    path_ = pattern;
}

TemporaryFile::~TemporaryFile() { unlink(path_.c_str()); }

bool canStartProcesses() { return true; }

std::string thisProgram(const std::string &argv0) {
#ifdef __linux__
    // The running executable itself, even where its file was since replaced or deleted.
    if (access("/proc/self/exe", X_OK) == 0) return "/proc/self/exe";
#endif
    return argv0;
}

void endWithParent() {
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
}

int runProcess(const std::string &program, const std::vector<std::string> &arguments,
               const volatile std::sig_atomic_t *stop) {
    std::vector<std::string> words{program};
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char *> argv;
    for (std::string &word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const bool search = program.find('/') == std::string::npos;
    const int error = search ? posix_spawnp(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ)
                             : posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ);
    if (error != 0) {
        throw std::runtime_error(fmt::format("cannot start '{}': {}", program, std::strerror(error)));
    }
    // Polled, so that a signal the parent caught reaches the child however the parent
    // got it (a terminal sends it to both; `kill` to the parent alone). A child that has
    // not stopped kStopGraceMs after it (one stuck in a GPU call) is killed.
    constexpr int kPollMs = 20;
    int sinceStopMs = -1;
    for (;;) {
        int status = 0;
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (done < 0 && errno != EINTR) {
            throw std::runtime_error(fmt::format("cannot wait for '{}': {}", program, std::strerror(errno)));
        }
        if (stop && *stop != 0) {
            if (sinceStopMs < 0) kill(pid, *stop);
            if (sinceStopMs >= kStopGraceMs) kill(pid, SIGKILL);
            sinceStopMs += kPollMs;
        }
        const timespec pause{0, kPollMs * 1000 * 1000};
        nanosleep(&pause, nullptr);
    }
}

#else

void endWithParent() {}

TemporaryFile::TemporaryFile() {
    throw std::runtime_error("cannot make a file for a child process's cells: this build cannot start processes");
}

TemporaryFile::~TemporaryFile() = default;

bool canStartProcesses() { return false; }

std::string thisProgram(const std::string &argv0) { return argv0; }

int runProcess(const std::string &program, const std::vector<std::string> &, const volatile std::sig_atomic_t *) {
    throw std::runtime_error(fmt::format("cannot start '{}': this build cannot start processes", program));
}

#endif

}  // namespace Harness
