"""Checks conditions on `txc cache stats --format json`: each argument is a
Python expression over the counters (hits, misses, entries, bytes, stores,
evictions, corrupt, temp_files), e.g. "hits + misses == 16". Prints each
condition with its result; exits 1 if one is false."""
import json
import sys

stats = json.load(sys.stdin)
ok = True
for condition in sys.argv[1:]:
    result = eval(condition, {}, dict(stats))
    print(f"{condition}: {'ok' if result else 'FAILED'} ({stats})" if not result
          else f"{condition}: ok")
    ok = ok and bool(result)
sys.exit(0 if ok else 1)
