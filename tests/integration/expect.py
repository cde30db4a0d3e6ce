#!/usr/bin/env python3
"""Runs a command and checks its exit code and that stderr matches a regex.

usage: expect.py --code N --stderr REGEX -- command args...
"""
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", type=int, required=True)
    ap.add_argument("--stderr", required=True, help="regex that stderr (or stdout) must match")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    out = p.stderr + p.stdout
    ok = True
    if p.returncode != a.code:
        print(f"FAIL: exit code {p.returncode}, expected {a.code}")
        ok = False
    if not re.search(a.stderr, out):
        print(f"FAIL: output does not match /{a.stderr}/")
        ok = False
    print("command:", " ".join(cmd))
    print("output:\n" + out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
