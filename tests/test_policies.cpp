// The fast back ends' tile policies, one per GPU family (Common::PolicyFamily): which
// family a compute capability picks, that the Hopper policies keep the H200's measured
// shapes, and, on any GPU, every family's policy forced in turn (the device's own family
// aside, the policies only ever run here): decoupled scan, compaction and partition,
// Onesweep's sort and the shared-memory scan and compaction at 1, 33, the family's tile
// - 1 and + 1, and 2^20 + 7, against the independent references with poisoned outputs
// (Harness::run), two timed calls after a warm-up each.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/decoupled.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>
#include <stream_compaction/onesweep.h>
#include <stream_compaction/shared.h>

#include "measure/runner.h"
#include "test_support.h"
#include "textbook_test_support.h"

namespace {

namespace Common = StreamCompaction::Common;
using Common::PolicyFamily;
using Harness::Op;
using StreamCompaction::Predicate;

// The shared-memory back end's tiles are this block size times the policy's items.
constexpr int kSharedBlock = 128;

/** Forces a policy family for a scope, then lifts it. */
class FamilyScope {
public:
    explicit FamilyScope(PolicyFamily family) { Common::forcePolicyFamilyForTesting(family); }
    ~FamilyScope() { Common::forcePolicyFamilyForTesting(std::nullopt); }
    FamilyScope(const FamilyScope &) = delete;
    FamilyScope &operator=(const FamilyScope &) = delete;
};

/** Lowers the shared memory a block may take for a scope, then lifts the limit. */
class SharedMemoryScope {
public:
    explicit SharedMemoryScope(std::size_t bytes) { Common::limitSharedMemoryForTesting(bytes); }
    ~SharedMemoryScope() { Common::limitSharedMemoryForTesting(0); }
    SharedMemoryScope(const SharedMemoryScope &) = delete;
    SharedMemoryScope &operator=(const SharedMemoryScope &) = delete;
};

TEST(PolicyFamilies, ComputeCapabilityPicksTheFamily) {
    EXPECT_EQ(Common::policyFamilyFor(7), PolicyFamily::Turing);  // sm_75
    EXPECT_EQ(Common::policyFamilyFor(8), PolicyFamily::Ampere);  // sm_80, sm_86, sm_89
    EXPECT_EQ(Common::policyFamilyFor(9), PolicyFamily::Hopper);
    for (int major : {10, 12, 13}) EXPECT_EQ(Common::policyFamilyFor(major), PolicyFamily::Blackwell) << major;
    std::set<std::string> names;
    for (PolicyFamily family : Common::kPolicyFamilies) names.insert(Common::policyFamilyName(family));
    EXPECT_EQ(names, (std::set<std::string>{"turing", "ampere", "hopper", "blackwell"}));
}

// The hook holds a family until lifted; forced, no device is asked.
TEST(PolicyFamilies, ForcedFamilyIsTheOneUsed) {
    for (PolicyFamily family : Common::kPolicyFamilies) {
        FamilyScope forced(family);
        EXPECT_EQ(Common::policyFamily(), family) << Common::policyFamilyName(family);
    }
}

// The H200's figures were measured with these shapes (results/h200/perf-notes.md).
TEST(PolicyFamilies, HopperKeepsTheMeasuredShapes) {
    EXPECT_EQ(StreamCompaction::Decoupled::tileItems(PolicyFamily::Hopper), 256 * 32);
    EXPECT_EQ(StreamCompaction::Decoupled::tileItemsFor(PolicyFamily::Hopper, 1 << 18), 256 * 8);
    EXPECT_EQ(StreamCompaction::Decoupled::tileItemsFor(PolicyFamily::Hopper, (1 << 18) + 1), 256 * 32);
    EXPECT_EQ(StreamCompaction::Decoupled::tileItemsFor(PolicyFamily::Ampere, 1 << 18),
              StreamCompaction::Decoupled::tileItems(PolicyFamily::Ampere));
    EXPECT_EQ(StreamCompaction::Onesweep::tileItems(PolicyFamily::Hopper), 384 * 16);
    EXPECT_EQ(StreamCompaction::Onesweep::pairTileItems(PolicyFamily::Hopper), 384 * 14);
    // Up to 2^20 keys Hopper's passes take smaller tiles; the other families their full one.
    EXPECT_EQ(StreamCompaction::Onesweep::passTileItems(PolicyFamily::Hopper, 1 << 20, false), 384 * 8);
    EXPECT_EQ(StreamCompaction::Onesweep::passTileItems(PolicyFamily::Hopper, 1 << 20, true), 384 * 10);
    EXPECT_EQ(StreamCompaction::Onesweep::passTileItems(PolicyFamily::Hopper, (1 << 20) + 1, false), 384 * 16);
    EXPECT_EQ(StreamCompaction::Onesweep::passTileItems(PolicyFamily::Hopper, (1 << 20) + 1, true), 384 * 14);
    EXPECT_EQ(StreamCompaction::Onesweep::passTileItems(PolicyFamily::Ampere, 1 << 20, false),
              StreamCompaction::Onesweep::tileItems(PolicyFamily::Ampere));
    EXPECT_EQ(StreamCompaction::Shared::itemsPerThread(PolicyFamily::Hopper), 16);
}

// The hook changes what runs: with 64 KiB of shared memory per block (sm_75's limit),
// the shared-memory scan at 1024 threads needs 70 KiB under the Hopper policy and is
// refused before it runs anything, while Turing's tile fits and is correct.
TEST(PolicyFamilies, TuringSharedTileFitsSixtyFourKiB) {
    SKIP_WITHOUT_GPU();
    const StreamCompaction::Backend *shared = StreamCompaction::findBackend("shared");
    ASSERT_NE(shared, nullptr);
    TextbookTests::BlockSizeScope blocks(1024);
    SharedMemoryScope limit(64 * 1024);
    const auto seed = TestSupport::freshSeed();
    const std::vector<int> input = TestSupport::randomInput(3 * 1024 * 8 + 5, seed);
    Harness::RunSettings settings;
    for (Op op : {Op::Scan, Op::Compact}) {
        SCOPED_TRACE(testing::Message() << "shared " << Harness::opName(op) << ", seed " << seed);
        {
            FamilyScope forced(PolicyFamily::Hopper);
            EXPECT_THROW(Harness::run(*shared, op, input, settings), StreamCompaction::Unsupported);
        }
        FamilyScope forced(PolicyFamily::Turing);
        const Harness::Run result = Harness::run(*shared, op, input, settings);
        const Harness::Verdict verdict = Harness::verify(op, result, Harness::expected(op, input, settings.keep));
        EXPECT_TRUE(verdict.passed()) << verdict.detail;
    }
}

struct PolicyCase {
    const char *backend;
    Op op;
};

const std::vector<PolicyCase> &policyCases() {
    static const std::vector<PolicyCase> cases = {
        {"decoupled", Op::Scan}, {"decoupled", Op::Compact}, {"decoupled", Op::Partition},
        {"onesweep", Op::Sort},  {"onesweep", Op::SortPairs}, {"onesweep", Op::SortUnsigned},
        {"shared", Op::Scan},    {"shared", Op::Compact},
    };
    return cases;
}

/** The back end's tile under `family`'s policy, in elements. */
int tileOf(const PolicyCase &which, PolicyFamily family) {
    const std::string name = which.backend;
    if (name == "decoupled") return StreamCompaction::Decoupled::tileItems(family);
    if (name == "onesweep" && which.op == Op::SortPairs) return StreamCompaction::Onesweep::pairTileItems(family);
    if (name == "onesweep") return StreamCompaction::Onesweep::tileItems(family);
    return kSharedBlock * StreamCompaction::Shared::itemsPerThread(family);
}

/** What a size is, for the test's name: the tile's neighbours are named by the tile. */
enum class SizeKind { One, ThirtyThree, TileLess1, TilePlus1, Large };

int sizeOf(SizeKind kind, int tile) {
    switch (kind) {
        case SizeKind::One: return 1;
        case SizeKind::ThirtyThree: return 33;
        case SizeKind::TileLess1: return tile - 1;
        case SizeKind::TilePlus1: return tile + 1;
        case SizeKind::Large: break;
    }
    return (1 << 20) + 7;
}

struct PolicyParam {
    PolicyFamily family;
    PolicyCase which;
    SizeKind kind;
    int n() const { return sizeOf(kind, tileOf(which, family)); }
};

void PrintTo(const PolicyParam &param, std::ostream *os) {
    *os << Common::policyFamilyName(param.family) << " policy, " << param.which.backend << " "
        << Harness::opName(param.which.op) << ", n = " << param.n();
}

std::vector<PolicyParam> policyParams() {
    std::vector<PolicyParam> params;
    for (PolicyFamily family : Common::kPolicyFamilies) {
        for (const PolicyCase &which : policyCases()) {
            for (SizeKind kind :
                 {SizeKind::One, SizeKind::ThirtyThree, SizeKind::TileLess1, SizeKind::TilePlus1, SizeKind::Large}) {
                params.push_back({family, which, kind});
            }
        }
    }
    return params;
}

class PolicyFamilyTest : public ::testing::TestWithParam<PolicyParam> {};

TEST_P(PolicyFamilyTest, MatchesReference) {
    SKIP_WITHOUT_GPU();
    const PolicyParam &param = GetParam();
    const PolicyFamily family = param.family;
    const PolicyCase &which = param.which;
    const int n = param.n();
    const StreamCompaction::Backend *backend = StreamCompaction::findBackend(which.backend);
    ASSERT_NE(backend, nullptr) << which.backend << " is not registered";
    ASSERT_TRUE(Harness::offers(*backend, which.op));
    FamilyScope forced(family);
    TextbookTests::BlockSizeScope blocks(kSharedBlock);
    const auto seed = TestSupport::freshSeed();
    Harness::RunSettings settings;
    settings.warmup = 1;
    settings.reps = 2;
    const std::vector<std::pair<const char *, std::vector<int>>> inputs = {
        {"signed input", TestSupport::randomInput(n, seed)}, {"whole-range input", TestSupport::wideInput(n, seed)}};
    std::vector<Predicate> predicates = {Predicate::nonZero()};
    if (which.op == Op::Compact || which.op == Op::Partition) predicates.push_back(Predicate::multipleOf(3));
    for (const auto &[what, input] : inputs) {
        for (Predicate keep : predicates) {
            SCOPED_TRACE(testing::Message() << Common::policyFamilyName(family) << " policy, " << which.backend << " "
                                            << Harness::opName(which.op) << ", n = " << n << ", " << what << ", keep "
                                            << keep.name() << ", seed " << seed);
            settings.keep = keep;
            const Harness::Run result = Harness::run(*backend, which.op, input, settings);
            const Harness::Verdict verdict = Harness::verify(which.op, result, Harness::expected(which.op, input, keep));
            EXPECT_TRUE(verdict.passed()) << verdict.detail;  // values, count, writes outside the output, input
        }
    }
}

std::string policyCaseName(const testing::TestParamInfo<PolicyParam> &info) {
    const PolicyParam &param = info.param;
    return std::string(Common::policyFamilyName(param.family)) + "_" + param.which.backend + "_" +
           TestSupport::testName(param.which.op) + "_n" + std::to_string(param.n());
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, PolicyFamilyTest, testing::ValuesIn(policyParams()), policyCaseName);

}  // namespace
