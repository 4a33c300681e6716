#pragma once
// The program's subcommands (`cis565_stream_compaction NAME ARGS...`), each parsing its own
// flags with CLI11: one row each, which main() dispatches on and --help lists.

#include <cstdio>
#include <string>
#include <vector>

namespace Harness {

/** A subcommand: its name, a one-line summary for --help, and the function that runs it. */
struct Subcommand {
    const char *name;
    const char *usage;    // "compare BASE NEW [--format FORMAT] [--fail-above 5%]"
    const char *summary;  // what it does, in a line or two
    int (*run)(const std::vector<std::string> &args, std::FILE *out, std::FILE *err);
};

/** Every subcommand, in the order --help lists them. */
const std::vector<Subcommand> &subcommands();

/** The subcommand named `name`, or nullptr. */
const Subcommand *findSubcommand(const std::string &name);

}  // namespace Harness
