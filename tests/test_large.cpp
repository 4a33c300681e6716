// The 64-bit-size API (large.h) of the CPU, Thrust, CUB and decoupled back ends: every operation
// against the independent references at the edge sizes, with poisoned outputs; scans
// whose int32 sums overflow; and, on a GPU with enough free memory, every operation at
// n = 2^31 + 17, checked by streaming passes over the input instead of reference arrays.

#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <stream_compaction/cpu.h>
#include <stream_compaction/cub.h>
#include <stream_compaction/decoupled.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/thrust.h>

#include "reference.hpp"
#include "test_support.h"

namespace {

using namespace StreamCompaction;

struct LargeBackend {
    const char *name;
    bool gpu;  // device arrays; else host arrays
    Common::PerformanceTimer &(*timer)();
    void (*scan)(std::size_t, long long *, const int *);
    std::size_t (*compact)(std::size_t, int *, const int *, Predicate);
    std::size_t (*partition)(std::size_t, int *, const int *, Predicate);
    void (*sort)(std::size_t, int *, const int *);  // nullptr: no sort
};

void PrintTo(const LargeBackend &backend, std::ostream *os) { *os << backend.name; }

// A registry row's 64-bit entry points.
LargeBackend large(const Backend &row) {
    return {row.name, row.onGpu, row.timer, row.scan64, row.compact64, row.partition64, row.sort64};
}

const LargeBackend kCpu = large(CPU::backend());
const LargeBackend kThrust = large(Thrust::backend());
const LargeBackend kCub = large(Cub::backend());
const LargeBackend kDecoupled = large(Decoupled::backend());

const std::vector<std::size_t> kEdgeSizes = {0, 1, 2, 3, 31, 32, 33, 1000, 1 << 16, (1 << 20) + 1};

const Predicate kPredicates[] = {Predicate::nonZero(), Predicate::multipleOf(3), Predicate::greaterThan(10)};

/** A value whose bytes are all 0xCD: what an unwritten output element holds. */
template <typename T>
T poison() {
    T value;
    std::memset(&value, 0xCD, sizeof value);
    return value;
}

// Runs `call(out, in)` with every output element poisoned first: on the host arrays for
// the CPU, on device copies for a GPU back end (whose input must come back unchanged).
// Returns the whole output array.
template <typename Out, typename Call>
std::vector<Out> runPoisoned(const LargeBackend &backend, const std::vector<int> &input, Call call) {
    const std::size_t n = input.size();
    std::vector<Out> output(n, poison<Out>());
    if (!backend.gpu) {
        call(output.data(), input.data());
        return output;
    }
    Common::DeviceBuffer<int> dIn(n);
    Common::DeviceBuffer<Out> dOut(n);
    dIn.upload(input.data(), n);
    dOut.fillBytes(0xCD, n);
    call(dOut.get(), dIn.get());
    dOut.download(output.data(), n);
    std::vector<int> inputAfter(n);
    dIn.download(inputAfter.data(), n);
    EXPECT_EQ(inputAfter, input) << "the input was modified";
    return output;
}

class LargeEdgeTest : public ::testing::TestWithParam<std::tuple<LargeBackend, std::size_t>> {
protected:
    // The back end, a fresh random input of the case's size, and its seed in every failure.
    void SetUp() override {
        backend_ = std::get<0>(GetParam());
        n_ = std::get<1>(GetParam());
        if (backend_.gpu) SKIP_WITHOUT_GPU();
        const auto seed = TestSupport::freshSeed();
        trace_.emplace(__FILE__, __LINE__,
                       testing::Message() << backend_.name << ", n = " << n_ << ", seed " << seed);
        input_ = TestSupport::randomInput(static_cast<int>(n_), seed);
    }

