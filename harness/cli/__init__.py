"""The `lab` command line: one module a command, argparse, exit codes."""
