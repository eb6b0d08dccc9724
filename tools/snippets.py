"""``python -m tools.snippets refresh|check|time|replicate …``: the snippet runner's command line, at the name the
guides give it. The runner itself is ``tools/runner/`` (this command: ``tools/runner/cli.py``)."""

import sys

from tools.runner.cli import main

if __name__ == "__main__":
    sys.exit(main())
