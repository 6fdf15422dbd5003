"""Runs a command whose arguments hold bytes a shell line cannot.

Usage: run-escaped.py COMMAND ARGS...

Each \\xNN in an argument becomes that byte; the exit status and the output
are the command's.
"""
import codecs
import os
import sys

args = [codecs.escape_decode(arg.encode())[0] for arg in sys.argv[1:]]
os.execvp(args[0], args)
