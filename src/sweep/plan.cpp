#include "sweep/plan.h"

#include <algorithm>

#include <stream_compaction/backends.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>

namespace Harness {

using StreamCompaction::Backend;
namespace Common = StreamCompaction::Common;

std::string cellSkipReason(const Backend &backend, Op op, long long n) {
    if (pastIntSizes(n) && !offers64(backend, op)) return "n > 2^31 - 1";
    if (!backend.onGpu) return "";
    if (!Common::deviceAvailable()) return "no CUDA device";
    return Common::deviceLost();
}

std::vector<const Backend *> sweepBackends(const Options &options, Op op) {
    std::vector<const Backend *> chosen = offering(options.backends, op);
    const auto rank = [](const Backend *b) { return !b->onGpu ? 0 : b->reference ? 1 : 2; };
    std::stable_sort(chosen.begin(), chosen.end(),
                     [&rank](const Backend *a, const Backend *b) { return rank(a) < rank(b); });
    return chosen;
}

std::size_t blockSizesFor(const Backend &backend, const Options &options) {
    return backend.onGpu && backend.honoursBlockSize ? options.blockSizes.size() : 1;
}

std::vector<bool> variants(const Options &options, long long size) {
    const bool powerOfTwo = (size & (size - 1)) == 0;
    return options.npot && powerOfTwo && size >= 4 ? std::vector<bool>{false, true} : std::vector<bool>{false};
}

std::vector<PlannedCell> planCells(const Options &options, const std::vector<const Backend *> &backends) {
    std::vector<PlannedCell> plan;
    for (const Backend *backend : backends) {
        if (!backend->onGpu) plan.push_back({backend, std::nullopt});
    }
    for (const Backend *backend : backends) {
        if (backend->onGpu && !backend->honoursBlockSize) plan.push_back({backend, std::nullopt});
    }
    for (int block : options.blockSizes) {
        for (const Backend *backend : backends) {
            if (backend->onGpu && backend->honoursBlockSize) plan.push_back({backend, block});
        }
    }
    return plan;
}

long long cellCount(const Options &options) {
    long long cells = 0;
    for (Op op : options.ops) {
        for (const Backend *backend : sweepBackends(options, op)) {
            const auto perInput = static_cast<long long>(blockSizesFor(*backend, options));
            for (long long size : options.sizes) cells += perInput * static_cast<long long>(variants(options, size).size());
        }
    }
    return cells;
}

}  // namespace Harness
