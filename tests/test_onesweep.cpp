// The Onesweep radix sort (stream_compaction/onesweep.h) against std::sort: sizes 0, 1, 2
// and 33, around the Hopper policy's tile (the H200's; test_policies.cpp takes every
// family's tile), several and many tiles, 2^20 + 3 and 2^24 + 7; keys over the whole int
// range (negatives included), all equal, already sorted, reverse sorted and with few
// distinct values (INT_MIN and INT_MAX among them). Every output is poisoned with 0xCD
// bytes first, the input must come back unchanged, and every case is sorted twice, so that
// the second call runs on the look-back words the first one left. A sort of at most one
// tile runs in one block (the small-array path: up to 4096 keys a bitonic network of 1024,
// 2048 or 4096 keys, up to 4096 pairs a radix tile of as many; then one full tile): the
// sizes around each cross from one network or tile shape to the next, and around the tile
// from one path to the other. Sort-pairs carries random values with the keys and
// is checked for stability against a sort by (key, input position), at the same sizes
// around its own tile. Sort-unsigned sorts the same keys read as unsigned, at the keys' sizes.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <reference.hpp>
#include <stream_compaction/backends.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/onesweep.h>
#include <testing_helpers.hpp>

#include "measure/runner.h"
#include "test_support.h"

namespace {

namespace Onesweep = StreamCompaction::Onesweep;
using StreamCompaction::Common::DeviceBuffer;

/** Keys per pass tile of the Hopper policy, the H200's. */
const int kTile = Onesweep::tileItems(StreamCompaction::Common::PolicyFamily::Hopper);

enum class Shape { WholeRange, AllEqual, Sorted, Reversed, FewDistinct };

const char *shapeName(Shape shape) {
    switch (shape) {
        case Shape::WholeRange: return "wholerange";
        case Shape::AllEqual: return "allequal";
        case Shape::Sorted: return "sorted";
        case Shape::Reversed: return "reversed";
        case Shape::FewDistinct: return "fewdistinct";
    }
    return "?";
}

/** Whether a sort reads the keys as signed ints (Backend::sort) or as unsigned (sortUnsigned). */
enum class Keys { Signed, Unsigned };

/** n keys of the given shape, sorted and reverse sorted in the order `keys` reads them; the random ones from `seed`. */
std::vector<int> makeInput(Shape shape, int n, std::uint64_t seed, Keys keys = Keys::Signed) {
    std::vector<int> input(static_cast<std::size_t>(n));
    std::mt19937_64 engine(seed);
    if (shape == Shape::AllEqual) {
        std::fill(input.begin(), input.end(), -7);
    } else if (shape == Shape::FewDistinct) {
        const int values[] = {INT_MIN, -1000000, -1, 0, 3, 256, INT_MAX};
        std::uniform_int_distribution<int> pick(0, static_cast<int>(std::size(values)) - 1);
        for (int &v : input) v = values[pick(engine)];
    } else {
        std::uniform_int_distribution<int> values(INT_MIN, INT_MAX);
        for (int &v : input) v = values(engine);
        const auto less = [keys](int a, int b) {
            return keys == Keys::Signed ? a < b : static_cast<unsigned>(a) < static_cast<unsigned>(b);
        };
        if (shape == Shape::Sorted) std::sort(input.begin(), input.end(), less);
        if (shape == Shape::Reversed) std::sort(input.begin(), input.end(), [&less](int a, int b) { return less(b, a); });
    }
    return input;
}

/** The first difference, reported by index (a whole-array EXPECT_EQ would print millions of keys). */
void expectSameArrays(const std::vector<int> &actual, const std::vector<int> &expected, const char *what) {
    ASSERT_EQ(actual.size(), expected.size()) << what;
    const long long i =
        TestingHelpers::firstMismatch<int>(static_cast<long long>(actual.size()), actual.data(), expected.data());
    EXPECT_EQ(i, -1) << what << ": [" << i << "] = " << (i >= 0 ? actual[i] : 0) << ", expected "
                     << (i >= 0 ? expected[i] : 0);
}

std::vector<int> download(const DeviceBuffer<int> &buffer, int n, int offset = 0) {
    std::vector<int> host(static_cast<std::size_t>(n));
    if (n > 0) {
        SC_CUDA_CHECK(cudaMemcpy(host.data(), buffer.get() + offset, n * sizeof(int), cudaMemcpyDeviceToHost));
    }
    return host;
}

/**
 * Sorts `input` on the device twice, from `inOffset` and into `outOffset` ints past the
 * buffers' starts, with the output poisoned before each call; checks each output against
 * std::sort (of the keys read as `keys` says) and the input for being unchanged.
 */
void expectSortsLikeStdSort(const std::vector<int> &input, int inOffset = 0, int outOffset = 0,
                            Keys keys = Keys::Signed) {
    const int n = static_cast<int>(input.size());
    const std::vector<int> expected =
        keys == Keys::Signed ? TestingHelpers::referenceSort(input) : TestingHelpers::referenceSortUnsigned(input);
    DeviceBuffer<int> dIn(input.size() + inOffset), dOut(input.size() + outOffset);
    if (n > 0) {
        SC_CUDA_CHECK(cudaMemcpy(dIn.get() + inOffset, input.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    }
    for (const char *call : {"first call", "second call"}) {
        dOut.fillBytes(Harness::kPoisonByte, input.size() + outOffset);
        if (keys == Keys::Signed) {
            Onesweep::backend().sort(n, dOut.get() + outOffset, dIn.get() + inOffset);
        } else {
            Onesweep::backend().sortUnsigned(n, reinterpret_cast<unsigned *>(dOut.get() + outOffset),
                                             reinterpret_cast<const unsigned *>(dIn.get() + inOffset));
        }
        expectSameArrays(download(dOut, n, outOffset), expected, call);
    }
    expectSameArrays(download(dIn, n, inOffset), input, "input after sorting");
}

// The sizes of a suite whose tile holds `tile` keys (or pairs): 0 to 2 and 33; the ends of
// the small-array path's networks and tiles of 512 threads of 2, 4 and 8; around the tile (the
// last one-block size, the first of the passes); several tiles; many, so that the
// look-back passes many aggregates; and two large ones.
// The one-block path's ends and the full tile's; a whole number of the smaller passes'
// tiles (`midTile`) and one more; the last size of the smaller tiles, 2^20, and the first
// of the full ones.
std::vector<int> sizesAround(int tile, int midTile, int largest) {
    return {0,           1,               2,    33,       1024, 1025,         2048,          2049,
            4096,        4097,            tile - 1, tile, tile + 1, 3 * midTile, 3 * midTile + 1, 5 * tile + 3,
            100 * tile + 11, 1 << 20, (1 << 20) + 3, largest};
}

/** Keys per pass tile of Hopper's sorts up to 2^20 keys, without and with values. */
const int kMidTile = Onesweep::passTileItems(StreamCompaction::Common::PolicyFamily::Hopper, 1 << 16, false);
const int kMidPairTile = Onesweep::passTileItems(StreamCompaction::Common::PolicyFamily::Hopper, 1 << 16, true);

std::vector<int> sizes() { return sizesAround(kTile, kMidTile, (1 << 24) + 7); }

// Every input shape, and a case's name from its shape and size ("sorted_n6145").
const auto kAllShapes =
    testing::Values(Shape::WholeRange, Shape::AllEqual, Shape::Sorted, Shape::Reversed, Shape::FewDistinct);
std::string shapeAndSize(const testing::TestParamInfo<std::tuple<Shape, int>> &info) {
    return std::string(shapeName(std::get<0>(info.param))) + "_n" + std::to_string(std::get<1>(info.param));
}

class OnesweepSort : public ::testing::TestWithParam<std::tuple<Shape, int>> {};

TEST_P(OnesweepSort, MatchesStdSort) {
    SKIP_WITHOUT_GPU();
    const auto [shape, n] = GetParam();
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << "onesweep sort, " << shapeName(shape) << ", n = " << n << ", seed " << seed);
    expectSortsLikeStdSort(makeInput(shape, n, seed));
}

INSTANTIATE_TEST_SUITE_P(Sizes, OnesweepSort,
                         testing::Combine(kAllShapes, testing::ValuesIn(sizes())), shapeAndSize);

// The same keys sorted as unsigned ints: the same kernels without the sign bit's flip, so
// 0 orders first and -1 (0xFFFFFFFF) last, INT_MIN right after INT_MAX.
class OnesweepSortUnsigned : public ::testing::TestWithParam<std::tuple<Shape, int>> {};

TEST_P(OnesweepSortUnsigned, MatchesStdSortOfUnsigned) {
    SKIP_WITHOUT_GPU();
    const auto [shape, n] = GetParam();
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << "onesweep sort-unsigned, " << shapeName(shape) << ", n = " << n << ", seed "
                                    << seed);
    expectSortsLikeStdSort(makeInput(shape, n, seed, Keys::Unsigned), 0, 0, Keys::Unsigned);
}

INSTANTIATE_TEST_SUITE_P(Sizes, OnesweepSortUnsigned,
                         testing::Combine(kAllShapes, testing::ValuesIn(sizes())), shapeAndSize);

/** Keys per pass tile of a sort of pairs under the Hopper policy. */
const int kPairTile = Onesweep::pairTileItems(StreamCompaction::Common::PolicyFamily::Hopper);

/**
 * Sorts the keys with random values from `seed` on the device twice, the outputs poisoned
 * before each call; checks keys and values against the stable reference and both inputs
 * for being unchanged.
 */
void expectSortsPairsStably(const std::vector<int> &keys, std::uint64_t seed) {
    const int n = static_cast<int>(keys.size());
    std::vector<int> values(keys.size());
    std::mt19937_64 engine(seed ^ 0x5bd1e995u);
    std::uniform_int_distribution<int> draw(INT_MIN, INT_MAX);
    for (int &v : values) v = draw(engine);
    std::vector<int> pairs = keys;
    pairs.insert(pairs.end(), values.begin(), values.end());
    const std::vector<int> sorted = TestingHelpers::referenceSortPairs(pairs);
    const std::vector<int> wantKeys(sorted.begin(), sorted.begin() + n), wantValues(sorted.begin() + n, sorted.end());

    DeviceBuffer<int> dKeys(keys.size()), dValues(keys.size()), dKeysOut(keys.size()), dValuesOut(keys.size());
    if (n > 0) {
        SC_CUDA_CHECK(cudaMemcpy(dKeys.get(), keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        SC_CUDA_CHECK(cudaMemcpy(dValues.get(), values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    }
    for (const char *call : {"first call", "second call"}) {
        dKeysOut.fillBytes(Harness::kPoisonByte, keys.size());
        dValuesOut.fillBytes(Harness::kPoisonByte, keys.size());
        Onesweep::backend().sortPairs(n, dKeysOut.get(), dValuesOut.get(), dKeys.get(), dValues.get());
        SCOPED_TRACE(call);
        expectSameArrays(download(dKeysOut, n), wantKeys, "keys");
        expectSameArrays(download(dValuesOut, n), wantValues, "values");
    }
    expectSameArrays(download(dKeys, n), keys, "keys after sorting");
    expectSameArrays(download(dValues, n), values, "values after sorting");
}

std::vector<int> pairSizes() { return sizesAround(kPairTile, kMidPairTile, (1 << 22) + 7); }

class OnesweepSortPairs : public ::testing::TestWithParam<std::tuple<Shape, int>> {};

TEST_P(OnesweepSortPairs, MatchesAStableSort) {
    SKIP_WITHOUT_GPU();
    const auto [shape, n] = GetParam();
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << "onesweep sort-pairs, " << shapeName(shape) << ", n = " << n << ", seed "
                                    << seed);
    expectSortsPairsStably(makeInput(shape, n, seed), seed);
}

INSTANTIATE_TEST_SUITE_P(Sizes, OnesweepSortPairs,
                         testing::Combine(kAllShapes, testing::ValuesIn(pairSizes())), shapeAndSize);

// The scratch grows and is reused: sizes that shrink and grow again, each sorted twice.
TEST(OnesweepSortCalls, CallsOfChangingSize) {
    SKIP_WITHOUT_GPU();
    const int tile = kTile;
    const auto seed = TestSupport::freshSeed();
    for (int n : {40 * tile + 5, 1, tile + 1, (1 << 20) + 3, 2, 40 * tile + 5}) {
        SCOPED_TRACE(testing::Message() << "onesweep sort, n = " << n << ", seed " << seed);
        expectSortsLikeStdSort(makeInput(Shape::WholeRange, n, seed + static_cast<std::uint64_t>(n)));
    }
}

// The keys are read and written one int at a time: arrays at any int offset sort the same.
TEST(OnesweepSortCalls, UnalignedArrays) {
    SKIP_WITHOUT_GPU();
    const auto seed = TestSupport::freshSeed();
    const std::vector<int> input = makeInput(Shape::WholeRange, 3 * kTile + 7, seed);
    for (int inOffset : {1, 2, 3}) {
        SCOPED_TRACE(testing::Message() << "input " << inOffset << " ints past alignment, seed " << seed);
        expectSortsLikeStdSort(input, inOffset, 4 - inOffset);
    }
}

// The course's host-array API.
TEST(OnesweepSortCalls, HostArrays) {
    SKIP_WITHOUT_GPU();
    const auto seed = TestSupport::freshSeed();
    for (int n : {0, 1, 1000, 2 * kTile + 1}) {
        SCOPED_TRACE(testing::Message() << "onesweep host sort, n = " << n << ", seed " << seed);
        const std::vector<int> input = makeInput(Shape::FewDistinct, n, seed);
        std::vector<int> output = TestSupport::poisoned(n);
        StreamCompaction::hostSort(Onesweep::backend(), n, output.data(), input.data());
        expectSameArrays(output, TestingHelpers::referenceSort(input), "host sort");
    }
}

// The registry lists it as a GPU sort, so the harness, the sweeps and the course's run
// pick it up.
TEST(OnesweepSortCalls, IsRegisteredAsAGpuSort) {
    const StreamCompaction::Backend *onesweep = StreamCompaction::findBackend("onesweep");
    ASSERT_NE(onesweep, nullptr);
    EXPECT_TRUE(onesweep->onGpu);
    EXPECT_TRUE(Harness::offers(*onesweep, Harness::Op::Sort));
    EXPECT_TRUE(Harness::offers(*onesweep, Harness::Op::SortPairs));
    EXPECT_TRUE(Harness::offers(*onesweep, Harness::Op::SortUnsigned));
    for (Harness::Op op : {Harness::Op::Scan, Harness::Op::Compact, Harness::Op::Partition}) {
        EXPECT_FALSE(Harness::offers(*onesweep, op)) << Harness::opName(op);
    }
}

}  // namespace
