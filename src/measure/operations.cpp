#include "measure/operations.h"

#include <algorithm>
#include <random>

#include "reference.hpp"
#include "measure/runner.h"
#include "testing_helpers.hpp"

namespace Harness {

using StreamCompaction::Backend;
using StreamCompaction::Predicate;

namespace {

// The course's inputs: size - 1 draws from [0, bound), then a 0 at the end.
std::vector<int> courseInput(long long size, int bound) {
    std::vector<int> values(static_cast<std::size_t>(size), 0);
    if (size > 0) {
        std::uniform_int_distribution<int> draws(0, bound - 1);
        std::generate(values.begin(), values.end() - 1, [&draws] { return draws(TestingHelpers::generator()); });
    }
    return values;
}

// Compaction's and partition's input: about a quarter zeros.
std::vector<int> flagsInput(long long size) { return courseInput(size, 4); }

// Keys over the whole int range, negatives included.
std::vector<int> fullRangeInput(long long size) {
    std::vector<int> values(static_cast<std::size_t>(size));
    std::uniform_int_distribution<int> keys(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    for (int &value : values) value = keys(TestingHelpers::generator());
    return values;
}

// Whether the back end has the entry point of the width asked: `Entry32` and `Entry64` are
// its member pointers for the two widths.
template <auto Entry32, auto Entry64>
bool offeredBy(const Backend &backend, bool wide) {
    return wide ? backend.*Entry64 != nullptr : backend.*Entry32 != nullptr;
}

// A compaction or partition: kept elements first; the count in *kept (32-bit entry
// points, and -1 returned) or returned (64-bit). `Entry32` and `Entry64` are the back
// end's member pointers for the two widths.
template <void (*Backend::*Entry32)(int, int *, const int *, Predicate, int *),
          std::size_t (*Backend::*Entry64)(std::size_t, int *, const int *, Predicate)>
long long callCounted(const Backend &backend, bool wide, long long n, int *out, const int *in, Predicate keep,
                      int *kept) {
    if (wide) return static_cast<long long>((backend.*Entry64)(static_cast<std::size_t>(n), out, in, keep));
    (backend.*Entry32)(static_cast<int>(n), out, in, keep, kept);
    return -1;
}

// A scan or sort: n outputs, no count.
template <void (*Backend::*Entry32)(int, int *, const int *), void (*Backend::*Entry64)(std::size_t, int *, const int *)>
long long callAll(const Backend &backend, bool wide, long long n, int *out, const int *in, Predicate, int *) {
    if (wide) (backend.*Entry64)(static_cast<std::size_t>(n), out, in);
    else (backend.*Entry32)(static_cast<int>(n), out, in);
    return n;
}

Result expectedCount(std::vector<int> output, long long kept) {
    Result result;
    result.output = std::move(output);
    result.kept = kept;
    return result;
}

const Operation kScan{
    .op = Op::Scan, .name = "scan", .courseSection = "SCAN TESTS",
    .bytesCounted = "scan 8n (12n past 2^31 - 1, int64 sums)", .returnsCount = false, .keptOnly = false,
    .offeredBy = offeredBy<&Backend::scan, &Backend::scan64>,
    .call = [](const Backend &b, bool, long long n, int *out, const int *in, Predicate, int *) {
        b.scan(static_cast<int>(n), out, in);  // the 64-bit scan writes int64 sums: callInt64Sums
        return n;
    },
    .callInt64Sums = [](const Backend &b, std::size_t n, long long *out, const int *in) { b.scan64(n, out, in); },
    .trafficBytes = [](long long n, long long) {
        return double(n) * (pastIntSizes(n) ? sizeof(int) + sizeof(long long) : 2 * sizeof(int));
    },
    .randomInput = [](long long size) { return courseInput(size, 50); },
    .expected = [](const std::vector<int> &input, Predicate, bool int64Sums) {
        Result result;
        if (int64Sums) result.sums64 = TestingHelpers::referenceScanInt64(input);
        else result.output = TestingHelpers::referenceScan(input);
        result.kept = static_cast<long long>(input.size());
        return result;
    },
};

const Operation kCompact{
    .op = Op::Compact, .name = "compact", .courseSection = "STREAM COMPACTION TESTS",
    .bytesCounted = "compact 4n + 4k (k kept)", .returnsCount = true, .keptOnly = true,
    .offeredBy = offeredBy<&Backend::compact, &Backend::compact64>,
    .call = callCounted<&Backend::compact, &Backend::compact64>,
    .trafficBytes = [](long long n, long long kept) { return (double(n) + double(kept)) * sizeof(int); },
    .randomInput = flagsInput,
    .expected = [](const std::vector<int> &input, Predicate keep, bool) {
        std::vector<int> kept = TestingHelpers::referenceCompact(input, keep);
        const auto count = static_cast<long long>(kept.size());
        return expectedCount(std::move(kept), count);
    },
};

const Operation kPartition{
    .op = Op::Partition, .name = "partition", .courseSection = "PARTITION TESTS",
    .bytesCounted = "partition 8n", .returnsCount = true,
    .keptOnly = false,  // every element is written: the kept ones, then the rest
    .offeredBy = offeredBy<&Backend::partition, &Backend::partition64>,
    .call = callCounted<&Backend::partition, &Backend::partition64>,
    .trafficBytes = [](long long n, long long) { return 2.0 * double(n) * sizeof(int); },
    .randomInput = flagsInput,
    .expected = [](const std::vector<int> &input, Predicate keep, bool) {
        const long long kept = TestingHelpers::referenceKeptCount(input, keep);
        return expectedCount(TestingHelpers::referencePartition(input, keep), kept);
    },
};

// A pairs sort: keys, then values, in the input and the output (Operation::pairs).
template <void (*Backend::*Entry)(int, int *, int *, const int *, const int *)>
long long callPairs(const Backend &backend, bool, long long n, int *out, const int *in, Predicate, int *) {
    (backend.*Entry)(static_cast<int>(n), out, out + n, in, in + n);
    return n;
}

// An operation offered for the course's `int n` only (sort-pairs, sort-unsigned).
template <auto Entry>
bool offeredNarrow(const Backend &backend, bool wide) {
    return !wide && backend.*Entry != nullptr;
}

const Operation kSort{
    .op = Op::Sort, .name = "sort", .courseSection = "RADIX SORT TESTS",
    .bytesCounted = "sort 8n (the minimum: one read and one write; a radix sort moves more)", .returnsCount = false,
    .keptOnly = false,
    .offeredBy = offeredBy<&Backend::sort, &Backend::sort64>,
    .call = callAll<&Backend::sort, &Backend::sort64>,
    .trafficBytes = [](long long n, long long) { return 2.0 * double(n) * sizeof(int); },
    .randomInput = fullRangeInput,
    .expected = [](const std::vector<int> &input, Predicate, bool) {
        return expectedCount(TestingHelpers::referenceSort(input), static_cast<long long>(input.size()));
    },
};

const Operation kSortPairs{
    .op = Op::SortPairs, .name = "sort-pairs", .courseSection = nullptr,
    .bytesCounted = "sort-pairs 16n (keys and values, one read and one write each)", .returnsCount = false,
    .keptOnly = false, .pairs = true,
    .offeredBy = offeredNarrow<&Backend::sortPairs>,
    .call = callPairs<&Backend::sortPairs>,
    .trafficBytes = [](long long n, long long) { return 4.0 * double(n) * sizeof(int); },
    .randomInput = fullRangeInput,
    .expected = [](const std::vector<int> &input, Predicate, bool) {
        const auto n = static_cast<long long>(input.size());
        return expectedCount(TestingHelpers::referenceSortPairs(withPairValues(input)), n);
    },
};

// An unsigned sort: the harness's int arrays hold the keys' 32-bit patterns.
long long callUnsigned(const Backend &backend, bool, long long n, int *out, const int *in, Predicate, int *) {
    backend.sortUnsigned(static_cast<int>(n), reinterpret_cast<unsigned *>(out), reinterpret_cast<const unsigned *>(in));
    return n;
}

const Operation kSortUnsigned{
    .op = Op::SortUnsigned, .name = "sort-unsigned", .courseSection = nullptr,
    .bytesCounted = "sort-unsigned 8n (as sort)", .returnsCount = false, .keptOnly = false,
    .offeredBy = offeredNarrow<&Backend::sortUnsigned>,
    .call = callUnsigned,
    .trafficBytes = [](long long n, long long) { return 2.0 * double(n) * sizeof(int); },
    .randomInput = fullRangeInput,  // every 32-bit pattern, so the keys span the unsigned range too
    .expected = [](const std::vector<int> &input, Predicate, bool) {
        return expectedCount(TestingHelpers::referenceSortUnsigned(input), static_cast<long long>(input.size()));
    },
};

}  // namespace

std::vector<int> withPairValues(const std::vector<int> &keys) {
    std::vector<int> paired(2 * keys.size());
    std::copy(keys.begin(), keys.end(), paired.begin());
    for (std::size_t i = 0; i < keys.size(); ++i) paired[keys.size() + i] = pairValue(static_cast<long long>(i));
    return paired;
}

const Operation &describe(Op op) {
    switch (op) {
        case Op::Scan: return kScan;
        case Op::Compact: return kCompact;
        case Op::Partition: return kPartition;
        case Op::Sort: return kSort;
        case Op::SortPairs: return kSortPairs;
        case Op::SortUnsigned: return kSortUnsigned;
    }
    return kScan;
}

void forEachCourseInput(long long size, std::uint64_t seed,
                        const std::function<bool(Op, const std::vector<int> &)> &each) {
    TestingHelpers::setSeed(seed);
    std::vector<int> input;
    std::vector<int> (*madeBy)(long long) = nullptr;  // the generator of `input`
    for (Op op : kAllOps) {
        const Operation &operation = describe(op);
        if (operation.courseSection == nullptr) continue;  // not one of the course's operations
        if (operation.randomInput != madeBy) input = operation.randomInput(size);
        madeBy = operation.randomInput;
        if (!each(op, input)) return;
    }
}

std::vector<const Backend *> offering(const std::vector<std::string> &names, Op op) {
    std::vector<const Backend *> chosen;
    for (const std::string &name : names) {
        const Backend *backend = StreamCompaction::findBackend(name);
        if (backend && offers(*backend, op)) chosen.push_back(backend);
    }
    return chosen;
}

}  // namespace Harness
