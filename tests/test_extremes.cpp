// Deterministic extremes beside the random cases, the same on every run: int32 scans
// that wrap, checked against hand-written sums; sorts of INT_MIN, INT_MAX, all-equal and
// alternating arrays; compactions that keep every element or none; the predicate at the
// ends of the int range (INT_MIN % -1 included); and every block-size boundary. Every
// back end offering the operation runs (a GPU one is skipped without a device).

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/common.h>
#include <stream_compaction/launch.h>

#include "cli/cli.h"
#include "cli_test_support.h"
#include "reference.hpp"
#include "measure/runner.h"
#include "test_support.h"

namespace {

namespace SC = StreamCompaction;
using Harness::Op;
using SC::Predicate;

// Sizes inside one warp, one tile and across many tiles of every GPU back end.
const int kSizes[] = {1, 7, 1000, 70001};

// The back ends offering `op`, by name.
std::vector<const SC::Backend *> offering(Op op) {
    std::vector<const SC::Backend *> found;
    for (const SC::Backend &backend : SC::backends()) {
        if (Harness::offers(backend, op)) found.push_back(&backend);
    }
    return found;
}

Harness::RunSettings once(Predicate keep = Predicate::nonZero(), bool wide = false) {
    return {.warmup = 0, .reps = 1, .keep = keep, .use64BitApi = wide};
}

// Runs `op` on every back end offering it and expects `want` (its output and count) and a
// passed verdict against the reference; a GPU back end is skipped without a device.
void expectEverywhere(Op op, const std::vector<int> &input, Predicate keep, const std::vector<int> &want,
                      long long wantKept) {
    for (const SC::Backend *backend : offering(op)) {
        if (backend->onGpu && !SC::Common::deviceAvailable()) continue;
        SCOPED_TRACE(testing::Message() << backend->name << " " << Harness::opName(op) << ", n = " << input.size()
                                        << ", keep " << keep.name());
        const Harness::Run run = Harness::run(*backend, op, input, once(keep));
        EXPECT_EQ(run.output, want);
        if (op == Op::Compact || op == Op::Partition) {
            EXPECT_EQ(run.kept, wantKept);
        }
        const Harness::Verdict verdict = Harness::verify(op, run, Harness::expected(op, input, keep));
        EXPECT_TRUE(verdict.passed()) << verdict.detail;
    }
}

// ---- The predicate at the ends of the int range ----

TEST(Predicate, MultipleOfMinusOneKeepsEveryIntIncludingIntMin) {
    const Predicate keep = Predicate::multipleOf(-1);
    for (int v : {INT_MIN, INT_MIN + 1, -1, 0, 1, INT_MAX}) EXPECT_TRUE(keep(v)) << v;
}

TEST(Predicate, ValuesAtTheEndsOfTheRange) {
    EXPECT_TRUE(Predicate::multipleOf(INT_MIN)(INT_MIN));
    EXPECT_TRUE(Predicate::multipleOf(INT_MIN)(0));
    EXPECT_FALSE(Predicate::multipleOf(INT_MIN)(INT_MAX));
    EXPECT_FALSE(Predicate::multipleOf(INT_MIN)(INT_MIN + 1));
    EXPECT_TRUE(Predicate::multipleOf(2)(INT_MIN));
    EXPECT_FALSE(Predicate::multipleOf(2)(INT_MAX));
    EXPECT_TRUE(Predicate::multipleOf(-2)(INT_MIN));
    EXPECT_TRUE(Predicate::multipleOf(INT_MAX)(INT_MAX));
    EXPECT_TRUE(Predicate::multipleOf(INT_MAX)(-INT_MAX));
    EXPECT_FALSE(Predicate::multipleOf(INT_MAX)(INT_MIN));
    EXPECT_TRUE(Predicate::multipleOf(-3)(-9));
    EXPECT_FALSE(Predicate::multipleOf(-3)(-10));
    EXPECT_FALSE(Predicate::greaterThan(INT_MAX)(INT_MAX));
    EXPECT_FALSE(Predicate::greaterThan(INT_MIN)(INT_MIN));
    EXPECT_TRUE(Predicate::greaterThan(INT_MIN)(INT_MIN + 1));
    EXPECT_TRUE(Predicate::greaterThan(-1)(0));
    EXPECT_FALSE(Predicate::greaterThan(0)(0));
    EXPECT_TRUE(Predicate::nonZero()(INT_MIN));
    EXPECT_FALSE(Predicate::nonZero()(0));
}

// The references' predicate is written apart from Predicate's; both say the same for
// every kind at the values where arithmetic goes wrong.
TEST(Predicate, TheReferencePredicateAgrees) {
    const std::vector<Predicate> predicates = {
        Predicate::nonZero(),          Predicate::multipleOf(1),       Predicate::multipleOf(-1),
        Predicate::multipleOf(2),      Predicate::multipleOf(3),       Predicate::multipleOf(-7),
        Predicate::multipleOf(INT_MIN), Predicate::multipleOf(INT_MAX), Predicate::greaterThan(INT_MIN),
        Predicate::greaterThan(-1),    Predicate::greaterThan(0),      Predicate::greaterThan(INT_MAX)};
    const std::vector<int> values = {INT_MIN, INT_MIN + 1, -INT_MAX / 2, -9, -2, -1, 0, 1, 2, 3, 9, 21, INT_MAX - 1,
                                     INT_MAX};
    for (const Predicate &keep : predicates) {
        for (int v : values) EXPECT_EQ(keep(v), TestingHelpers::referenceKeeps(keep, v)) << keep.name() << " " << v;
    }
}

// What the reference predicate says, written out by hand.
TEST(Predicate, TheReferencePredicateByHand) {
    using TestingHelpers::referenceKeeps;
    EXPECT_TRUE(referenceKeeps(Predicate::multipleOf(-1), INT_MIN));
    EXPECT_TRUE(referenceKeeps(Predicate::multipleOf(3), -3));
    EXPECT_FALSE(referenceKeeps(Predicate::multipleOf(3), 4));
    EXPECT_TRUE(referenceKeeps(Predicate::greaterThan(10), 11));
    EXPECT_FALSE(referenceKeeps(Predicate::greaterThan(10), 10));
    EXPECT_TRUE(referenceKeeps(Predicate::nonZero(), -1));
    EXPECT_FALSE(referenceKeeps(Predicate::nonZero(), 0));
}

// Full-range values, INT_MIN and INT_MAX among them: n values, every fifth one an end of
// the range.
std::vector<int> fullRange(int n) {
    std::vector<int> values(static_cast<std::size_t>(n));
    std::uint32_t x = 2463534242u;
    for (int i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        values[static_cast<std::size_t>(i)] = i % 5 == 0 ? (i % 10 == 0 ? INT_MIN : INT_MAX) : static_cast<int>(x);
    }
    return values;
}

// mod:-1 keeps everything, INT_MIN included: the compaction is the input, the partition
// too, with every element counted kept.
TEST(Extremes, MultipleOfMinusOneKeepsEveryFullRangeValue) {
    for (int n : kSizes) {
        const std::vector<int> input = fullRange(n);
        for (Op op : {Op::Compact, Op::Partition}) expectEverywhere(op, input, Predicate::multipleOf(-1), input, n);
    }
}

// gt:INT_MAX keeps nothing: an empty compaction, and a partition that is the input in order.
TEST(Extremes, GreaterThanIntMaxKeepsNothing) {
    for (int n : kSizes) {
        const std::vector<int> input = fullRange(n);
        expectEverywhere(Op::Compact, input, Predicate::greaterThan(INT_MAX), {}, 0);
        expectEverywhere(Op::Partition, input, Predicate::greaterThan(INT_MAX), input, 0);
    }
}

// nonzero over an array without zeros keeps all of it; over all zeros, none.
TEST(Extremes, NonZeroKeepsAllOrNone) {
    for (int n : kSizes) {
        const std::vector<int> input = fullRange(n);  // no zeros
        expectEverywhere(Op::Compact, input, Predicate::nonZero(), input, n);
        const std::vector<int> zeros(static_cast<std::size_t>(n), 0);
        expectEverywhere(Op::Compact, zeros, Predicate::nonZero(), {}, 0);
        expectEverywhere(Op::Partition, zeros, Predicate::nonZero(), zeros, 0);
    }
}

// mod:INT_MIN keeps INT_MIN and 0 only: kept first, the rest after, each in input order.
TEST(Extremes, MultipleOfIntMinKeepsIntMinAndZero) {
    const std::vector<int> input = {5, INT_MIN, 0, INT_MAX, -1, INT_MIN, 7, 0};
    const std::vector<int> kept = {INT_MIN, 0, INT_MIN, 0};
    const std::vector<int> partitioned = {INT_MIN, 0, INT_MIN, 0, 5, INT_MAX, -1, 7};
    expectEverywhere(Op::Compact, input, Predicate::multipleOf(INT_MIN), kept, 4);
    expectEverywhere(Op::Partition, input, Predicate::multipleOf(INT_MIN), partitioned, 4);
}

// ---- Scans that wrap int32 ----

// Exclusive sums worked out by hand: the third and fourth wrap past INT_MAX, the fifth
// back past INT_MIN.
TEST(Extremes, ScanWrapsLikeInt32AdditionByHand) {
    const std::vector<int> input = {INT_MAX, 1, INT_MAX, INT_MIN, -1, 5};
    const std::vector<int> sums = {0, INT_MAX, INT_MIN, -1, INT_MAX, INT_MAX - 1};
    expectEverywhere(Op::Scan, input, Predicate::nonZero(), sums, 0);
}

// INT_MAX, n times: sum i is i * (2^31 - 1) modulo 2^32, that is -i modulo 2^32 for even
// i and 2^31 - i for odd i, which wraps every other element.
TEST(Extremes, ScanOfIntMaxRepeatedWrapsEveryOtherElement) {
    for (int n : kSizes) {
        const std::vector<int> input(static_cast<std::size_t>(n), INT_MAX);
        std::vector<int> sums(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            const std::uint32_t sum = i % 2 == 0 ? 0u - static_cast<std::uint32_t>(i) : 0x80000000u - static_cast<std::uint32_t>(i);
            sums[static_cast<std::size_t>(i)] = static_cast<int>(sum);
        }
        expectEverywhere(Op::Scan, input, Predicate::nonZero(), sums, 0);
    }
}

// The 64-bit entry points' int64 sums do not wrap: the same inputs, exact.
TEST(Extremes, Int64ScanSumsDoNotWrap) {
    const std::vector<int> input = {INT_MAX, 1, INT_MAX, INT_MIN, -1, 5};
    const std::vector<long long> sums = {0, 2147483647LL, 2147483648LL, 4294967295LL, 2147483647LL, 2147483646LL};
    const std::vector<int> repeated(70001, INT_MIN);
    std::vector<long long> repeatedSums(repeated.size());
    for (std::size_t i = 0; i < repeated.size(); ++i) repeatedSums[i] = -2147483648LL * static_cast<long long>(i);
    for (const SC::Backend &backend : SC::backends()) {
        if (!Harness::offers64(backend, Op::Scan) || (backend.onGpu && !SC::Common::deviceAvailable())) continue;
        SCOPED_TRACE(backend.name);
        EXPECT_EQ(Harness::run(backend, Op::Scan, input, once(Predicate::nonZero(), true)).sums64, sums);
        EXPECT_EQ(Harness::run(backend, Op::Scan, repeated, once(Predicate::nonZero(), true)).sums64, repeatedSums);
    }
}

// ---- Sorts of the ends of the range ----

TEST(Extremes, SortOrdersIntMinFirstAndIntMaxLast) {
    const std::vector<int> input = {INT_MAX, INT_MIN, 0, -1, 1, INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1};
    const std::vector<int> sorted = {INT_MIN, INT_MIN, INT_MIN + 1, -1, 0, 1, INT_MAX - 1, INT_MAX, INT_MAX};
    expectEverywhere(Op::Sort, input, Predicate::nonZero(), sorted, 0);
}

TEST(Extremes, SortOfAllEqualValues) {
    for (int value : {INT_MIN, -1, 0, INT_MAX}) {
        for (int n : kSizes) {
            const std::vector<int> input(static_cast<std::size_t>(n), value);
            expectEverywhere(Op::Sort, input, Predicate::nonZero(), input, 0);
        }
    }
}

// The same keys read as unsigned: 0 first and -1 (0xFFFFFFFF) last, INT_MIN (0x80000000)
// right after INT_MAX (0x7FFFFFFF).
TEST(Extremes, SortUnsignedOrdersZeroFirstAndAllOnesLast) {
    const std::vector<int> input = {INT_MAX, INT_MIN, 0, -1, 1, INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1, -2};
    const std::vector<int> sorted = {0, 1, INT_MAX - 1, INT_MAX, INT_MAX, INT_MIN, INT_MIN, INT_MIN + 1, -2, -1};
    expectEverywhere(Op::SortUnsigned, input, Predicate::nonZero(), sorted, 0);
}

// n keys alternating high, low, high, ...: the input, and the keys sorted (the n / 2 lows,
// then the highs).
std::vector<int> alternating(int n, int high, int low) {
    std::vector<int> input(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) input[static_cast<std::size_t>(i)] = i % 2 == 0 ? high : low;
    return input;
}
std::vector<int> alternatingSorted(int n, int high, int low) {
    std::vector<int> sorted(static_cast<std::size_t>(n / 2), low);
    sorted.resize(static_cast<std::size_t>(n), high);
    return sorted;
}

// The same keys read as unsigned, where each pair's high key orders first (INT_MAX is
// 0x7FFFFFFF, INT_MIN 0x80000000; 0 is 0, -1 0xFFFFFFFF): the (n + 1) / 2 highs, then the lows.
std::vector<int> alternatingSortedUnsigned(int n, int high, int low) {
    std::vector<int> sorted(static_cast<std::size_t>((n + 1) / 2), high);
    sorted.resize(static_cast<std::size_t>(n), low);
    return sorted;
}

// The ends of the range and the two values on either side of the sign bit.
constexpr std::pair<int, int> kAlternatingPairs[] = {{INT_MAX, INT_MIN}, {0, -1}};

// INT_MAX and INT_MIN alternating, INT_MAX first: the INT_MIN half, then the INT_MAX half
// (one more of those for odd n). Then -1 and 0, on either side of the sign bit. Sorted as
// unsigned, each pair the other way round.
TEST(Extremes, SortOfAlternatingValues) {
    for (const auto &[high, low] : kAlternatingPairs) {
        for (int n : kSizes) {
            expectEverywhere(Op::Sort, alternating(n, high, low), Predicate::nonZero(), alternatingSorted(n, high, low),
                             0);
            expectEverywhere(Op::SortUnsigned, alternating(n, high, low), Predicate::nonZero(),
                             alternatingSortedUnsigned(n, high, low), 0);
        }
    }
}

// Sort-pairs on keys that alternate between the ends of the range (and then -1 and 0):
// each half keeps the input order of its keys, so the values (Harness::pairValue of the
// input positions) come out odd positions first, then even ones.
TEST(Extremes, SortPairsKeepsEqualKeysInInputOrder) {
    for (const auto &[high, low] : kAlternatingPairs) {
        for (int n : kSizes) {
            std::vector<int> want = alternatingSorted(n, high, low);
            for (int i = 1; i < n; i += 2) want.push_back(Harness::pairValue(i));
            for (int i = 0; i < n; i += 2) want.push_back(Harness::pairValue(i));
            expectEverywhere(Op::SortPairs, alternating(n, high, low), Predicate::nonZero(), want, 0);
        }
    }
}

// ---- Block sizes: the boundaries of "a multiple of 32 from 32 to 1024" ----

TEST(BlockSizeBoundaries, TheLibraryAcceptsExactlyTheMultiplesOf32From32To1024) {
    for (int ok : {32, 64, 96, 992, 1024}) EXPECT_TRUE(SC::Common::validBlockSize(ok)) << ok;
    for (int bad : {INT_MIN, -32, 0, 16, 31, 33, 48, 80, 1008, 1040, 1056, 2048, INT_MAX}) {
        EXPECT_FALSE(SC::Common::validBlockSize(bad)) << bad;
        EXPECT_THROW(SC::Common::setBlockSize(bad), std::invalid_argument) << bad;
    }
}

TEST(BlockSizeBoundaries, TheCommandLineAcceptsExactlyTheMultiplesOf32From32To1024) {
    for (const char *ok : {"32", "64", "992", "1024"}) {
        Harness::Options options;
        std::string errors;
        EXPECT_EQ(TestSupport::parseArgs({"--block-size", ok}, options, errors), -1) << ok << ": " << errors;
        EXPECT_EQ(options.blockSize, std::stoi(ok));
        Harness::Options sweep;
        EXPECT_EQ(TestSupport::parseArgs({"--block-sizes", ok}, sweep, errors), -1) << ok << ": " << errors;
        EXPECT_EQ(sweep.blockSizes, std::vector<int>{std::stoi(ok)});
    }
    // 2^32 + 128 and 2^33 + 32 would read as 128 and 32 if narrowed to int.
    for (const char *bad : {"0", "16", "31", "33", "48", "80", "1008", "1056", "2048", "4294967424", "8589934624"}) {
        for (const char *flag : {"--block-size", "--block-sizes"}) {
            Harness::Options options;
            std::string errors;
            EXPECT_EQ(TestSupport::parseArgs({flag, bad}, options, errors), 2) << flag << " " << bad;
            EXPECT_NE(errors.find(flag), std::string::npos) << errors;
        }
        EXPECT_THROW(Harness::parseBlockSizeList(bad), std::invalid_argument) << bad;
    }
    EXPECT_THROW(Harness::parseBlockSizeList("128,4294967424"), std::invalid_argument);
    EXPECT_THROW(Harness::parseBlockSizeList("2^5:2^11"), std::invalid_argument);
    EXPECT_EQ(Harness::parseBlockSizeList("2^5:2^10"), (std::vector<int>{32, 64, 128, 256, 512, 1024}));
}

}  // namespace
