#pragma once
// The command line: what the user asked for (options.h), the parsers of its values
// (parsers.h), and the flags that fill the options (command_line.h).

#include "cli/command_line.h"
#include "cli/options.h"
#include "cli/parsers.h"
