#include "student.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include <cuda_runtime_api.h>

#include "errors.h"
#include "launch.h"
#include "submission_table.h"

namespace StreamCompaction {
namespace Student {

namespace {

// The built-in submission's library, when the project was configured with
// SC_STUDENT_DIR (CMakeLists.txt defines this for this file only).
#ifdef SC_STUDENT_LIBRARY
constexpr const char *kBuiltInLibrary = SC_STUDENT_LIBRARY;
#else
constexpr const char *kBuiltInLibrary = "";
#endif

bool isLoaded = false;
std::string submissionDirectory;
std::string loadProblem;
const sc_submission_table *table = nullptr;  // null when the submission did not load

// The submission's table: an empty one (every function "not offered") until it loaded.
const sc_submission_table &functions() {
    static const sc_submission_table none{};
    return table ? *table : none;
}

// Calls the submission's harnessSetup(), if it has one, once per process before its
// first function. What it throws fails that call and every later one of the process: the
// functions would run without the setup they need.
void setUpOnce(const std::string &where) {
    static bool done = false;
    static std::string failure;  // what harnessSetup() threw, or ""
    if (!done && functions().setup) {
        done = true;
        char error[1024] = "";
        if (functions().setup(error, sizeof error) != 0) failure = error[0] ? error : "an exception";
    }
    if (!failure.empty()) throw ImplementationError(where + ": harnessSetup() threw: " + failure);
}

std::string readFile(const std::string &path) {
    std::ifstream file(path);
    if (!file) return "";
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

bool exists(const std::string &path) { return std::ifstream(path).good(); }

std::string folderOf(const std::string &path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

std::string where(const char *row, const char *op, int n) {
    return std::string(row) + " " + op + ", n = " + std::to_string(n);
}

// Runs one of the submission's functions on host arrays. A GPU one runs inside an
// Operation (an error names it; no device, or a lost one, is an error before the call),
// after the project's block size has gone to the submission's hook, if it has one, and
// is checked afterwards for a CUDA error it left behind. What the submission throws comes
// back as an ImplementationError.
int invoke(const char *row, const char *op, bool gpu, sc_submission_call call, int n, int *odata, const int *idata) {
    if (!call) throw std::invalid_argument(std::string(row) + " offers no " + op);
    Common::requireNonNegative(row, op, n);
    setUpOnce(where(row, op, n));
    std::optional<Common::Operation> operation;
    char error[1024] = "";
    if (gpu) {
        operation.emplace(row, op, n);
        const sc_submission_block_size hook = functions().set_block_size;
        if (hook && hook(Common::blockSize(), error, sizeof error) != 0) {
            throw ImplementationError(where(row, op, n) + ": setBlockSize(" + std::to_string(Common::blockSize()) +
                                      ") threw: " + error);
        }
    }
    int count = 0;
    if (call(n, odata, idata, &count, error, sizeof error) != 0) {
        throw ImplementationError(where(row, op, n) + ": the implementation threw: " + error);
    }
    if (gpu) {
        // Outside the submission's timer: its kernels finished, and it left no error.
        Common::checkCuda(cudaDeviceSynchronize(), "the implementation's CUDA work", __FILE__, __LINE__);
        Common::checkCuda(cudaGetLastError(), "a CUDA call of the implementation", __FILE__, __LINE__);
    }
    return count;
}

// The course's compactions take no predicate: they keep the non-zero elements.
void requireNonZero(const char *row, Predicate keep) {
    if (keep.kind != Predicate::Kind::NonZero) {
        throw std::invalid_argument(std::string(row) + " compact: the course's compaction keeps the non-zero elements "
                                                       "only, not " + keep.name());
    }
}

float reading(sc_submission_reading timer) { return timer ? timer() : std::numeric_limits<float>::quiet_NaN(); }

void cpuScan(int n, int *o, const int *i) { invoke("student-cpu", "scan", false, functions().cpu_scan, n, o, i); }
void cpuCompact(int n, int *o, const int *i, Predicate keep, int *kept) {
    requireNonZero("student-cpu", keep);
    *kept = invoke("student-cpu", "compact", false, functions().cpu_compact_without_scan, n, o, i);
}
void cpuCompactWithScanEntry(int n, int *o, const int *i, Predicate keep, int *kept) {
    requireNonZero("student-cpu", keep);
    *kept = invoke("student-cpu", "compactWithScan", false, functions().cpu_compact_with_scan, n, o, i);
}
void naiveScan(int n, int *o, const int *i) { invoke("student-naive", "scan", true, functions().naive_scan, n, o, i); }
void efficientScan(int n, int *o, const int *i) {
    invoke("student-efficient", "scan", true, functions().efficient_scan, n, o, i);
}
void efficientCompact(int n, int *o, const int *i, Predicate keep, int *kept) {
    requireNonZero("student-efficient", keep);
    *kept = invoke("student-efficient", "compact", true, functions().efficient_compact, n, o, i);
}
void thrustScan(int n, int *o, const int *i) { invoke("student-thrust", "scan", true, functions().thrust_scan, n, o, i); }

float cpuTimer() { return reading(functions().cpu_timer); }
float naiveTimer() { return reading(functions().naive_timer); }
float efficientTimer() { return reading(functions().efficient_timer); }
float thrustTimer() { return reading(functions().thrust_timer); }

std::vector<Backend> rows;
Backend withScanRow;
std::vector<CourseFunction> courseList;

// The rows, with nullptr for every function the submission does not define.
void makeRows() {
    const sc_submission_table &t = functions();
    const bool hook = t.set_block_size != nullptr;
    rows = {
        {.name = "student-cpu", .title = "student cpu", .onGpu = false,
         .scan = t.cpu_scan ? cpuScan : nullptr, .compact = t.cpu_compact_without_scan ? cpuCompact : nullptr,
         .implementationTimer = cpuTimer},
        {.name = "student-naive", .title = "student naive", .honoursBlockSize = hook,
         .scan = t.naive_scan ? naiveScan : nullptr, .implementationTimer = naiveTimer},
        {.name = "student-efficient", .title = "student work-efficient", .honoursBlockSize = hook,
         .scan = t.efficient_scan ? efficientScan : nullptr,
         .compact = t.efficient_compact ? efficientCompact : nullptr, .implementationTimer = efficientTimer},
        {.name = "student-thrust", .title = "student thrust", .scan = t.thrust_scan ? thrustScan : nullptr,
         .implementationTimer = thrustTimer},
    };
    withScanRow = {.name = "student-cpu", .title = "student cpu", .onGpu = false,
                   .compact = t.cpu_compact_with_scan ? cpuCompactWithScanEntry : nullptr,
                   .implementationTimer = cpuTimer};
    courseList = {
        {"cpu scan", "StreamCompaction::CPU::scan", &rows[0], false, t.cpu_scan != nullptr},
        {"cpu compactWithoutScan", "StreamCompaction::CPU::compactWithoutScan", &rows[0], true,
         t.cpu_compact_without_scan != nullptr},
        {"cpu compactWithScan", "StreamCompaction::CPU::compactWithScan", &withScanRow, true,
         t.cpu_compact_with_scan != nullptr},
        {"naive scan", "StreamCompaction::Naive::scan", &rows[1], false, t.naive_scan != nullptr},
        {"efficient scan", "StreamCompaction::Efficient::scan", &rows[2], false, t.efficient_scan != nullptr},
        {"efficient compact", "StreamCompaction::Efficient::compact", &rows[2], true, t.efficient_compact != nullptr},
        {"thrust scan", "StreamCompaction::Thrust::scan", &rows[3], false, t.thrust_scan != nullptr},
    };
}

// Opens the library and reads its table; returns why it could not, or "".
std::string open(const std::string &library) {
    const std::string folder = folderOf(library);
    const std::string errors = trimmed(readFile(folder + "/errors.txt"));
    const std::string named = submissionDirectory.empty() ? "" : " in " + submissionDirectory;
    if (!errors.empty()) return "the course submission" + named + " does not compile; its first errors:\n" + errors;
    if (!exists(library)) {
        return "the course submission" + named + " is not built (" + library +
               " is missing); build the project first (make run STUDENT=DIR)";
    }
    // RTLD_LOCAL: nothing of the library joins the program's names; it exports one anyway.
    void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) return std::string("the course submission's library did not load: ") + dlerror();
    const auto exports = reinterpret_cast<sc_submission_exports_function>(dlsym(handle, SC_SUBMISSION_EXPORTS_SYMBOL));
    if (!exports) return library + " is not a course submission's library: it has no " SC_SUBMISSION_EXPORTS_SYMBOL;
    const sc_submission_table *loaded = exports();
    if (!loaded || loaded->version != SC_SUBMISSION_TABLE_VERSION) {
        return library + " was built by another version of the project; rebuild it";
    }
    table = loaded;  // the library stays open for the rest of the process
    return "";
}

}  // namespace

void load() {
    static bool done = false;
    if (done) return;
    done = true;
    const char *fromEnvironment = std::getenv("SC_STUDENT_LIBRARY");
    const std::string library = fromEnvironment && *fromEnvironment ? fromEnvironment : kBuiltInLibrary;
    if (library.empty()) return;
    isLoaded = true;
    submissionDirectory = trimmed(readFile(folderOf(library) + "/submission.txt"));
    loadProblem = open(library);
    makeRows();
}

bool loaded() { return isLoaded; }

const std::string &directory() { return submissionDirectory; }

const std::string &problem() { return loadProblem; }

const std::vector<Backend> &backends() { return rows; }

const Backend &cpuCompactWithScan() { return withScanRow; }

const std::vector<CourseFunction> &courseFunctions() { return courseList; }

}  // namespace Student
}  // namespace StreamCompaction
