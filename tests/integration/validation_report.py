#!/usr/bin/env python3
"""The validation report's logic (tools/validation/validate.py), without hemoflow:

  - a known_failure without its reason or what lifts it is refused, naming the entry;
  - a flagged check that passes is a FAIL ("flag expired") unless another row of the same
    entry in that run fails; one that fails is known; applies_to and the 16-bit storages
    limit where a flag applies;
  - validate.py --reduced exits non-zero for a study none of whose checks can fail (every
    check flagged, or none with a tolerance), 1 for an expired flag, 0 otherwise;
  - staleness: git_changes on a temporary repository (a change, no change, a *.md change,
    an unknown commit), the headers a listed C++ folder includes, and a row of a study
    whose file changed (or that ran from uncommitted sources) marked stale;
  - writing the report replaces superseded rows (same study, collision operator and
    storage option) and keeps the others; --from-json merges in order;
  - the headline counts current checks only and says how many stale rows it left out;
  - every registered study declares sources that exist;
  - the sphere study's limit of three levels: Richardson's where they give an order, the
    last level where they do not; --set (an experiment) is refused for the report.

Each part prints "ok" or "FAIL"; exit code 1 if any failed. Runs in about a second.
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "validation"))
import validate as v  # noqa: E402

FAILED = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILED.append(what)
    return ok


def entry(**extra):
    e = {"case": "fake_case", "quantity": "fake quantity", "source": "a test", "reference": 0.0,
         "error": "absolute", "bound": "above", "tolerance": 0.1, "tolerance_reduced": 0.1}
    e.update(extra)
    return e


FLAG = {"reason": "a staircase wall", "lifted_by": "issue 47"}


@contextlib.contextmanager
def patched(**values):
    """Replaces validate.py's module globals for the block (REFERENCES, CHECKS, ...)."""
    old = {k: getattr(v, k) for k in values}
    for k, x in values.items():
        setattr(v, k, x)
    try:
        yield
    finally:
        for k, x in old.items():
            setattr(v, k, x)


def malformed_flags(tmp):
    def refused(text, words):
        path = os.path.join(tmp, "refs.toml")
        with open(path, "w") as f:
            f.write('[grp.name]\ncase = "c"\nquantity = "q"\nsource = "s"\nreference = 0.0\nerror = "absolute"\n'
                    'bound = "above"\ntolerance = 0.1\n' + text + "\n")
        try:
            v.load_references(path)
        except v.ReferencesError as e:
            return all(w in str(e) for w in words)
        return False

    check(refused('known_failure = "just a reason"', ["[grp.name]", "lifted_by"]),
          "a known_failure that is a plain string is refused, naming the entry")
    check(refused('known_failure = { reason = "why" }', ["[grp.name]", "no lifted_by"]),
          "a known_failure without lifted_by is refused")
    check(refused('known_failure = { lifted_by = "issue 47" }', ["[grp.name]", "no reason"]),
          "a known_failure without a reason is refused")
    check(refused('known_failure = { reason = "why", lifted_by = "" }', ["no lifted_by"]),
          "an empty lifted_by is refused")
    check(refused('known_failure = { reason = "why", lifted_by = "x", applies_to = "small" }', ["applies_to"]),
          "an unknown applies_to is refused")
    path = os.path.join(tmp, "good.toml")
    with open(path, "w") as f:
        f.write('[grp.name]\nreference = 0.0\nknown_failure = { reason = "why", lifted_by = "issue 47" }\n')
    check(v.load_references(path)["grp.name"]["known_failure"]["lifted_by"] == "issue 47",
          "a known_failure with a reason and lifted_by loads")
    flagged = [k for k, e in v.REFERENCES.items() if "known_failure" in e]
    check(all(e["known_failure"]["lifted_by"] for k, e in v.REFERENCES.items() if k in flagged),
          f"references.toml's {len(flagged)} known_failure flags each name what lifts them")


