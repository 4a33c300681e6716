#pragma once
// Shared by the command-line tests: parses a command line as the program would.

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli.h"

namespace TestSupport {

/** Parses `args` (without the program name), capturing what it printed on stderr. */
inline int parseArgs(std::vector<const char *> args, Harness::Options &options, std::string &errors) {
    args.insert(args.begin(), "cis565_stream_compaction");
    testing::internal::CaptureStderr();
    const int status = Harness::parseCommandLine(static_cast<int>(args.size()), args.data(), options);
    errors = testing::internal::GetCapturedStderr();
    return status;
}

/** What `args` print on stdout (--help, --version); expects the parse to end with status 0. */
inline std::string printedBy(std::vector<const char *> args) {
    Harness::Options options;
    std::string errors;
    testing::internal::CaptureStdout();
    EXPECT_EQ(parseArgs(std::move(args), options, errors), 0) << errors;
    return testing::internal::GetCapturedStdout();
}

/** Expects `parse` to throw std::invalid_argument on each of `bad`. */
template <typename Parse>
void expectRejected(Parse parse, std::initializer_list<const char *> bad) {
    for (const char *text : bad) EXPECT_THROW((void)parse(text), std::invalid_argument) << "'" << text << "'";
}

/** The message of the std::invalid_argument that `parse` throws on `text`; a failure if it throws none. */
template <typename Parse>
std::string rejection(Parse parse, const char *text) {
    try {
        (void)parse(text);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    ADD_FAILURE() << "'" << text << "' was accepted";
    return {};
}

}  // namespace TestSupport
