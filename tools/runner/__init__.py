"""The snippet runner: which blocks to run, on which reader machines, in which processes, and how what they
printed, drew and wrote is compared with the committed files (and, for refresh, written back).
Its command line is ``python -m tools.snippets`` (``cli.py``)."""
