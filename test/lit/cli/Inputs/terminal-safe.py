"""Fails if a file holds what a terminal would act on instead of showing.

Usage: terminal-safe.py FILE...

Checks for C0 control characters other than tab and newline, DEL, C1
controls, line and paragraph separators, bidirectional overrides and
isolates, and bytes that are not UTF-8.
"""
import sys

status = 0
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"{path}: not UTF-8 at byte {e.start}")
        status = 1
        continue
    for offset, c in enumerate(text):
        code = ord(c)
        if ((code < 0x20 and c not in "\t\n") or 0x7F <= code <= 0x9F or
                code in (0x2028, 0x2029) or 0x202A <= code <= 0x202E or
                0x2066 <= code <= 0x2069):
            print(f"{path}: U+{code:04X} at character {offset}")
            status = 1
            break
sys.exit(status)
