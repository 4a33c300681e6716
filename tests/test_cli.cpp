// The command line: sizes, flags, and one clear line for each bad value.

#include <gtest/gtest.h>

#include "cli/cli.h"
#include "cli_test_support.h"

namespace {

using Harness::Options;
using Harness::parseCommandLine;
using Harness::parseSize;
using TestSupport::expectRejected;
using TestSupport::parseArgs;
using TestSupport::printedBy;
using TestSupport::rejection;

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
    expectRejected(parseSize, {"", "0", "-5", "2^34", "8589934593", "3^4", "2^", "^5", "1.5", "12x", "M", "9G",
                               "8193M", " 5", "99999999999999999999", "2^99"});
}

TEST(ParseSize, MessageSaysWhatIsAccepted) {
    const std::string message = rejection(parseSize, "12x");
    EXPECT_NE(message.find("'12x'"), std::string::npos) << message;
    EXPECT_NE(message.find("2^20"), std::string::npos) << message;
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
    EXPECT_EQ(options.reps, 0);  // 0: calls until the noise is known
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
        {{"--size", "3"}, "SIZE >= 4"},          {{"--reps", "1001"}, "--reps"},
        {{"--reps", "0x10"}, "--reps"},          {{"--warmup", "-1"}, "--warmup"},
        {{"--block-size", "0x80"}, "--block-size"}, {{"--seed", "-1"}, "--seed"},
        {{"--seed", "0x10"}, "--seed"},          {{"--seed", "18446744073709551616"}, "--seed"},
    };
    for (const BadLine &bad : cases) {
        Options options;
        std::string errors;
        EXPECT_EQ(parseArgs(bad.args, options, errors), 2) << bad.mustName;
        EXPECT_NE(errors.find(bad.mustName), std::string::npos) << errors;
        EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << errors;
    }
}

// Numbers are decimal whatever they start with: CLI11's own conversion would read "010"
// as octal 8 and store "0256" as 174.
TEST(CommandLine, NumbersWithALeadingZeroAreDecimal) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--reps", "010", "--warmup", "010", "--block-size", "0256", "--seed", "010"}, options, errors),
              -1)
        << errors;
    EXPECT_EQ(options.reps, 10);
    EXPECT_EQ(options.warmup, 10);
    EXPECT_EQ(options.blockSize, 256);
    EXPECT_EQ(options.blockSizes, (std::vector<int>{256}));
    EXPECT_EQ(options.seed, 10u);
}

TEST(CommandLine, SeedsSpanTheirWholeRange) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--seed", "18446744073709551615"}, options, errors), -1) << errors;
    EXPECT_EQ(options.seed, 18446744073709551615u);
}

TEST(CommandLine, APredicateTakesTheSmallestInt) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--keep", "gt:-2147483648"}, options, errors), -1) << errors;
    EXPECT_TRUE(options.keep(0));
    EXPECT_FALSE(options.keep(-2147483647 - 1));
}

// A list names each size, block size, op and back end once, however often it was typed,
// so that no cell is measured twice and no report holds the same row twice.
TEST(CommandLine, RepeatedListItemsRunOnce) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--sizes", "2^4,16,1000,2^4:2^5", "--block-sizes", "128,2^7,256", "--backends",
                         "cpu,naive,cpu", "--ops", "scan,sort,scan"},
                        options, errors),
              -1)
        << errors;
    EXPECT_EQ(options.sizes, (std::vector<long long>{16, 1000, 32}));
    EXPECT_EQ(options.blockSizes, (std::vector<int>{128, 256}));
    EXPECT_EQ(options.backends, (std::vector<std::string>{"cpu", "naive"}));
    EXPECT_EQ(options.ops, (std::vector<Harness::Op>{Harness::Op::Scan, Harness::Op::Sort}));
}

// SIZE >= 4 is the test sequence's need (its SIZE - 3); a sweep takes any size.
TEST(CommandLine, ASweepTakesASizeBelow4) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--size", "3", "--format", "csv"}, options, errors), -1) << errors;
    EXPECT_TRUE(options.sweep);
    EXPECT_EQ(options.sizes, (std::vector<long long>{3}));
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

