"""Prints the diagnostics of a JSON or SARIF log, one line each.

Usage: diagnostic.py FILE json|sarif

Each line is `ID: MESSAGE`, then `note: MESSAGE` for each note. Fails if
FILE is not exactly one JSON document.
"""
import json
import sys

path, form = sys.argv[1], sys.argv[2]
log = json.load(open(path))
if form == "json":
    for diag in log["diagnostics"]:
        print(f"{diag['id']}: {diag['message']}")
        for note in diag.get("notes", []):
            print(f"note: {note['message']}")
else:
    for result in log["runs"][0]["results"]:
        print(f"{result['ruleId']}: {result['message']['text']}")
        for note in result.get("relatedLocations", []):
            print(f"note: {note['message']['text']}")
