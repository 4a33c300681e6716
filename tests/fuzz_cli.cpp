// libFuzzer target for the size parser and the whole command line. The input's bytes
// are one size text, and also, split at newlines, the arguments of a command line. No
// input may crash or hang; parseSize returns a size in [1, 2^33] or throws
// std::invalid_argument; parseCommandLine returns -1 (go on), 0 (--help, --version) or
// 2 (rejected), and a rejection prints exactly one line on stderr.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace {

std::vector<std::string> splitLines(const std::string &text) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

// Runs parseCommandLine with stdout and stderr sent to files; returns its status and
// what it wrote on stderr.
int parseCapturingStderr(const std::vector<std::string> &args, std::string &errors) {
    std::vector<const char *> argv{"cis565_stream_compaction"};
    for (const std::string &arg : args) argv.push_back(arg.c_str());
    std::FILE *captured = std::tmpfile();
    std::FILE *discarded = std::tmpfile();
    std::fflush(stdout);
    std::fflush(stderr);
    const int savedOut = dup(1), savedErr = dup(2);
    dup2(fileno(discarded), 1);
    dup2(fileno(captured), 2);
    Harness::Options options;
    const int status = Harness::parseCommandLine(static_cast<int>(argv.size()), argv.data(), options);
    std::fflush(stdout);
    std::fflush(stderr);
    dup2(savedOut, 1);
    dup2(savedErr, 2);
    close(savedOut);
    close(savedErr);
    std::rewind(captured);
    errors.clear();
    for (int c; (c = std::fgetc(captured)) != EOF;) errors.push_back(static_cast<char>(c));
    std::fclose(captured);
    std::fclose(discarded);
    return status;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        const long long value = Harness::parseSize(text);
        if (value < 1 || value > Harness::kMaxSweepSize) std::abort();
    } catch (const std::invalid_argument &) {
    }

    std::string errors;
    const int status = parseCapturingStderr(splitLines(text), errors);
    if (status != -1 && status != 0 && status != 2) std::abort();
    if (status == 2) {
        const bool oneLine = !errors.empty() && errors.back() == '\n' &&
                             errors.find('\n') == errors.size() - 1;
        if (!oneLine) {
            std::fprintf(stderr, "rejected input without a one-line error: [%s]\n", errors.c_str());
            std::abort();
        }
    }
    return 0;
}
