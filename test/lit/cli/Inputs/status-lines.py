"""Prints what a terminal session shows, one status-line state a line.

Usage: status-lines.py FILE

FILE is the output of script(1). Each "\\r\\x1b[K" (back to column 0, erase
the line) starts a new printed line, shown as "CLEAR: <text written
after it>"; the pty's "\\r\\n" become newlines. Any other control
character is printed as \\xNN, so that FileCheck can see it.
"""
import sys

data = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
data = data.replace("\r\n", "\n")
for i, part in enumerate(data.split("\r\x1b[K")):
    shown = "".join(c if c == "\n" or c >= " " else f"\\x{ord(c):02x}"
                    for c in part)
    print(("CLEAR: " if i else "START: ") + shown)
