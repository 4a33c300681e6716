#pragma once
// The sweep: every chosen op, size (with the SIZE - 3 companion of each power of two),
// block size and back end, timed, checked against the CPU reference and reported as
// each input's cells finish.

#include "cli/cli.h"
#include "measure/context.h"
#include "sweep/input_cells.h"
#include "sweep/memory.h"
#include "sweep/plan.h"
#include "sweep/processes.h"
#include "sweep/rows.h"

namespace Harness {

/**
 * Runs the sweep `options` describe, writing the report to stdout in options.format and
 * to every options.outputs file in the format its extension names (and the context of
 * each CSV beside it), then "N cells verified, N failed, N skipped" on stderr, where it
 * leaves a CSV or JSON stdout machine-readable. With --processes N, N - 1 child
 * processes run the sweep first (processes.h) and each cell pools their figures with its
 * own. Returns the exit status (ExitStatus): kExitBadInput when the largest cell a GPU
 * back end would run does not fit in free GPU memory or an output cannot be opened (one
 * line on stderr; nothing run), kExitFailed when a cell failed, kExitNothingRan when
 * every cell was skipped, 128 + the signal after SIGINT or SIGTERM, else kExitVerified.
 * Cells that cannot run (cellSkipReason) are reported as skipped, and nothing is
 * allocated for a size that no chosen back end can run.
 */
int runSweep(const Options &options);

}  // namespace Harness
