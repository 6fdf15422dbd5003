"""Prints the phase tree of a --time-report=json report, two spaces per
level, and checks its numbers."""
import json
import sys

with open(sys.argv[1]) as f:
    report = json.load(f)


def walk(phases, depth):
    total = 0.0
    for phase in phases:
        assert isinstance(phase["seconds"], (int, float)) and phase["seconds"] >= 0
        print("  " * depth + phase["name"])
        walk(phase["phases"], depth + 1)
        total += phase["seconds"]
    return total


top = walk(report["phases"], 0)
assert isinstance(report["total_seconds"], (int, float))
assert isinstance(report["rest_seconds"], (int, float))
assert top <= report["total_seconds"] * 1.001 + 1e-6, (top, report["total_seconds"])
print("total and rest are numbers; the phases add up to at most the total")