// A misspelt flag or name gets the nearest one suggested, and every name listed.
TEST(CommandLine, UnknownFlagsAndNamesGetSuggestions) {
    const std::pair<std::vector<const char *>, std::string> cases[] = {
        {{"--backend", "cpu"}, "cis565_stream_compaction: unknown flag --backend; did you mean --backends?\n"},
        {{"--block-sizez=128"}, "cis565_stream_compaction: unknown flag --block-sizez; did you mean --block-sizes?\n"},
        {{"--sizes", "4", "--qiuet"}, "cis565_stream_compaction: unknown flag --qiuet; did you mean --quiet?\n"},
        {{"--frobnicate"}, "cis565_stream_compaction: unknown flag --frobnicate; see --help\n"},
        {{"--ops", "scans"},
         "cis565_stream_compaction: --ops: unknown operation 'scans'; did you mean 'scan'? operations: scan, compact, "
         "partition, sort, sort-pairs, sort-unsigned\n"},
        {{"--format", "jsno"},
         "cis565_stream_compaction: --format: unknown format 'jsno'; did you mean 'json'? formats: text, markdown, "
         "csv, json\n"},
        {{"--format", "html"}, "cis565_stream_compaction: --format: unknown format 'html'; formats: text, markdown, "
                               "csv, json\n"},
    };
    for (const auto &[args, message] : cases) {
        Options options;
        std::string errors;
        EXPECT_EQ(parseArgs(args, options, errors), 2) << message;
        EXPECT_EQ(errors, message);
    }
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--backends", "cuda"}, options, errors), 2);
    EXPECT_EQ(errors.rfind("cis565_stream_compaction: --backends: unknown back end 'cuda'; back ends: cpu, naive, ", 0),
              0u)
        << errors;
    EXPECT_EQ(parseArgs({"--backends", "efficent"}, options, errors), 2);
    EXPECT_NE(errors.find("unknown back end 'efficent'; did you mean 'efficient'? back ends: cpu, "), std::string::npos)
        << errors;
}

// One number syntax for every size and block-size flag.
TEST(CommandLine, BlockSizesTakeTheSizeSyntax) {
    for (const auto &[text, value] : {std::pair<const char *, int>{"2^8", 256}, {"256", 256}, {"1K", 1024},
                                      {"0256", 256}, {"2^5", 32}}) {
        Options options;
        std::string errors;
        EXPECT_EQ(parseArgs({"--block-size", text}, options, errors), -1) << text << ": " << errors;
        EXPECT_EQ(options.blockSize, value) << text;
        EXPECT_EQ(options.blockSizes, (std::vector<int>{value})) << text;
    }
    for (const char *bad : {"2^11", "2K", "100", "128,256", "2^7:2^8", "0x80", "", "-128"}) {
        Options options;
        std::string errors;
        EXPECT_EQ(parseArgs({"--block-size", bad}, options, errors), 2) << bad;
        EXPECT_NE(errors.find("--block-size"), std::string::npos) << errors;
    }
    EXPECT_EQ(Harness::parseBlockSize("1K"), 1024);
    EXPECT_THROW(Harness::parseBlockSize("48"), std::invalid_argument);
}

TEST(CommandLine, ContradictoryFlagsAreRefused) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--npot", "--no-npot"}, options, errors), 2);
    EXPECT_EQ(errors, "cis565_stream_compaction: --npot and --no-npot contradict each other; give one of them\n");
    Options npot;
    EXPECT_EQ(parseArgs({"--npot"}, npot, errors), -1) << errors;
    EXPECT_TRUE(npot.npot);
    EXPECT_TRUE(npot.sweep);
    Options noNpot;
    EXPECT_EQ(parseArgs({"--no-npot"}, noNpot, errors), -1) << errors;
    EXPECT_FALSE(noNpot.npot);
    EXPECT_TRUE(noNpot.sweep);
    Options sizes;
    EXPECT_EQ(parseArgs({"--size", "2^8", "--sizes", "2^9"}, sizes, errors), 2);
}

TEST(CommandLine, OutputExtensionsInAnyCase) {
    Options options;
    std::string errors;
    EXPECT_EQ(parseArgs({"--output", "A.CSV", "--output", "b.Json", "--output", "c.MD"}, options, errors), -1) << errors;
    EXPECT_EQ(options.outputs, (std::vector<std::string>{"A.CSV", "b.Json", "c.MD"}));
}

// --help: examples first, plain placeholders, no CLI11 default markers, the exit statuses.
TEST(CommandLine, HelpIsPlain) {
    const std::string help = printedBy({"--help"});
    EXPECT_NE(help.find("Examples"), std::string::npos) << help;
    EXPECT_LT(help.find("--sizes 2^24 --block-sizes 2^7:2^10"), help.find("Options:")) << help;
    EXPECT_NE(help.find("--block-size B "), std::string::npos) << help;
    EXPECT_EQ(help.find("{false}"), std::string::npos) << help;
    EXPECT_EQ(help.find("TEXT"), std::string::npos) << help;
    EXPECT_NE(help.find("Exit status: 0"), std::string::npos) << help;
}

