#pragma once
// `cis565_stream_compaction explain --backends thrust --op scan --size 2^20`: one call of
// each back end, traced after its timed calls (measure/tracer.h), printed as a timeline
// kernel by kernel with where its time went and what bounds it (docs/explain.md);
// --trace FILE.json also writes the calls in the Chrome trace-event format.

#include <cstdio>
#include <string>
#include <vector>

namespace Harness {

/**
 * Runs the explain command on `args`, the words after "explain":
 * --backends NAMES --op OP [--size N] [--block-size B] [--seed S] [--hot]
 * [--trace FILE.json] [--help]. Each back end's operation is timed (one untimed call, then
 * five timed ones), checked, and traced once more; its timeline goes to `out`. Returns 0
 * when a call was traced, 3 when none could be (no CUDA device, CUPTI unavailable: each
 * back end's line says why), 1 for a CUDA error, a submission's crash or a trace file
 * that cannot be written, 2 for bad input (one line on `err`, nothing run). With a
 * submission's back end among them, the back ends run in a forked child
 * (platform/child_process.h), so that a crash, an exit() or a back end still running
 * after 120 s ends the child alone: a "FAIL: student-cpu compact crashed: SIGSEGV (...)"
 * line names the back end it was in.
 */
int runExplain(const std::vector<std::string> &args, std::FILE *out, std::FILE *err);

}  // namespace Harness
