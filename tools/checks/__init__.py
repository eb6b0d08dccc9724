"""One module per promise the pages make: each reads the sources or the built site and returns the problems
it finds, each naming the file (the tests and ``./run check`` call them)."""
