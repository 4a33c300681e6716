// The command line: sizes, flags, and one clear line for each bad value.

#include <gtest/gtest.h>

#include "cli.h"
#include "cli_test_support.h"

namespace {

using Harness::Options;
using Harness::parseCommandLine;
using Harness::parseSize;
using TestSupport::parseArgs;

TEST(ParseSize, AcceptsNumbersPowersAndSuffixes) {
    EXPECT_EQ(parseSize("1048576"), 1048576);
    EXPECT_EQ(parseSize("2^20"), 1048576);
    EXPECT_EQ(parseSize("1M"), 1048576);
    EXPECT_EQ(parseSize("1m"), 1048576);
    EXPECT_EQ(parseSize("4K"), 4096);
    EXPECT_EQ(parseSize("1G"), 1 << 30);
    EXPECT_EQ(parseSize("2^0"), 1);
    EXPECT_EQ(parseSize("2147483647"), 2147483647);
}

TEST(ParseSize, AcceptsSweepSizesUpTo2To33) {
    EXPECT_EQ(parseSize("2^31"), 1LL << 31);
    EXPECT_EQ(parseSize("2147483648"), 1LL << 31);
    EXPECT_EQ(parseSize("2G"), 1LL << 31);
    EXPECT_EQ(parseSize("8G"), 1LL << 33);
    EXPECT_EQ(parseSize("2^33"), Harness::kMaxSweepSize);
    EXPECT_EQ(parseSize("8589934592"), 1LL << 33);
}

TEST(ParseSize, RejectsWhatIsNotASize) {
    for (const char *bad : {"", "0", "-5", "2^34", "8589934593", "3^4", "2^", "^5", "1.5", "12x", "M", "9G",
                            "8193M", " 5", "99999999999999999999", "2^99"}) {
        EXPECT_THROW(parseSize(bad), std::invalid_argument) << "'" << bad << "'";
    }
}

TEST(ParseSize, MessageSaysWhatIsAccepted) {
    try {
        parseSize("12x");
        FAIL();
    } catch (const std::invalid_argument &e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("'12x'"), std::string::npos);
        EXPECT_NE(message.find("2^20"), std::string::npos);
    }
}

TEST(FormatSize, PowersOfTwoAsExponents) {
    EXPECT_EQ(Harness::formatSize(1 << 20), "2^20");
    EXPECT_EQ(Harness::formatSize(1), "2^0");
    EXPECT_EQ(Harness::formatSize(1000), "1000");
}

TEST(CommandLine, DefaultsAreTheCourses) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({}, options, errors), -1);
    EXPECT_EQ(options.size, 1 << 20);
    EXPECT_EQ(options.blockSize, 128);
    EXPECT_EQ(options.reps, 5);
    EXPECT_FALSE(options.backends.empty());
    EXPECT_EQ(options.backends.front(), "cpu");
}

TEST(CommandLine, ReadsEveryFlag) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--size", "2^16", "--block-size", "256", "--seed", "7", "--backends", "cpu,thrust", "--reps",
                     "3"},
                    options, errors),
              -1)
        << errors;
    EXPECT_EQ(options.size, 1 << 16);
    EXPECT_EQ(options.blockSize, 256);
    EXPECT_EQ(options.seed, 7u);
    EXPECT_EQ(options.backends, (std::vector<std::string>{"cpu", "thrust"}));
    EXPECT_EQ(options.reps, 3);
}

struct BadLine {
    std::vector<const char *> args;
    const char *mustName;  // the flag or value the one-line error names
};

TEST(CommandLine, BadInputGetsOneLineAndStatus2) {
    const BadLine cases[] = {
        {{"--size", "12x"}, "--size"},           {{"--size", "0"}, "--size"},
        {{"--size", "-1"}, "--size"},            {{"--size", "2"}, "--size"},
        {{"--size", "2^40"}, "--size"},          {{"--block-size", "100"}, "--block-size"},
        {{"--block-size", "2048"}, "--block-size"}, {{"--block-size", "abc"}, "--block-size"},
        {{"--backends", "cpu,gpu"}, "'gpu'"},    {{"--reps", "0"}, "--reps"},
        {{"--seed", "x"}, "--seed"},             {{"--frobnicate"}, "--frobnicate"},
        {{"--size", "2^31"}, "--size"},          {{"--size", "2147483648"}, "2^31 - 1"},
    };
    for (const BadLine &bad : cases) {
        Options options;
        std::string errors;
        EXPECT_EQ(parseArgs(bad.args, options, errors), 2) << bad.mustName;
        EXPECT_NE(errors.find(bad.mustName), std::string::npos) << errors;
        EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << errors;
    }
}

TEST(CommandLine, OnlyASweepTakesASizePast2To31Minus1) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--size", "2147483647"}, options, errors), -1) << errors;
    EXPECT_EQ(options.size, 2147483647);
    Options sweep;
    EXPECT_EQ(parseArgs({"--size", "2^32", "--format", "csv"}, sweep, errors), -1) << errors;
    EXPECT_TRUE(sweep.sweep);
    EXPECT_EQ(sweep.sizes, (std::vector<long long>{1LL << 32}));
}

TEST(CommandLine, HelpAndVersionExitZero) {
    Options options;
    std::string errors;
    testing::internal::CaptureStdout();
    EXPECT_EQ(parseArgs({"--help"}, options, errors), 0);
    EXPECT_NE(testing::internal::GetCapturedStdout().find("--block-size"), std::string::npos);
    testing::internal::CaptureStdout();
    EXPECT_EQ(parseArgs({"--version"}, options, errors), 0);
    EXPECT_NE(testing::internal::GetCapturedStdout().find("cis565_stream_compaction"), std::string::npos);
}

}  // namespace
