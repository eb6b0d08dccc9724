"""What the project writes from its sources and commits: the chapter notebooks, the compatibility report,
the torch-names inventory, the vendored browser libraries. Each has ``write``/``check`` (or ``fetch``/``check``)."""
