#include "backends.h"

#include "cpu.h"
#include "cub.h"
#include "decoupled.h"
#include "efficient.h"
#include "large.h"
#include "naive.h"
#include "onesweep.h"
#include "radix.h"
#include "shared.h"
#include "textbook.h"
#include "thrust.h"

namespace StreamCompaction {

const std::vector<Backend> &backends() {
    static const std::vector<Backend> all = {
        {.name = "cpu", .title = "cpu", .onGpu = false, .timer = CPU::timer,
         .scan = CPU::scan, .compact = CPU::compactWithoutScan, .partition = CPU::partition, .sort = CPU::sort,
         .scan64 = CPU::Large::scan, .compact64 = CPU::Large::compact, .partition64 = CPU::Large::partition,
         .sort64 = CPU::Large::sort},
        {.name = "naive", .title = "naive", .honoursBlockSize = true, .timer = Naive::timer,
         .scan = Naive::scanDevice},
        {.name = "efficient", .title = "work-efficient", .honoursBlockSize = true, .timer = Efficient::timer,
         .scan = Efficient::scanDevice, .compact = Efficient::compactDevice},
        {.name = "thrust", .title = "thrust", .timer = Thrust::timer,
         .scan = Thrust::scanDevice, .compact = Thrust::compactDevice, .partition = Thrust::partitionDevice,
         .sort = Thrust::sortDevice,
         .scan64 = Thrust::Large::scan, .compact64 = Thrust::Large::compact, .partition64 = Thrust::Large::partition,
         .sort64 = Thrust::Large::sort},
        {.name = "textbook", .title = "textbook", .honoursBlockSize = true, .timer = Textbook::timer,
         .compact = Textbook::compactDevice, .partition = Textbook::partitionDevice},
        {.name = "radix", .title = "radix", .honoursBlockSize = true, .timer = Radix::timer,
         .sort = Radix::sortDevice},
        {.name = "onesweep", .title = "radix (Onesweep)", .timer = Onesweep::timer,
         .sort = Onesweep::sortDevice},
        {.name = "cub", .title = "cub", .reference = true, .timer = Cub::timer,
         .scan = Cub::scanDevice, .compact = Cub::compactDevice, .partition = Cub::partitionDevice,
         .sort = Cub::sortDevice,
         .scan64 = Cub::Large::scan, .compact64 = Cub::Large::compact, .partition64 = Cub::Large::partition,
         .sort64 = Cub::Large::sort},
        {.name = "shared", .title = "shared-memory", .honoursBlockSize = true, .timer = Shared::timer,
         .scan = Shared::scanDevice, .compact = Shared::compactDevice},
        {.name = "decoupled", .title = "decoupled look-back", .timer = Decoupled::timer,
         .scan = Decoupled::scanDevice, .compact = Decoupled::compactDevice, .partition = Decoupled::partitionDevice,
         .scan64 = Decoupled::Large::scan, .compact64 = Decoupled::Large::compact,
         .partition64 = Decoupled::Large::partition},
    };
    return all;
}

const Backend *findBackend(std::string_view name) {
    for (const Backend &backend : backends()) {
        if (name == backend.name) return &backend;
    }
    return nullptr;
}

const Backend *referenceBackend() {
    for (const Backend &backend : backends()) {
        if (backend.reference) return &backend;
    }
    return nullptr;
}

}  // namespace StreamCompaction
