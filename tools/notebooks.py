"""``python -m tools.notebooks write|check``: the chapter notebooks' command, at the name the guides give it.
The generator itself is ``tools/generators/notebooks.py``."""

import sys

from tools.generators.notebooks import main

if __name__ == "__main__":
    sys.exit(main())
