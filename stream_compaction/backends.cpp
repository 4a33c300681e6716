#include "backends.h"

#include <iterator>
#include <stdexcept>
#include <string>

#include "cpu.h"
#include "cub.h"
#include "decoupled.h"
#include "efficient.h"
#include "naive.h"
#include "onesweep.h"
#include "radix.h"
#include "shared.h"
#include "student.h"
#include "textbook.h"
#include "thrust.h"

namespace StreamCompaction {

const std::vector<Backend> &backends() {
    static const std::vector<Backend> all = [] {
        // The course's four, each followed by a loaded course submission's row of the same
        // namespace (student.h; none unless the program called Student::load()), then the rest.
        const Backend course[] = {CPU::backend(), Naive::backend(), Efficient::backend(), Thrust::backend()};
        const std::vector<Backend> &student = Student::backends();
        std::vector<Backend> rows;
        for (std::size_t i = 0; i < std::size(course); ++i) {
            rows.push_back(course[i]);
            if (i < student.size()) rows.push_back(student[i]);
        }
        rows.insert(rows.end(), {Textbook::backend(), Radix::backend(), Onesweep::backend(), Cub::backend(),
                                 Shared::backend(), Decoupled::backend()});
        return rows;
    }();
    return all;
}

const Backend *findBackend(std::string_view name) {
    for (const Backend &backend : backends()) {
        if (name == backend.name) return &backend;
    }
    return nullptr;
}

namespace {

// The entry point, or std::invalid_argument naming what is missing.
template <typename Entry>
Entry offered(const Backend &backend, Entry entry, const char *op) {
    if (!entry) throw std::invalid_argument(std::string(backend.name) + " offers no " + op);
    return entry;
}

// `call(out, in, kept)` on host arrays: directly for a back end that takes them (the
// CPU, a course submission); for a GPU back end on device copies, inside its timer and
// named for errors as "cub scan, n = ...". Returns the count a `counted` call wrote
// (0 for n = 0), else n; `keptOnly`: only the kept elements are copied back.
template <typename Call>
int onHost(const Backend &backend, const char *op, int n, int *odata, const int *idata, bool counted, bool keptOnly,
           Call call) {
    if (takesHostArrays(backend)) {
        int kept = 0;
        call(odata, idata, &kept);
        return !counted ? n : n > 0 ? kept : 0;
    }
    Common::Operation operation(backend.name, op, n);
    return Common::onDeviceCopies(n, odata, idata, backend.timer(), counted, keptOnly, call);
}

}  // namespace

void hostScan(const Backend &backend, int n, int *odata, const int *idata) {
    const auto scan = offered(backend, backend.scan, "scan");
    onHost(backend, "scan", n, odata, idata, false, false, [&](int *out, const int *in, int *) { scan(n, out, in); });
}

int hostCompact(const Backend &backend, int n, int *odata, const int *idata, Predicate keep) {
    const auto compact = offered(backend, backend.compact, "compact");
    return onHost(backend, "compact", n, odata, idata, true, true,
                  [&](int *out, const int *in, int *kept) { compact(n, out, in, keep, kept); });
}

int hostPartition(const Backend &backend, int n, int *odata, const int *idata, Predicate keep) {
    const auto partition = offered(backend, backend.partition, "partition");
    // All n elements are copied back, not only the kept ones.
    return onHost(backend, "partition", n, odata, idata, true, false,
                  [&](int *out, const int *in, int *kept) { partition(n, out, in, keep, kept); });
}

void hostSort(const Backend &backend, int n, int *odata, const int *idata) {
    const auto sort = offered(backend, backend.sort, "sort");
    onHost(backend, "sort", n, odata, idata, false, false, [&](int *out, const int *in, int *) { sort(n, out, in); });
}

}  // namespace StreamCompaction
