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
        {"cpu", "cpu", false, CPU::timer, CPU::scan, CPU::compactWithoutScan, CPU::partition, CPU::sort,
         CPU::Large::scan, CPU::Large::compact, CPU::Large::partition, CPU::Large::sort},
        {"naive", "naive", true, Naive::timer, Naive::scanDevice, nullptr, nullptr, nullptr},
        {"efficient", "work-efficient", true, Efficient::timer, Efficient::scanDevice, Efficient::compactDevice, nullptr, nullptr},
        {"thrust", "thrust", true, Thrust::timer, Thrust::scanDevice, Thrust::compactDevice, Thrust::partitionDevice, Thrust::sortDevice,
         Thrust::Large::scan, Thrust::Large::compact, Thrust::Large::partition, Thrust::Large::sort},
        {"textbook", "textbook", true, Textbook::timer, nullptr, Textbook::compactDevice, Textbook::partitionDevice, nullptr},
        {"radix", "radix", true, Radix::timer, nullptr, nullptr, nullptr, Radix::sortDevice},
        {"onesweep", "radix (Onesweep)", true, Onesweep::timer, nullptr, nullptr, nullptr, Onesweep::sortDevice},
        {"cub", "cub", true, Cub::timer, Cub::scanDevice, Cub::compactDevice, Cub::partitionDevice, Cub::sortDevice,
         Cub::Large::scan, Cub::Large::compact, Cub::Large::partition, Cub::Large::sort},
        {"shared", "shared-memory", true, Shared::timer, Shared::scanDevice, Shared::compactDevice, nullptr, nullptr},
        {"decoupled", "decoupled look-back", true, Decoupled::timer, Decoupled::scanDevice, Decoupled::compactDevice, Decoupled::partitionDevice, nullptr,
         Decoupled::Large::scan, Decoupled::Large::compact, Decoupled::Large::partition, nullptr},
    };
    return all;
}

const Backend *findBackend(std::string_view name) {
    for (const Backend &backend : backends()) {
        if (name == backend.name) return &backend;
    }
    return nullptr;
}

}  // namespace StreamCompaction