def expiry():
    refs = {"t.flagged": entry(known_failure=FLAG), "t.full_only": entry(known_failure={**FLAG, "applies_to": "full"}),
            "t.plain": entry()}
    with patched(REFERENCES=refs):
        ctx = v.Context("hemoflow", "cpu", "/tmp", "abc", reduced=True)
        ctx.ran = "fp64"
        r = ctx.check("t.flagged", 0.05, "res")
        check(r.passed is False and r.flag_expired and not r.known_failure and
              v.verdict(r).startswith("**FAIL**: known_failure flag expired"),
              "a flagged check that passes is a FAIL with an expired flag")
        r = ctx.check("t.flagged", 0.5, "res")
        check(r.passed is False and not r.flag_expired and r.known_failure == FLAG["reason"] and
              r.lifted_by == "issue 47", "a flagged check that fails is a known failure with what lifts it")
        r = ctx.check("t.full_only", 0.05, "res")
        check(r.passed is True and not r.flag_expired, "a flag for the full size does not apply at reduced size")
        ctx.ran = "fp16s"
        r = ctx.check("t.flagged", 0.5, "res")
        check(r.passed is False and not r.known_failure, "no flag applies under a 16-bit storage")
        ctx.ran = "fp64"
        r = ctx.failed("fake_case", "res", "t.flagged")
        check(r.known_failure == FLAG["reason"] and not r.flag_expired, "a failed run of a flagged check is known")
        # The report applies the flags as references.toml has them now.
        old = v.Record("fake_case", "q", "check", 0.05, "res", "cuda", 0.0, "s", 0.05, 0.1, True, "t.flagged",
                       storage="case")
        removed = v.Record("fake_case", "q", "check", 0.5, "res", "cuda", 0.0, "s", 0.5, 0.1, False, "t.plain",
                           "an old reason", storage="case")
        v.rejudge([old, removed])
        check(old.flag_expired and not old.passed, "the report marks an old passing row of a now flagged check expired")
        check(not removed.known_failure and not removed.passed, "a row whose flag was removed is an unknown FAIL")


def exit_codes(tmp):
    refs = {"t.flagged": entry(known_failure=FLAG), "t.plain": entry(), "t.diag": entry(tolerance_reduced=None)}

    def all_flagged(ctx):
        return [ctx.check("t.flagged", 0.5, "res")]

    def one_can_fail(ctx):
        return [ctx.check("t.flagged", 0.5, "res"), ctx.check("t.plain", 0.01, "res")]

    def only_diagnostics(ctx):
        return [ctx.check("t.diag", 0.01, "res"), ctx.diagnostic("c", "q", 1.0, "res")]

    def expired(ctx):
        return [ctx.check("t.flagged", 0.01, "res"), ctx.check("t.plain", 0.01, "res")]

    def flag_still_used(ctx):  # one row of the flagged entry fails (e.g. Nash at one tau): the flag stands
        return [ctx.check("t.flagged", 0.01, "res"), ctx.check("t.flagged", 0.5, "res"),
                ctx.check("t.plain", 0.01, "res")]

    def unknown_failure(ctx):
        return [ctx.check("t.plain", 0.5, "res")]

    def nothing(ctx):
        return []

    studies = {f.__name__: f for f in (all_flagged, one_can_fail, only_diagnostics, expired, flag_still_used,
                                        unknown_failure, nothing)}
    expect = {"all_flagged": 3, "one_can_fail": 0, "only_diagnostics": 3, "expired": 1, "flag_still_used": 0,
              "unknown_failure": 1, "nothing": 77}
    with patched(REFERENCES=refs, CHECKS=studies):
        for name, code in expect.items():
            argv = sys.argv
            sys.argv = ["validate.py", "--reduced", "--only", name, "--hemoflow", "/bin/false", "--work", tmp]
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    got = v.main()
            finally:
                sys.argv = argv
            said = out.getvalue()
            words = {3: "NOT A TEST", 1: "FAIL"}.get(code, "")
            check(got == code and words in said, f"validate.py --reduced --only {name}: exit {got} (expected {code})"
                  + (f", says '{words}'" if words else ""))


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def write(repo, path, text):
    os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
    with open(os.path.join(repo, path), "w") as f:
        f.write(text)


