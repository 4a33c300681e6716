// Randomized differential testing: draws random cases (size 0 to 2^22, skewed towards
// edges; random values, predicate and block size) and checks every operation of every
// chosen back end against the independent CPU references. A failure prints a line to
// replay it with. Ends with "N passed, N failed".
//
//   sc_stress --cases 10000 [--seed S] [--backends cpu,decoupled] [--max-log2 22]

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>

#include "measure/runner.h"

namespace {

using StreamCompaction::Backend;
using StreamCompaction::Predicate;

struct Case {
    int n = 0;
    std::uint64_t seed = 0;
    Predicate keep;
    int blockSize = 128;
    int shape = 0;  // which kind of input, see makeInput()
};

// Sizes skewed towards the places where indexing goes wrong: tiny sizes, and powers of
// two and multiples of common tile sizes plus or minus a little.
int drawSize(std::mt19937_64 &rng, int maxLog2) {
    std::uniform_int_distribution<int> pick(0, 9);
    std::uniform_int_distribution<int> exponent(0, maxLog2);
    std::uniform_int_distribution<int> nudge(-3, 3);
    const int limit = 1 << maxLog2;
    switch (pick(rng)) {
        case 0: return std::uniform_int_distribution<int>(0, 40)(rng);
        case 1:
        case 2: return std::clamp((1 << exponent(rng)) + nudge(rng), 0, limit);
        case 3: {
            const int tile = 32 << std::uniform_int_distribution<int>(0, 7)(rng);
            const int tiles = std::uniform_int_distribution<int>(1, std::max(1, limit / tile))(rng);
            return std::clamp(tiles * tile + nudge(rng), 0, limit);
        }
        default: {  // log-uniform
            const double lg = std::uniform_real_distribution<double>(0.0, maxLog2)(rng);
            return static_cast<int>(std::min<double>(limit, std::exp2(lg)));
        }
    }
}

Predicate drawPredicate(std::mt19937_64 &rng) {
    switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
        case 0: return Predicate::nonZero();
        case 1: {
            int k = std::uniform_int_distribution<int>(-7, 7)(rng);
            return Predicate::multipleOf(k == 0 ? 3 : k);
        }
        default: return Predicate::greaterThan(std::uniform_int_distribution<int>(-100, 100)(rng));
    }
}

// Inputs of several shapes: small values with a quarter zeros, the full int range,
// all equal, sorted, reversed, and a few distinct values.
std::vector<int> makeInput(const Case &c) {
    std::mt19937_64 rng(c.seed);
    std::vector<int> values(static_cast<std::size_t>(c.n));
    std::uniform_int_distribution<int> small(-50, 49), full(INT32_MIN, INT32_MAX), few(-2, 2), quarter(0, 3);
    switch (c.shape) {
        case 0: for (int &v : values) v = quarter(rng) == 0 ? 0 : small(rng); break;
        case 1: for (int &v : values) v = full(rng); break;
        case 2: std::fill(values.begin(), values.end(), small(rng)); break;
        case 3: for (int &v : values) v = small(rng); std::sort(values.begin(), values.end()); break;
        case 4: for (int &v : values) v = full(rng); std::sort(values.rbegin(), values.rend()); break;
        default: for (int &v : values) v = few(rng); break;
    }
    return values;
}

}  // namespace

int main(int argc, char **argv) {
    CLI::App app{"Randomized differential testing of every back end against CPU references", "sc_stress"};
    long long cases = 1000;
    std::uint64_t seed = std::random_device{}();
    int maxLog2 = 22;
    std::vector<std::string> chosen;
    app.add_option("--cases", cases, "How many random cases")->check(CLI::Range(1LL, 100000000LL));
    app.add_option("--seed", seed, "Seed of the case generator (default: fresh)");
    app.add_option("--max-log2", maxLog2, "Largest size, as a power of two")->check(CLI::Range(0, 28));
    std::vector<std::string> names;
    for (const Backend &backend : StreamCompaction::backends()) names.push_back(backend.name);
    app.add_option("--backends", chosen, "Back ends to check (default: all usable here)")
        ->delimiter(',')
        ->check(CLI::IsMember(names));
    CLI11_PARSE(app, argc, argv);

    const bool gpu = StreamCompaction::Common::deviceAvailable();
    std::vector<const Backend *> backends;
    for (const Backend &backend : StreamCompaction::backends()) {
        const bool wanted = chosen.empty() || std::find(chosen.begin(), chosen.end(), backend.name) != chosen.end();
        if (wanted && (gpu || !backend.onGpu)) backends.push_back(&backend);
    }
    fmt::print("sc_stress: {} cases, seed {}, sizes up to 2^{}, back ends:", cases, seed, maxLog2);
    for (const Backend *backend : backends) fmt::print(" {}", backend->name);
    fmt::print("{}\n", gpu ? "" : " (no CUDA device: GPU back ends skipped)");
    std::fflush(stdout);

    std::mt19937_64 rng(seed);
    long long passed = 0, failed = 0;
    Harness::RunSettings settings;
    settings.warmup = 0;
    settings.reps = 1;
    for (long long i = 0; i < cases; ++i) {
        Case c;
        c.n = drawSize(rng, maxLog2);
        c.seed = rng();
        c.keep = drawPredicate(rng);
        c.blockSize = 32 * std::uniform_int_distribution<int>(1, 32)(rng);
        c.shape = std::uniform_int_distribution<int>(0, 5)(rng);
        StreamCompaction::Common::setBlockSize(c.blockSize);
        settings.keep = c.keep;
        const std::vector<int> input = makeInput(c);
        for (Harness::Op op : Harness::kAllOps) {
            const Harness::Expected want = Harness::expected(op, input, c.keep);
            for (const Backend *backend : backends) {
                if (!Harness::offers(*backend, op)) continue;
                std::string problem;
                try {
                    const Harness::Verdict verdict = Harness::verify(op, Harness::run(*backend, op, input, settings), want);
                    if (!verdict.passed()) problem = verdict.detail;
                } catch (const std::exception &e) {
                    problem = e.what();
                }
                if (problem.empty()) {
                    ++passed;
                    continue;
                }
                ++failed;
                fmt::print("FAIL {} {}: n = {}, keep {}, block size {}, input shape {}, input seed {}: {}\n",
                           backend->name, Harness::opName(op), c.n, c.keep.name(), c.blockSize, c.shape, c.seed,
                           problem);
            }
        }
        StreamCompaction::Common::releaseWorkspaces();
        if ((i + 1) % 250 == 0 && i + 1 < cases) {  // progress, flushed: a run cut short shows how far it got
            fmt::print("{} cases: {} passed, {} failed\n", i + 1, passed, failed);
            std::fflush(stdout);
        }
    }
    fmt::print("{} passed, {} failed\n", passed, failed);
    if (passed + failed == 0) {
        fmt::print("sc_stress: nothing was checked: no chosen back end can run here\n");
        return 1;
    }
    return failed == 0 ? 0 : 1;
}
