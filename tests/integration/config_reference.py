#!/usr/bin/env python3
"""docs/config-reference.md matches the schemas hemoflow declares (run
tools/gen-config-reference after changing a key)."""
import argparse
import sys

from common import run_hemoflow


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--doc", required=True)
    a = ap.parse_args()
    current = run_hemoflow(a.hemoflow, ["info", "--keys", "--markdown"]).stdout
    with open(a.doc) as f:
        doc = f.read()
    if not doc.endswith(current):
        print("FAIL docs/config-reference.md is stale: run tools/gen-config-reference")
        return 1
    print("ok   docs/config-reference.md is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
