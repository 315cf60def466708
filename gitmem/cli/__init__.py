"""The command line: click commands that parse, call one domain function and print through output.py.

Top layer: nothing in gitmem imports it."""
