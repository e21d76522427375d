"""The `mobile-r1` command line: thin commands that parse flags and call one library function each."""
