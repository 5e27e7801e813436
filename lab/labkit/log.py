"""Progress lines on stderr, with the time since the command started."""

import sys
import time

_START = time.monotonic()


def info(msg):
    print(f"[lab {time.monotonic() - _START:6.1f}s] {msg}", file=sys.stderr, flush=True)
