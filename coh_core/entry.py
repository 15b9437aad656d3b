"""The `coh` command as installed: the command line, and Ctrl-C pressed while it loads."""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # as coh_core.cli says it (not imported: it is what is being loaded)


def run() -> None:
    """Load the command line and run it; Ctrl-C before it is ready exits 130 with one line, as
    Ctrl-C in any command does (never a traceback)."""
    try:
        from coh_core.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("\nINTERRUPTED interrupted before the command began\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    main()
