#pragma once
// The command line: what the user asked for, parsed and validated before anything runs.

#include <cstdint>
#include <string>
#include <vector>

namespace Harness {

struct Options {
    long long size = 1 << 20;           // the course run's SIZE; NPOT = SIZE - 3
    int blockSize = 128;                // threads per block, every GPU back end
    std::uint64_t seed = 565;           // the random inputs' seed
    std::vector<std::string> backends;  // command-line names; all of them by default
    int reps = 5;                       // timed calls per figure; the median is reported
    int warmup = 1;                     // untimed calls before them
};

/**
 * A size as written on the command line: "1048576", "2^20" or "1M" (K, M and G are
 * 2^10, 2^20 and 2^30). Throws std::invalid_argument saying what is accepted when the
 * text is not a size, is zero, or is larger than 2^31 - 1.
 */
long long parseSize(const std::string &text);

/** "2^20" for a power of two, else the plain number. */
std::string formatSize(long long n);

/**
 * Fills `options` from argv. Returns -1 to go on, or the exit status to stop with:
 * 0 after --help or --version, 2 after a bad flag or value (reported on stderr as one
 * line naming the flag and what it accepts).
 */
int parseCommandLine(int argc, const char *const *argv, Options &options);

}  // namespace Harness
