#!/usr/bin/env python3
"""Plane Poiseuille channel (cases/poiseuille_channel.toml): the x velocity of every node
against u(y) = g y (H - y) / (2 nu) (+ U y / H with a sliding y+ wall), walls at the box's y faces (halfway bounce-back puts
them half a spacing beyond the outermost fluid nodes). Prints the relative L2 error.

usage: tools/analysis/channel.py OUTPUT_DIR"""
import sys

import numpy as np

import hemo_output


def l2_error(out_dir):
    """Relative L2 error of u_x over all nodes, and the analytical centre-line velocity of
    the pressure-driven part. A moving wall on the y+ face (boundaries.moving_wall) adds
    plane Couette flow, u = U_wall y / H; both together are still an exact solution."""
    case = hemo_output.case(out_dir)
    coords, data = hemo_output.fields(out_dir)
    g = case.get("forcing", {}).get("acceleration", [0.0])[0]
    nu = case["fluid"]["viscosity"]
    origin = case["geometry"].get("origin", [0.0, 0.0, 0.0])[1]
    H = case["geometry"]["size"][1]
    y = coords[:, 1] - origin
    exact = g * y * (H - y) / (2.0 * nu)
    for wall in case.get("boundaries", {}).get("moving_wall", []):
        if wall["face"] != "y+":
            raise ValueError(f"channel.py expects moving walls on the y+ face, not {wall['face']}")
        exact = exact + wall["velocity"][0] * y / H
    u = data["velocity"][:, 0]
    return float(np.sqrt(np.sum((u - exact) ** 2) / np.sum(exact ** 2))), g * H * H / (8.0 * nu)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    err, umax = l2_error(sys.argv[1])
    print(f"relative L2 error of u_x: {err:.3e} (U_max = {umax:.4g} m/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
