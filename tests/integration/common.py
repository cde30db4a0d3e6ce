"""Helpers shared by the integration tests: run hemoflow, read its outputs."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "analysis"))
import hemo_output  # noqa: E402,F401  (re-exported for the tests)


def run_hemoflow(hemoflow, args, env=None, expect=0, launch=()):
    """Runs `hemoflow args...` (after `launch`, e.g. [mpiexec, "-np", "2"]), a fresh `run`
    with --overwrite; fails the test
    with its output if the exit code differs (expect=None accepts any exit code; the caller
    looks at it)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    # A test reruns into its own folders (and ctest reruns the test): a fresh run replaces
    # what is there. io.output_folder tests the refusal without --overwrite itself.
    if "run" in args and "--restart" not in args and "--overwrite" not in args:
        args = [*args, "--overwrite"]
    p = subprocess.run([*launch, hemoflow, *args], capture_output=True, text=True, env=full_env, timeout=1800)
    if expect is not None and p.returncode != expect:
        print(p.stdout)
        print(p.stderr)
        raise SystemExit(f"FAIL: {' '.join(launch)} hemoflow {' '.join(args)} exited {p.returncode}, expected {expect}")
    return p


def has_cuda_device(hemoflow):
    """Whether this hemoflow was built with CUDA and sees a device (`hemoflow info`)."""
    info = run_hemoflow(hemoflow, ["info"]).stdout
    for line in info.splitlines():
        if line.strip().startswith("cuda"):
            return "built;" in line and "0 device(s)" not in line
    return False


def summary(out_dir):
    with open(os.path.join(out_dir, "summary.json")) as f:
        return json.load(f)


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    return bool(condition)


def arguments(description=None, case=True):
    """--hemoflow, --case and --work: what every run-based test takes (--case only where
    the test runs a case file of the repository; case=False for one that writes its own)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--hemoflow", required=True, help="the hemoflow executable")
    if case:
        ap.add_argument("--case", required=True, help="case file to run")
    ap.add_argument("--work", required=True, help="folder for the runs' output")
    return ap.parse_args()
