#!/usr/bin/env python3
"""Runs a command and checks its exit code and that its output matches a regex.

usage: expect.py --code N [--stderr REGEX] [--stdout REGEX] -- command args...
  --stderr: stderr followed by stdout must match (re.search);
  --stdout: stdout alone must match (re.search: '^' anchors at its start).
"""
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", type=int, required=True)
    ap.add_argument("--stderr", help="regex that stderr (or stdout) must match")
    ap.add_argument("--stdout", help="regex that stdout alone must match")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.stderr is None and a.stdout is None:
        ap.error("give --stderr or --stdout (or both)")
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    out = p.stderr + p.stdout
    ok = True
    if p.returncode != a.code:
        print(f"FAIL: exit code {p.returncode}, expected {a.code}")
        ok = False
    if a.stderr is not None and not re.search(a.stderr, out):
        print(f"FAIL: output does not match /{a.stderr}/")
        ok = False
    if a.stdout is not None and not re.search(a.stdout, p.stdout):
        print(f"FAIL: stdout does not match /{a.stdout}/")
        ok = False
    print("command:", " ".join(cmd))
    print("output:\n" + out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