def stale_in_git(tmp):
    if not shutil.which("git"):
        print("skip staleness in a temporary repository: no git on this machine")
        return
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@t")
    git(repo, "config", "user.name", "t")
    write(repo, "plugin/a.cpp", '#include "phys/b.hpp"\n')
    write(repo, "phys/b.hpp", '#include "c.hpp"\nint b;\n')
    write(repo, "phys/c.hpp", "int c;\n")
    write(repo, "phys/unused.hpp", "int u;\n")
    write(repo, "cases/one.toml", "x = 1\n")
    write(repo, "plugin/README.md", "docs\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    first = git(repo, "rev-parse", "--short=12", "HEAD")
    write(repo, "cases/two.toml", "# what it is\nx = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one and a half")
    first = git(repo, "rev-parse", "--short=12", "HEAD")
    write(repo, "phys/c.hpp", "int c = 2;\n")
    write(repo, "plugin/README.md", "more docs\n")
    write(repo, "cases/two.toml", "# what it is, and which row measures it\n#\nx = 1\n")
    git(repo, "commit", "-qam", "two")
    check(v.git_changes(first, ("cases/two.toml",), repo) == [], "git_changes: a case whose comments alone changed")
    write(repo, "cases/two.toml", "# what it is\nx = 2\n")
    git(repo, "commit", "-qam", "two and a half")
    v.git_changes.cache_clear()
    check(v.git_changes(first, ("cases/two.toml",), repo) == ["cases/two.toml"], "git_changes: a case's value changed")
    included = v.included_files(("plugin/",), repo)
    check(included == ("phys/b.hpp", "phys/c.hpp"), f"a listed folder's C++ includes are followed: {included}")
    check(v.git_changes(first, ("cases/one.toml",), repo) == [], "git_changes: an unchanged file")
    check(v.git_changes(first, ("plugin/", *included), repo) == ["phys/c.hpp"],
          "git_changes: a header the plugin includes changed; the README's change does not count")
    check(v.git_changes("0123456789ab", ("plugin/",), repo) is None, "git_changes: an unknown commit")
    checks = {"uses_plugin": None, "uses_case": None}
    rows = [v.Record("c", "q", "check", 0.0, "r", "cuda", 0.0, "s", 0.0, 0.1, True, "", commit=first, study=s)
            for s in checks]
    rows.append(v.Record("c", "q", "check", 0.0, "r", "cuda", 0.0, "s", 0.0, 0.1, True, "", commit="0123456789ab",
                         study="uses_case"))
    rows.append(v.Record("c", "q", "check", 0.0, "r", "cuda", 0.0, "s", 0.0, 0.1, True, "", commit=first,
                         study="gone"))
    rows.append(v.Record("c", "q", "check", 0.0, "r", "cuda", 0.0, "s", 0.0, 0.1, True, "", commit=first + v.DIRTY,
                         study="uses_case"))
    write(repo, "cases/one.toml", "x = 3\n")  # not committed
    check(v.uncommitted(("cases/one.toml", "plugin/"), repo) == ["cases/one.toml"],
          "uncommitted: a source changed in the working tree")
    with patched(BASE_SOURCES=[], SOURCES={"uses_plugin": ["plugin/"], "uses_case": ["cases/one.toml"]}):
        why = v.staleness(rows, checks=checks, references={}, root=repo)
    check("uncommitted changes" in why[4], f"a row made from uncommitted sources is stale: {why[4]}")
    check(why[0].startswith(f"changed since {first}: phys/c.hpp"), f"a study whose header changed is stale: {why[0]}")
    check(why[1] == "", "a study whose files did not change is current")
    check("unknown to git" in why[2], f"a row of an unknown commit is stale: {why[2]}")
    check("no longer in validate.py" in why[3], f"a row of a removed study is stale: {why[3]}")


def rows_of(study, commit, values, collision="bgk", option="", date="2026-12-01", kind="check", key=""):
    return [v.Record("case_" + study, f"q{i}", kind, x, "res", "cuda", 0.0, "src", x, 0.1 if kind == "check" else v.NAN,
                     (x <= 0.1) if kind == "check" else None, key, commit=commit, collision=collision, study=study,
                     seconds=1.0, device="gpu", date=date, storage="case", storage_option=option)
            for i, x in enumerate(values)]


def report(tmp):
    docs = os.path.join(tmp, "docs")
    studies = {"s_current": None, "s_stale": None, "s_flagged": None, "s_known": None}
    sources = {s: ["cases/womersley.toml"] for s in studies}
    refs = {"t.flagged": entry(known_failure=FLAG)}
    stale_commit = "stale0000000"

    def changes(commit, paths):
        return ["cases/womersley.toml"] if commit == stale_commit else []

    ctx = v.Context("hemoflow", "cuda", tmp, "new")
    with patched(CHECKS=studies, SOURCES=sources, REFERENCES=refs, DOCS=docs):
        first = (rows_of("s_current", "old000000000", [0.01, 0.5]) + rows_of("s_stale", stale_commit, [0.01, 0.02])
                 + rows_of("s_current", "old000000000", [0.01], collision="trt"))
        v.write_report(first, ctx, "gpu", merge=False, changes=changes, head="head")
        second = (rows_of("s_current", "new000000000", [0.01, 0.02, 0.03])
                  + rows_of("s_flagged", "new000000000", [0.01], key="t.flagged")
                  + rows_of("s_known", "new000000000", [7.0], key="t.flagged"))
        merged, why = v.write_report(second, ctx, "gpu", changes=changes, head="head")
        with open(os.path.join(docs, "validation.json")) as f:
            saved = json.load(f)
        with open(os.path.join(docs, "validation.md")) as f:
            md = f.read()
    keys = [(r["study"], r["collision"], r["commit"]) for r in saved]
    check(keys.count(("s_current", "bgk", "new000000000")) == 3 and ("s_current", "bgk", "old000000000") not in keys,
          "a new run's rows replace every earlier row of its study, collision operator and storage")
    check(("s_current", "trt", "old000000000") in keys and keys.count(("s_stale", "bgk", stale_commit)) == 2,
          "rows of other keys (another collision operator, another study) are kept")
    check(len(saved) == len(merged) == 3 + 1 + 2 + 2, f"no row is duplicated ({len(saved)} rows)")
    head = next(line for line in md.splitlines() if line.startswith("**"))
    # current checks: s_current bgk 3 pass, s_current trt 1 pass, s_flagged expired, s_known known
    check(head.startswith("**4 of 6 current checks pass, 2 fail**"), f"the headline counts current checks only: {head}")
    check("2 stale rows (2 checks, 0 diagnostics) are left out" in head,
          "the headline says how many stale rows it left out")
    check("1 of the failures are known" in head and "1 are known_failure flags that expired" in head,
          "the headline names known failures and expired flags")
    stale_part = md.split("## Stale rows (not counted)")[1].split("## Run log")[0] if "## Stale rows" in md else ""
    check(stale_part.count("| stale: changed since stale0000000: cases/womersley.toml |") == 2,
          "the stale rows are listed apart with their commit and why")
    checks_part = md.split("## Checks")[1].split("## Diagnostics")[0]
    check("stale" not in checks_part.replace("Stale", "") and checks_part.count("| current |") == 6,
          "the checks table holds current rows only, each with its commit and status")
    check("known_failure flag expired, remove it from references.toml" in checks_part,
          "an expired flag shows as a FAIL in the report")
    log = md.split("## Run log")[1].split("## Notes")[0]
    check("| s_stale | bgk | case | 2 | 0 | 1 | stale0000000 | gpu | 2026-12-01 | stale: changed since" in log
          and "| s_current | bgk | case | 3 | 0 | 1 | new000000000 | gpu | 2026-12-01 | current |" in log,
          "the run log gives each study's seconds, commit and status")
    # --from-json: later files replace earlier ones' rows per key; within one file the latest run wins.
    a = rows_of("s_current", "aaa", [0.01], date="2026-12-01") + rows_of("s_current", "bbb", [0.01, 0.02],
                                                                         date="2026-12-03")
    b = rows_of("s_current", "ccc", [0.5], option="fp16s")
    merged = v.merge_rows(a, b)
    check(sorted((r.commit, r.storage_option) for r in merged) == [("bbb", ""), ("bbb", ""), ("ccc", "fp16s")],
          "merge_rows: the latest run of a key within a file; another --storage is another key")
    merged = v.merge_rows(a, rows_of("s_current", "ddd", [0.01]))
    check([r.commit for r in merged] == ["ddd"], "merge_rows: a later file replaces an earlier one's rows of a key")
    # A study without a list of sources cannot be written into the report.
    with patched(CHECKS={"s_nolist": None}, SOURCES={}, DOCS=docs):
        try:
            v.write_report(rows_of("s_nolist", "x", [0.01]), ctx, "gpu", merge=False, changes=changes, head="h")
            refused = False
        except v.SourcesError as e:
            refused = "s_nolist" in str(e)
    check(refused, "a study without a list of sources is an error when the report is written")
    with patched(CHECKS={"s_bad": None}, SOURCES={"s_bad": ["cases/no_such_case.toml"]}):
        try:
            v.check_sources(["s_bad"])
            refused = False
        except v.SourcesError as e:
            refused = "no_such_case" in str(e)
    check(refused, "a list naming a path that does not exist is an error")


def registered():
    try:
        v.check_sources(list(v.CHECKS))
        ok, why = True, ""
    except v.SourcesError as e:
        ok, why = False, str(e)
    check(ok, "every registered study declares sources that exist" + (f": {why}" if why else ""))


def extrapolation_and_experiments(tmp):
    import sphere_check
    value, order, how = sphere_check.limit({10: 3.0 + 10 ** -2, 14: 3.0 + 14 ** -2, 20: 3.0 + 20 ** -2})
    check(abs(value - 3.0) < 1e-9 and abs(order - 2.0) < 1e-6 and how == "Richardson",
          f"limit of three second-order levels: {value}, order {order} ({how})")
    value, order, how = sphere_check.limit({10: 2.7651, 14: 2.7060, 20: 2.7054})  # no order in 0.5..4
    check(value == 2.7054 and order != order and "last level" in how,
          f"limit of three levels with no order: the last level ({value}, {how})")
    argv, err = sys.argv, io.StringIO()
    sys.argv = ["validate.py", "--only", "sphere", "--set", "boundaries.wall=\"staircase\"", "--work", tmp]
    try:
        with contextlib.redirect_stderr(err):
            v.main()
        code = 0
    except SystemExit as e:
        code = e.code
    finally:
        sys.argv = argv
    check(code == 2 and "experiment" in err.getvalue(), f"--set without --no-merge and another --docs: exit {code}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        extrapolation_and_experiments(tmp)
        malformed_flags(tmp)
        expiry()
        exit_codes(tmp)
        stale_in_git(tmp)
        report(tmp)
        registered()
    print(f"{len(FAILED)} failed" if FAILED else "all passed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
