#pragma once
// What the driver asks of the operating system, with a fallback where a system lacks it:
// POSIX (Linux, macOS) and Windows (MSVC's CRT). SC_NO_POSIX builds the fallbacks on any
// system, so that CI compiles them too.

#include <cstdio>

#if defined(_WIN32) && !defined(SC_NO_POSIX)
#include <io.h>
#elif !defined(SC_NO_POSIX)
#include <unistd.h>
#endif

namespace Harness {

/** Whether standard error is a terminal (for the progress line); false where unknown. */
inline bool stderrIsTerminal() {
#if defined(_WIN32) && !defined(SC_NO_POSIX)
    return _isatty(_fileno(stderr)) != 0;
#elif !defined(SC_NO_POSIX)
    return isatty(STDERR_FILENO) != 0;
#else
    return false;
#endif
}

}  // namespace Harness
