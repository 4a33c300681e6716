// Command-line values at their limits, and the command line recorded as one could type
// it again.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli.h"
#include "cli_test_support.h"

namespace {

using Harness::Options;
using TestSupport::parseArgs;

TEST(CommandLineLimits, RepsAndWarmupAcceptUpTo1000) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--reps", "1000", "--warmup", "1000"}, options, errors), -1) << errors;
    EXPECT_EQ(options.reps, 1000);
    EXPECT_EQ(options.warmup, 1000);
    EXPECT_EQ(parseArgs({"--reps", "1", "--warmup", "0"}, options, errors), -1) << errors;
    for (const std::vector<const char *> &bad :
         {std::vector<const char *>{"--warmup", "1001"}, {"--reps", "1001"}, {"--reps", "0"}, {"--warmup", "-1"}}) {
        Options refused;
        EXPECT_EQ(parseArgs(bad, refused, errors), 2) << bad[0] << " " << bad[1];
        EXPECT_NE(errors.find(bad[0]), std::string::npos) << errors;
    }
}

// Arguments with spaces, quotes or apostrophes are single-quoted, an apostrophe written
// '\'' so that the shell reads the argument back whole.
TEST(CommandLineRecord, QuotesWhatTheShellWouldSplit) {
    Options options;
    std::string errors;
    ASSERT_EQ(parseArgs({"--sizes", "2^10", "--output", "it's here.csv", "--keep", "gt:-5"}, options, errors), -1)
        << errors;
    EXPECT_EQ(options.commandLine, "cis565_stream_compaction --sizes 2^10 --output 'it'\\''s here.csv' --keep gt:-5");
    ASSERT_EQ(parseArgs({"--output", "a\"b.csv"}, options, errors), -1) << errors;
    EXPECT_EQ(options.commandLine, "cis565_stream_compaction --output 'a\"b.csv'");
}

}  // namespace