    LargeBackend backend_{};
    std::size_t n_ = 0;
    std::vector<int> input_;
    std::optional<testing::ScopedTrace> trace_;
};

TEST_P(LargeEdgeTest, Scan) {
    const auto output = runPoisoned<long long>(backend_, input_, [&](long long *out, const int *in) {
        backend_.scan(n_, out, in);
    });
    EXPECT_EQ(output, TestingHelpers::referenceScanInt64(input_));
}

TEST_P(LargeEdgeTest, Compact) {
    for (Predicate keep : kPredicates) {
        std::size_t kept = 0;
        auto output = runPoisoned<int>(backend_, input_, [&](int *out, const int *in) {
            kept = backend_.compact(n_, out, in, keep);
        });
        const std::vector<int> want = TestingHelpers::referenceCompact(input_, keep);
        ASSERT_EQ(kept, want.size()) << keep.name();
        output.resize(kept);
        EXPECT_EQ(output, want) << keep.name();
    }
}

TEST_P(LargeEdgeTest, Partition) {
    for (Predicate keep : kPredicates) {
        std::size_t kept = 0;
        const auto output = runPoisoned<int>(backend_, input_, [&](int *out, const int *in) {
            kept = backend_.partition(n_, out, in, keep);
        });
        EXPECT_EQ(kept, TestingHelpers::referenceCompact(input_, keep).size()) << keep.name();
        EXPECT_EQ(output, TestingHelpers::referencePartition(input_, keep)) << keep.name();
    }
}

// Sort, for the back ends that offer it (decoupled does not).
class LargeEdgeSortTest : public LargeEdgeTest {};

TEST_P(LargeEdgeSortTest, Sort) {
    const auto output = runPoisoned<int>(backend_, input_, [&](int *out, const int *in) {
        backend_.sort(n_, out, in);
    });
    EXPECT_EQ(output, TestingHelpers::referenceSort(input_));
}

std::string edgeCaseName(const testing::TestParamInfo<std::tuple<LargeBackend, std::size_t>> &info) {
    return std::string(std::get<0>(info.param).name) + "_n" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, LargeEdgeTest,
                         testing::Combine(testing::Values(kCpu, kThrust, kCub, kDecoupled), testing::ValuesIn(kEdgeSizes)),
                         edgeCaseName);
INSTANTIATE_TEST_SUITE_P(EdgeSizes, LargeEdgeSortTest,
                         testing::Combine(testing::Values(kCpu, kThrust, kCub), testing::ValuesIn(kEdgeSizes)),
                         edgeCaseName);

class LargeBackendTest : public ::testing::TestWithParam<LargeBackend> {};

// 2^20 values near INT_MAX: the sums pass 2^31 after two elements and reach about 2^51,
// so any int32 accumulation on the way shows.
TEST_P(LargeBackendTest, ScanIsExactWhereInt32SumsOverflow) {
    const LargeBackend backend = GetParam();
    if (backend.gpu) SKIP_WITHOUT_GPU();
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << backend.name << ", seed " << seed);
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> belowMax(0, 1000);
    std::vector<int> input(std::size_t{1} << 20);
    for (int &v : input) v = INT_MAX - belowMax(engine);

    const auto output = runPoisoned<long long>(backend, input, [&](long long *out, const int *in) {
        backend.scan(input.size(), out, in);
    });
    const std::vector<long long> want = TestingHelpers::referenceScanInt64(input);
    ASSERT_GT(want.back(), (1LL << 50));
    EXPECT_EQ(output, want);
}

INSTANTIATE_TEST_SUITE_P(Backends, LargeBackendTest, testing::Values(kCpu, kThrust, kCub, kDecoupled),
                         [](const testing::TestParamInfo<LargeBackend> &info) { return std::string(info.param.name); });

// ---- n = 2^31 + 17 on the GPU -------------------------------------------------------

