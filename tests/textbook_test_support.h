#pragma once
// Shared by test_textbook.cpp and test_radix.cpp: the input shapes they are checked on and
// a case's input from a fresh seed, a block-size scope, a poisoned device call, and a
// check through the harness's runner.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/launch.h>

#include "measure/runner.h"
#include "test_support.h"

namespace TextbookTests {

/** Random: TestSupport::randomInput ([-100, 100), a quarter zeros); FullRange: any int. */
enum class Shape { Random, FullRange, AllEqual, Sorted, Reversed };

inline const char *shapeName(Shape shape) {
    switch (shape) {
        case Shape::Random: return "random";
        case Shape::FullRange: return "fullrange";
        case Shape::AllEqual: return "allequal";
        case Shape::Sorted: return "sorted";
        case Shape::Reversed: return "reversed";
    }
    return "?";
}

/** n values of the given shape; the random ones from `seed`. */
inline std::vector<int> makeInput(Shape shape, int n, std::uint64_t seed) {
    if (shape == Shape::AllEqual) return std::vector<int>(static_cast<std::size_t>(n), -7);
    std::vector<int> input;
    if (shape == Shape::FullRange) {
        std::mt19937_64 engine(seed);
        std::uniform_int_distribution<int> values(INT_MIN, INT_MAX);
        input.resize(static_cast<std::size_t>(n));
        for (int &v : input) v = values(engine);
        return input;
    }
    input = TestSupport::randomInput(n, seed);
    if (shape == Shape::Sorted) std::sort(input.begin(), input.end());
    if (shape == Shape::Reversed) std::sort(input.begin(), input.end(), std::greater<int>());
    return input;
}

/** The input of a case (shape, n), from a fresh seed that a trace names with the shape and n. */
inline TestSupport::SeededInput caseInput(const std::tuple<Shape, int> &shapeAndSize) {
    const Shape shape = std::get<0>(shapeAndSize);
    const int n = std::get<1>(shapeAndSize);
    return TestSupport::SeededInput(std::string(shapeName(shape)) + ", n = " + std::to_string(n),
                                    [shape, n](std::uint64_t seed) { return makeInput(shape, n, seed); });
}

/** Sets the GPU block size for a scope and puts the old one back. */
class BlockSizeScope {
public:
    explicit BlockSizeScope(int threads) : before_(StreamCompaction::Common::blockSize()) {
        StreamCompaction::Common::setBlockSize(threads);
    }
    ~BlockSizeScope() { StreamCompaction::Common::setBlockSize(before_); }
    BlockSizeScope(const BlockSizeScope &) = delete;
    BlockSizeScope &operator=(const BlockSizeScope &) = delete;

private:
    int before_;
};

/**
 * Uploads `input`, poisons an output of the same size with 0xCD bytes, runs
 * call(dOut, dIn) and returns the whole output.
 */
template <typename T, typename Call>
std::vector<T> runPoisoned(const std::vector<T> &input, Call call) {
    StreamCompaction::Common::DeviceBuffer<T> in(input.size()), out(input.size());
    in.upload(input.data(), input.size());
    out.fillBytes(Harness::kPoisonByte, input.size());
    call(out.get(), in.get());
    std::vector<T> output(input.size());
    out.download(output.data(), output.size());
    return output;
}

/** One operation of a registered back end through Harness::run(), checked by Harness::verify(). */
inline void expectMatchesReference(const char *backendName, Harness::Op op, const std::vector<int> &input,
                                   StreamCompaction::Predicate keep) {
    const StreamCompaction::Backend *backend = StreamCompaction::findBackend(backendName);
    ASSERT_NE(backend, nullptr) << "no back end named " << backendName;
    // The checked call is the second: it reuses the first call's scratch.
    const Harness::RunSettings settings{.warmup = 1, .reps = 1, .keep = keep};
    const Harness::Run result = Harness::run(*backend, op, input, settings);
    const Harness::Verdict verdict = Harness::verify(op, result, Harness::expected(op, input, keep));
    EXPECT_TRUE(verdict.passed()) << verdict.detail;
}

}  // namespace TextbookTests
