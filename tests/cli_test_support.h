#pragma once
// Shared by the command-line tests: parses a command line as the program would.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli.h"

namespace TestSupport {

/** Parses `args` (without the program name), capturing what it printed on stderr. */
inline int parseArgs(std::vector<const char *> args, Harness::Options &options, std::string &errors) {
    args.insert(args.begin(), "cis565_stream_compaction");
    testing::internal::CaptureStderr();
    const int status = Harness::parseCommandLine(static_cast<int>(args.size()), args.data(), options);
    errors = testing::internal::GetCapturedStderr();
    return status;
}

}  // namespace TestSupport
