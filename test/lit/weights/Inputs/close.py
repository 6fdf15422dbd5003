#!/usr/bin/env python3
"""close.py ACTUAL EXPECTED: both files hold whitespace-separated numbers;
prints "N values agree" if they agree to 1e-5 (absolute and relative),
else exits 1."""
import sys

import numpy as np

a = np.loadtxt(sys.argv[1]).ravel()
b = np.loadtxt(sys.argv[2]).ravel()
if a.shape != b.shape or not np.allclose(a, b, rtol=1e-5, atol=1e-5):
    sys.exit(f"values differ:\n{a}\n{b}")
print(f"{a.size} values agree")
