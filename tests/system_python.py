"""A module the python checks need, imported from this python3 or else from /usr/bin/python3,
where Debian's python3-* packages live: when this python3 lacks it, the calling script is
run again by /usr/bin/python3 with the same arguments. Exits 77 (CTest's skip) when
neither has it.
"""

import importlib
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"


def import_or_skip(module, package):
    """Returns `module` imported; `package` is the Debian package that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and os.access(SYSTEM_PYTHON, os.X_OK):
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])
        print(f"skipped: {module} is not installed (Debian's {package}; scripts/setup installs it)")
        sys.exit(77)
