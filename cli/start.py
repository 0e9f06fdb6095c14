"""The ``tandem`` command's entry point: its modules load with garbage collection paused, then are frozen.

Loading them makes a great many objects (pydantic builds a class and its field descriptions for every model)
and frees almost none, so a collection while they load only walks the same live objects again and again, and
so would every full collection after it. Paused while they load, then frozen (``gc.freeze``: kept out of
later collections, as ``tandem serve`` already does with what it made once ready), they cost a fresh process
that resumes one run about 10 ms less (``bench.coldstart``, median of 14 alternating processes: imports
0.199 → 0.185 s, from the child's first line to its resume committed 0.232 → 0.220 s). Collection is on again
before the command runs.
"""

from __future__ import annotations

import gc


def main() -> int:
    collecting = gc.isenabled()
    gc.disable()
    try:
        from cli.main import main as command
    finally:
        gc.freeze()  # what loading made lives as long as the process: later collections need not walk it
        if collecting:
            gc.enable()
    return command()
