#!/usr/bin/env python3
"""A run's outputs are complete and readable: summary.json has every key other tools rely
on (DESIGN.md), the HDF5 snapshots and XDMF files agree, probes are CSV with a header
and physical positions, and case.toml holds the overrides."""
import csv
import os
import sys
import xml.dom.minidom

from common import arguments, check, hemo_output, run_hemoflow, summary

REQUIRED = ["steps", "fluid_nodes", "ranks", "backend", "device", "wall_seconds", "steps_seconds", "steady_seconds",
            "steady_steps", "step_seconds", "mlups", "mass_relative_drift", "phase_seconds", "status"]


def main():
    a = arguments(__doc__)
    backend = os.environ.get("HEMO_TEST_BACKEND", "cpu")  # the device session checks the CUDA path too
    out = os.path.join(a.work, "pipe_" + backend)
    run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--steps", "500", "--output", out, "--backend", backend,
                              "--set", "output.every=200", "--set", "output.precision=\"float32\""])
    s = summary(out)
    ok = check(all(k in s for k in REQUIRED), "summary.json has " + ", ".join(REQUIRED))
    ok &= check(0 < s.get("steps_seconds", 0) <= s["wall_seconds"],
                f"steps_seconds {s.get('steps_seconds')} in (0, wall_seconds {s['wall_seconds']}]")
    q = s.get("step_seconds", {})
    ok &= check(0 < q.get("median", 0) <= q.get("p90", 0) <= q.get("p99", 0) <= q.get("max", 0) <= s["steps_seconds"],
                f"step_seconds {q}: 0 < median <= p90 <= p99 <= max <= steps_seconds")
    ok &= check(s.get("steady_steps") == 490 and 0 < s.get("steady_seconds", 0) < s["steps_seconds"],
                f"steady_steps {s.get('steady_steps')} = 500 less a warm-up of 10, steady_seconds "
                f"{s.get('steady_seconds')} in (0, steps_seconds)")
    ok &= check(s["status"] == "ok" and s["steps"] == 500 and s["ranks"] == 1, "status ok, 500 steps, 1 rank")
    ok &= check("collide_interior" in s["phase_seconds"], "phase_seconds lists collide_interior")
    steps = hemo_output.field_steps(out)
    ok &= check(steps == [200, 400, 500], f"snapshots at steps 200, 400 and the final 500 (got {steps})")
    coords, data = hemo_output.fields(out, 400)
    ok &= check(data["velocity"].shape == (s["fluid_nodes"], 3) and data["velocity"].dtype.itemsize == 4,
                "velocity is N x 3 float32")
    ok &= check(coords.shape == (s["fluid_nodes"], 3), "coordinates are N x 3")
    for name in ["fields.xmf", "fields/step_00000400.xmf"]:
        doc = xml.dom.minidom.parse(os.path.join(out, name))
        ok &= check(len(doc.getElementsByTagName("Grid")) >= 1, f"{name} is XML with a Grid")
    collection = open(os.path.join(out, "fields.xmf")).read()
    ok &= check(all(f"step_{n:08d}.h5" in collection for n in steps), "fields.xmf lists every snapshot")
    with open(os.path.join(out, "profile.csv")) as f:
        rows = list(csv.DictReader(f))
    ok &= check(rows and list(rows[0].keys()) == ["step", "time_s", "s_m", "x_m", "y_m", "z_m", "density_kg_m3",
                                                  "pressure_Pa", "ux_m_per_s", "uy_m_per_s", "uz_m_per_s"],
                "profile.csv header: each column's unit in its name")
    ok &= check({int(r["step"]) for r in rows} == set(range(104, 501, 104)), "profile recorded every 104 steps")
    ok &= check(all(abs(float(r["y_m"])) <= 5e-4 for r in rows), "probe positions in metres inside the pipe")
    ok &= check(not any(n.endswith(".tmp") for n in os.listdir(out)), "no temporary files left")
    case = hemo_output.case(out)
    ok &= check(case["output"]["every"] == 200, "case.toml records the --set overrides")
    check_out = run_hemoflow(a.hemoflow, ["check", a.case])
    ok &= check(": ok (" in check_out.stdout, "hemoflow check reports ok")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