// --ops in --help: every operation's name, and what a sweep runs without --ops (kDefaultOps).
TEST(CommandLine, HelpNamesEveryOperationAndTheDefaultOnes) {
    const std::string help = printedBy({"--help"});
    EXPECT_NE(help.find("scan, compact, partition, sort, sort-pairs, sort-unsigned (default: scan, compact, partition, "
                        "sort)"),
              std::string::npos)
        << help;
}

// --processes takes a fixed count from 1 to kMaxProcesses.
TEST(CommandLine, OnlyAFixedCountOfProcesses) {
    EXPECT_NE(printedBy({"--help"}).find("--processes N"), std::string::npos);
    Options options;
    std::string errors;
    ASSERT_EQ(parseArgs({"--sizes", "2^10", "--processes", "64"}, options, errors), -1) << errors;
    EXPECT_EQ(options.processes, Harness::kMaxProcesses);
    EXPECT_EQ(parseArgs({"--sizes", "2^10", "--processes", "65"}, options, errors), 2);
}

// --max-noise is the median's: --help and the reports' sampling line say so.
TEST(CommandLine, TheNoiseLimitIsTheMedians) {
    EXPECT_NE(printedBy({"--help"}).find("its median is known to within +-P percent"), std::string::npos);
    Options options;
    EXPECT_NE(Harness::samplingText(options).find(
                  "median of calls until its 95% interval is within +-0.5% (at least 10 calls and 50 ms, at most 2 s)"),
              std::string::npos)
        << Harness::samplingText(options);
}

TEST(CommandLine, HelpAndVersionExitZero) {
    EXPECT_NE(printedBy({"--help"}).find("--block-size"), std::string::npos);
    EXPECT_NE(printedBy({"--version"}).find("cis565_stream_compaction"), std::string::npos);
}

}  // namespace

namespace {

// One line on stderr naming the flag and what it accepts, exit 2, for each bad value of
// the sampling flags; and their values as given.
TEST(CommandLine, SamplingFlagsRefuseWhatTheyCannotTake) {
    struct Bad {
        std::vector<const char *> args;
        const char *says;
    };
    for (const Bad &bad : {Bad{{"--max-noise", "0"}, "--max-noise"}, Bad{{"--max-noise", "101%"}, "--max-noise"},
                           Bad{{"--min-time", "-1"}, "--min-time"}, Bad{{"--min-time", "5x"}, "--min-time"},
                           Bad{{"--max-time", "0"}, "--max-time"}, Bad{{"--min-samples", "1"}, "--min-samples"},
                           Bad{{"--min-time", "2s", "--max-time", "1s"}, "--max-time"},
                           Bad{{"--reps", "5", "--max-noise", "1"}, "--reps"}}) {
        Harness::Options options;
        std::string errors;
        EXPECT_EQ(TestSupport::parseArgs(bad.args, options, errors), 2) << bad.args.front();
        EXPECT_NE(errors.find(bad.says), std::string::npos) << errors;
        EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << errors;
    }
    Harness::Options options;
    std::string errors;
    ASSERT_EQ(TestSupport::parseArgs({"--sizes", "2^10", "--min-samples", "20", "--min-time", "100ms", "--max-noise",
                                      "2%", "--max-time", "3s", "--hot", "--no-blocking-kernel", "--no-interleave"},
                                     options, errors),
              -1)
        << errors;
    EXPECT_EQ(options.minSamples, 20);
    EXPECT_DOUBLE_EQ(options.minTimeMs, 100);
    EXPECT_DOUBLE_EQ(options.maxNoise, 0.02);
    EXPECT_DOUBLE_EQ(options.maxTimeMs, 3000);
    EXPECT_TRUE(options.hot);
    EXPECT_FALSE(options.blockingKernel);
    EXPECT_FALSE(options.interleave);
    const Harness::RunSettings settings = Harness::runSettings(options);
    EXPECT_FALSE(settings.cold);
    EXPECT_EQ(settings.reps, 0);
    // The course's test sequence takes half a second a figure unless told.
    Harness::Options course;
    ASSERT_EQ(TestSupport::parseArgs({}, course, errors), -1) << errors;
    EXPECT_DOUBLE_EQ(course.maxTimeMs, Harness::kCourseMaxTimeMs);
}

}  // namespace
