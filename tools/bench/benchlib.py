"""What the benchmark scripts of tools/bench/ share: where the repository is, the
commit a result belongs to, the bytes per update of the sparse kernel, and how a
result is written into docs/ (the numbers as JSON, the page as Markdown)."""
import json
import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def commit():
    """HEMO_COMMIT (the device machine gets a copy of the tree without .git), else HEAD."""
    return os.environ.get("HEMO_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip() or "unknown"


def sparse_bytes(precision):
    """Bytes per node update of the fused sparse kernel: 19 populations read and written,
    18 neighbour indices."""
    return 38 * (4 if precision == "fp32" else 8) + 18 * 4


def write_json(docs, name, data):
    with open(os.path.join(docs, name), "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


def publish(docs, stem, result, lines):
    """docs/STEM.json and docs/STEM.md with --docs; without, the page to stdout."""
    if docs:
        write_json(docs, stem + ".json", result)
        write_page(docs, stem + ".md", lines)
    else:
        print("\n".join(lines))


def write_page(docs, name, lines):
    """docs/NAME from its lines, also printed."""
    text = "\n".join(lines)
    with open(os.path.join(docs, name), "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    print(text)
