"""Summarizes a txc verify (or txc-callcheck) json report: the number of
calls and of unexpected outcomes, then one line per outcome seen ("pass", or
the code name and the guard kind), so that a test can check that the calls
covered what it claims."""
import json
import sys

with open(sys.argv[1]) as f:
    report = json.load(f)
calls = report["calls"]
unexpected = sum(1 for c in calls if c.get("as_expected") is False)
print(f"{len(calls)} calls, {unexpected} unexpected")
seen = set()
for c in calls:
    seen.add("pass" if c["result"] == "pass" else f"{c['code_name']} {c['kind']}")
for outcome in sorted(seen):
    print(outcome)
