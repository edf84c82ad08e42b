#!/usr/bin/env python3
"""bench/counts' caller summary: reads `perf script -F ip,sym,dso` (demangled) on stdin, one stack per sample,
and prints the most frequent chains of the broker's own frames (the first three below the probed library), as
samples per sign-in."""

import argparse
import collections
import re
import sys

LIBRARIES = ("libsqlite3", "libc.so", "libswiftCore", "libFoundation", "libdispatch", "libswift_Concurrency",
             "ld-linux", "libcrypto", "libssl", "libstdc++", "[unknown]", "libswiftDispatch", "libBlocksRuntime")


def stacks(lines):
    stack = []
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if stack:
                yield stack
            stack = []
            continue
        match = re.match(r"\s*[0-9a-f]+\s+(.*)\s+\((.*)\)\s*$", line)
        if match:
            stack.append((match.group(1), match.group(2)))
    if stack:
        yield stack


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--per", type=int, required=True)
    parser.add_argument("--depth", type=int, default=int(__import__("os").environ.get("BENCH_COUNTS_DEPTH", "3")))
    args = parser.parse_args()
    counts = collections.Counter()
    total = 0
    for stack in stacks(sys.stdin):
        total += 1
        own = [re.sub(r"\s+", " ", sym)[:110] for sym, dso in stack if not any(lib in dso for lib in LIBRARIES)]
        counts[" <- ".join(own[: args.depth]) or "(no broker frame)"] += 1
    per = max(1, args.per)
    print(f"{total} samples over {per} sign-ins: {total / per:.2f} per sign-in")
    for chain, n in counts.most_common():
        print(f"{n / per:7.2f}  {chain}")


if __name__ == "__main__":
    main()