std::uint64_t mix64(std::uint64_t x) {  // SplitMix64's finalizer
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/** n values, a quarter zeros and the rest over the whole int range; fast enough for 2^31. */
std::vector<int> hugeInput(std::size_t n, std::uint64_t seed) {
    std::vector<int> input(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t bits = mix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
        input[i] = (bits & 3) == 0 ? 0 : static_cast<int>(static_cast<std::uint32_t>(bits >> 32));
    }
    return input;
}

// Streaming checks: one pass over input and output each, reporting the first difference.

testing::AssertionResult scanMatches(const std::vector<int> &input, const std::vector<long long> &sums) {
    long long sum = 0;
    for (std::size_t i = 0; i < input.size(); ++i) {
        if (sums[i] != sum) return testing::AssertionFailure() << "sum " << i << " is " << sums[i] << ", want " << sum;
        sum += input[i];
    }
    return testing::AssertionSuccess();
}

// The kept elements in order from out[0], then (for a partition) the rejected ones in
// order from out[kept]; `kept` must be the number of elements that `keep` accepts.
testing::AssertionResult splitMatches(const std::vector<int> &input, Predicate keep, const std::vector<int> &out,
                                      std::size_t kept, bool withRejected) {
    std::size_t accepted = 0;
    for (int v : input) accepted += keep(v) ? 1 : 0;
    if (kept != accepted) {
        return testing::AssertionFailure() << keep.name() << ": " << kept << " kept, want " << accepted;
    }
    std::size_t nextKept = 0, nextRejected = kept;
    for (std::size_t i = 0; i < input.size(); ++i) {
        const bool isKept = keep(input[i]);
        if (!isKept && !withRejected) continue;
        const std::size_t at = isKept ? nextKept++ : nextRejected++;
        if (out[at] != input[i]) {
            return testing::AssertionFailure() << keep.name() << ": element " << at << " is " << out[at]
                                               << ", want input[" << i << "] = " << input[i];
        }
    }
    return testing::AssertionSuccess();
}

// Sorted, and the same multiset as the input: compared by an order-independent
// fingerprint (the sum of a 64-bit hash of each value) instead of sorting a host copy.
testing::AssertionResult sortMatches(const std::vector<int> &input, const std::vector<int> &sorted) {
    std::uint64_t inputPrint = 0, sortedPrint = 0;
    for (std::size_t i = 0; i < input.size(); ++i) {
        if (i > 0 && sorted[i - 1] > sorted[i]) {
            return testing::AssertionFailure() << "element " << i << " = " << sorted[i] << " follows " << sorted[i - 1];
        }
        inputPrint += mix64(static_cast<std::uint32_t>(input[i]));
        sortedPrint += mix64(static_cast<std::uint32_t>(sorted[i]));
    }
    if (inputPrint != sortedPrint) return testing::AssertionFailure() << "sorted, but not the input's values";
    return testing::AssertionSuccess();
}

double gib(std::size_t bytes) { return static_cast<double>(bytes) / (1ull << 30); }

// A GPU back end and a size past 2^31 - 1.
class LargeHugeTest : public ::testing::TestWithParam<std::tuple<LargeBackend, std::size_t>> {
protected:
    // One huge test at a time, across the processes CTest runs side by side: two would
    // not fit in the GPU's (or the host's) memory together.
    void SetUp() override {
        lockFile_ = open("/tmp/cis565_stream_compaction_huge_test.lock", O_CREAT | O_RDWR, 0666);
        if (lockFile_ >= 0) flock(lockFile_, LOCK_EX);
    }
    // No cached temporaries of earlier tests count against the memory check, and none of
    // this test's (several GiB) are left for the next.
    static void releaseTemporaries() {
        Common::releaseWorkspaces();
    }
    void TearDown() override {
        if (Common::deviceAvailable()) releaseTemporaries();
        if (lockFile_ >= 0) close(lockFile_);  // releases the lock
    }

private:
    int lockFile_ = -1;
};

TEST_P(LargeHugeTest, EveryOperationPast2To31) {
    const auto [backend, n] = GetParam();
    SKIP_WITHOUT_GPU();
    // Input (4n), the scan's int64 output (8n), and the libraries' temporaries: a sort's
    // or a Thrust partition's second copy of the keys (4n) and whatever Thrust's cache
    // still holds from the previous operation (4n), with room to spare.
    const std::size_t needed = 24 * n;
    releaseTemporaries();
    const std::size_t freeBytes = Common::freeDeviceMemory();
    if (freeBytes < needed) {
        GTEST_SKIP() << "not enough free device memory for n = " << n << ": needs " << gib(needed) << " GiB, "
                     << gib(freeBytes) << " GiB free";
    }
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << backend.name << ", n = " << n << ", seed " << seed);
    const std::vector<int> input = hugeInput(n, seed);
    Common::DeviceBuffer<int> dIn(n);
    dIn.upload(input.data(), n);

    {  // scan first, while the int64 output is the only other big buffer
        Common::DeviceBuffer<long long> dSums(n);
        dSums.fillBytes(0xCD, n);
        backend.scan(n, dSums.get(), dIn.get());
        std::vector<long long> sums(n);
        dSums.download(sums.data(), n);
        EXPECT_TRUE(scanMatches(input, sums));
    }

    Common::DeviceBuffer<int> dOut(n);
    std::vector<int> output(n);
    // A quarter dropped; then everything but INT_MIN kept, so the kept count passes 2^31 - 1.
    for (Predicate keep : {Predicate::nonZero(), Predicate::greaterThan(INT_MIN)}) {
        dOut.fillBytes(0xCD, n);
        const std::size_t kept = backend.compact(n, dOut.get(), dIn.get(), keep);
        ASSERT_LE(kept, n);
        dOut.download(output.data(), kept);
        EXPECT_TRUE(splitMatches(input, keep, output, kept, false));
    }

    const Predicate positive = Predicate::greaterThan(0);  // about 3/8 kept: the rejected tail passes 2^31
    dOut.fillBytes(0xCD, n);
    const std::size_t kept = backend.partition(n, dOut.get(), dIn.get(), positive);
    ASSERT_LE(kept, n);
    dOut.download(output.data(), n);
    EXPECT_TRUE(splitMatches(input, positive, output, kept, true));

    if (backend.sort == nullptr) return;
    dOut.fillBytes(0xCD, n);
    backend.sort(n, dOut.get(), dIn.get());
    dOut.download(output.data(), n);
    EXPECT_TRUE(sortMatches(input, output));
}

// Sizes just past 2^31 (int32 counts overflow) and just past 2^32 (uint32
// counts overflow).
INSTANTIATE_TEST_SUITE_P(Gpu, LargeHugeTest,
                         testing::Combine(testing::Values(kThrust, kCub, kDecoupled),
                                          testing::Values((std::size_t{1} << 31) + 17, (std::size_t{1} << 32) + 3)),
                         [](const testing::TestParamInfo<std::tuple<LargeBackend, std::size_t>> &info) {
                             return std::string(std::get<0>(info.param).name) + "_n" +
                                    std::to_string(std::get<1>(info.param));
                         });

}  // namespace
