#!/usr/bin/env python3
"""The FDA benchmark nozzle as a closed, triangulated STL surface plus one cap per opening.

usage: fda_nozzle.py [--output DIR] [--segments N] [--upstream L] [--downstream L]
                     [--axis z|x] [--orientation sudden-expansion|conical-diffuser]
                     [--cone-segments N] [--max-dz DZ] [--format binary|ascii] [--check]

Writes, in metres, to DIR (default: the current folder):
  nozzle.stl      the closed body: the wall and both caps, consistently oriented with the
                  normals pointing out of the fluid
  inlet_cap.stl   the inlet disc (the very triangles that close nozzle.stl there)
  outlet_cap.stl  the outlet disc
and prints each cap's centre, outward normal and radius, e.g. for
  hemoflow mesh DIR/nozzle.stl --find-iolets --caps DIR/inlet_cap.stl DIR/outlet_cap.stl
--check reads nozzle.stl back and verifies that it is closed (every edge of the welded
mesh used by exactly two triangles, once in each direction), that its signed volume is
positive and equals the analytic volume of the revolved profile (within 0.5%), and that
each cap is a flat disc made of triangles of nozzle.stl; it exits 1 on a failure.

Geometry (FDA "Computational Round Robin #1" nozzle; dimensions from Stewart et al. 2012,
Cardiovasc Eng Technol 3:139, Fig. 1, and Hariharan et al. 2011, J Biomech Eng
133:041002): inlet and outlet pipes of 12 mm diameter; a conical collector of 20 degrees
total included angle (10 degrees half-angle) from 12 mm down to the 4 mm throat, hence
(6 - 2) mm / tan(10 deg) = 22.685 mm long; a 4 mm diameter, 40 mm long throat; a sudden
(step) expansion from 4 mm back to 12 mm. The benchmark leaves the inlet and outlet pipe
lengths to the user (the experiments used about 100 D upstream and 83 D downstream);
defaults here: 0.1 m of pipe upstream of the cone and 0.2 m downstream of the expansion.

Coordinates: the axial coordinate is the z of the FDA data files (tools/validation/reference/fda_nozzle), along
+z (or +x with --axis x), flow in the + direction, the axis through the origin.
  sudden-expansion (default): the flow enters the cone first; z = 0 is the plane of the
    sudden expansion, the throat spans -0.040 <= z <= 0, the cone -0.062685 <= z <= -0.040.
  conical-diffuser: the mirror image, as in the FDA conical-diffuser data: z = 0 is the
    plane of the sudden contraction, the throat spans 0 <= z <= 0.040, the cone (now a
    diffuser) 0.040 <= z <= 0.062685. --upstream/--downstream are then the pipe lengths
    before the contraction and after the cone.

The surface is the revolution of the axial profile r(z) with N segments around: one ring
of N vertices per profile point (the step at the expansion is two rings at the same z),
vertex j of a ring shared by every triangle that meets there (j = N wraps to 0), each cap
a fan around one centre vertex. Its volume is that of the revolved profile times the
polygon factor N sin(2 pi / N) / (2 pi) (1 - 4.0e-4 at N = 128).
Plain numpy; also importable: radius(z), areas(), flow_conditions(re), analytic_volume().
"""
import argparse
import os
import sys

import numpy as np

# Nominal dimensions (m).
D_INLET = 0.012
D_THROAT = 0.004
L_THROAT = 0.040
CONE_HALF_ANGLE_DEG = 10.0          # 20 degrees total included angle
R_INLET = D_INLET / 2
R_THROAT = D_THROAT / 2
L_CONE = (R_INLET - R_THROAT) / np.tan(np.radians(CONE_HALF_ANGLE_DEG))   # 0.0226851 m

# Nominal fluid of the benchmark (blood): density (kg/m^3) and dynamic viscosity (Pa s).
DENSITY = 1056.0
VISCOSITY = 0.0035

DEFAULT_UPSTREAM = 0.1
DEFAULT_DOWNSTREAM = 0.2

ORIENTATIONS = ('sudden-expansion', 'conical-diffuser')


def radius(z, orientation='sudden-expansion', upstream=None, downstream=None):
    """The analytic wall radius r(z) (m) at the FDA axial coordinate z (m; array or scalar).

    At the step plane z = 0 the throat radius is returned (the step face is the annulus
    R_THROAT <= r <= R_INLET there). With upstream/downstream given, z outside the domain
    gives NaN; otherwise the pipes extend indefinitely.
    """
    z = np.asarray(z, dtype=float)
    if orientation == 'conical-diffuser':
        zs = -z                     # mirror image of the sudden-expansion profile
    elif orientation == 'sudden-expansion':
        zs = z
    else:
        raise ValueError(f'orientation must be one of {ORIENTATIONS}')
    z_cone = -(L_THROAT + L_CONE)
    cone = R_THROAT + (-L_THROAT - zs) * np.tan(np.radians(CONE_HALF_ANGLE_DEG))
    r = np.where(zs > 0, R_INLET,
                 np.where(zs >= -L_THROAT, R_THROAT,
                          np.where(zs >= z_cone, cone, R_INLET)))
    if upstream is not None or downstream is not None:
        lo, hi = domain(orientation, upstream if upstream is not None else np.inf,
                        downstream if downstream is not None else np.inf)
        r = np.where((z < lo) | (z > hi), np.nan, r)
    return r if r.ndim else float(r)


def domain(orientation='sudden-expansion', upstream=DEFAULT_UPSTREAM,
           downstream=DEFAULT_DOWNSTREAM):
    """(z_inlet, z_outlet): the axial positions (m) of the inlet and outlet planes."""
    if orientation == 'sudden-expansion':
        return -(L_CONE + L_THROAT + upstream), downstream
    return -upstream, L_THROAT + L_CONE + downstream


def areas():
    """The analytic cross-section areas (m^2): {'inlet': pi R_in^2, 'throat': pi R_t^2}
    (the outlet equals the inlet)."""
    return {'inlet': np.pi * R_INLET ** 2, 'throat': np.pi * R_THROAT ** 2}


def flow_conditions(re_throat, density=DENSITY, viscosity=VISCOSITY):
    """Flow rate (m^3/s) and mean / Poiseuille centre-line velocities (m/s) for a throat
    Reynolds number Re_t = rho u_throat D_throat / mu."""
    a = areas()
    u_t = re_throat * viscosity / (density * D_THROAT)
    q = u_t * a['throat']
    u_in = q / a['inlet']
    return {'re_throat': re_throat, 're_inlet': density * u_in * D_INLET / viscosity,
            'flow_rate': q, 'u_mean_throat': u_t, 'u_mean_inlet': u_in,
            'u_centre_inlet_poiseuille': 2 * u_in}


def analytic_volume(upstream=DEFAULT_UPSTREAM, downstream=DEFAULT_DOWNSTREAM):
    """The volume (m^3) of the revolved profile (exact circles), for either orientation."""
    cone = np.pi * L_CONE * (R_INLET ** 2 + R_INLET * R_THROAT + R_THROAT ** 2) / 3
    return (np.pi * R_INLET ** 2 * (upstream + downstream)
            + np.pi * R_THROAT ** 2 * L_THROAT + cone)


def polygon_factor(n):
    """Area of the regular n-gon inscribed in a circle over the circle's area."""
    return n * np.sin(2 * np.pi / n) / (2 * np.pi)


def _subdivide(z0, z1, max_dz, min_segments=1):
    """Points from z0 (included) to z1 (excluded), evenly spaced, at most max_dz apart."""
    n = max(min_segments, int(np.ceil(abs(z1 - z0) / max_dz - 1e-9)) if max_dz > 0 else 1)
    return list(z0 + (z1 - z0) * np.arange(n) / n)


def profile(orientation='sudden-expansion', upstream=DEFAULT_UPSTREAM,
            downstream=DEFAULT_DOWNSTREAM, cone_segments=24, max_dz=0.002):
    """The axial profile as a polyline from inlet to outlet: arrays (z, r), z non-decreasing.

    The step is two consecutive points at the same z (throat radius, then pipe radius).
    """
    if upstream <= 0 or downstream <= 0:
        raise ValueError('upstream and downstream lengths must be positive')
    # Built in sudden-expansion coordinates from the inlet; mirrored afterwards.
    lu, ld = (upstream, downstream) if orientation == 'sudden-expansion' else (downstream, upstream)
    z_in = -(L_CONE + L_THROAT + lu)
    z_c, z_t = -(L_CONE + L_THROAT), -L_THROAT
    zs, rs = [], []
    for z in _subdivide(z_in, z_c, max_dz):                        # inlet pipe
        zs.append(z); rs.append(R_INLET)
    nc = len(_subdivide(z_c, z_t, max_dz, cone_segments))         # cone: linear in t
    for t in np.arange(nc) / nc:
        zs.append(z_c + t * L_CONE); rs.append(R_INLET + t * (R_THROAT - R_INLET))
    for z in _subdivide(z_t, 0.0, max_dz):                         # throat
        zs.append(z); rs.append(R_THROAT)
    zs.append(0.0); rs.append(R_THROAT)                            # step
    for z in _subdivide(0.0, ld, max_dz):                          # outlet pipe
        zs.append(z); rs.append(R_INLET)
    zs.append(ld); rs.append(R_INLET)
    z, r = np.array(zs), np.array(rs)
    if orientation == 'conical-diffuser':
        z, r = -z[::-1], r[::-1]
        z[z == 0] = 0.0                                            # no -0.0
    elif orientation != 'sudden-expansion':
        raise ValueError(f'orientation must be one of {ORIENTATIONS}')
    return z, r


def _frame(axis):
    """(axial unit vector, e1, e2) with e1 x e2 = axial (right-handed)."""
    if axis == 'z':
        return np.eye(3)[2], np.eye(3)[0], np.eye(3)[1]
    if axis == 'x':
        return np.eye(3)[0], np.eye(3)[1], np.eye(3)[2]
    raise ValueError('axis must be "z" or "x"')


def build(z, r, segments=128, axis='z'):
    """Revolves the profile (z, r). Returns (vertices (V,3) float64, triangles (T,3) int,
    inlet cap triangle indices, outlet cap triangle indices, inlet centre vertex index,
    outlet centre vertex index)."""
    n, k = int(segments), len(z)
    if n < 3:
        raise ValueError('segments must be >= 3')
    ax, e1, e2 = _frame(axis)
    th = 2 * np.pi * np.arange(n) / n
    c, s = np.cos(th), np.sin(th)
    ring = (z[:, None, None] * ax + r[:, None, None] * (c[None, :, None] * e1 + s[None, :, None] * e2))
    verts = np.concatenate([ring.reshape(-1, 3), [z[0] * ax, z[-1] * ax]])
    ci, co = k * n, k * n + 1
    j = np.arange(n)
    jn = (j + 1) % n                                 # the seam: j = n is vertex 0 again
    tris = []
    for i in range(k - 1):
        a, b = i * n + j, i * n + jn
        cc, d = (i + 1) * n + jn, (i + 1) * n + j
        # normal ~ theta_hat x tangent = dz r_hat - dr z_hat: out of the fluid
        tris.append(np.stack([a, b, cc], 1))
        tris.append(np.stack([a, cc, d], 1))
    wall = np.concatenate(tris)
    cap_in = np.stack([np.full(n, ci), jn, j], 1)                      # normal -axis
    cap_out = np.stack([np.full(n, co), (k - 1) * n + j, (k - 1) * n + jn], 1)   # +axis
    faces = np.concatenate([wall, cap_in, cap_out])
    nw = len(wall)
    return (verts, faces, np.arange(nw, nw + n), np.arange(nw + n, nw + 2 * n), ci, co)


# ---------------------------------------------------------------------------- STL I/O

def _normals(tri):
    nrm = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    ln = np.linalg.norm(nrm, axis=1, keepdims=True)
    return nrm / np.where(ln > 0, ln, 1)


def write_stl(path, verts, faces, name='fda_nozzle', fmt='binary'):
    """Writes triangles verts[faces] (float32 coordinates, as STL stores them)."""
    tri = verts.astype(np.float32)[faces]
    nrm = _normals(tri.astype(np.float64)).astype(np.float32)
    if fmt == 'binary':
        rec = np.zeros(len(faces), dtype=[('n', '<f4', 3), ('v', '<f4', (3, 3)), ('a', '<u2')])
        rec['n'], rec['v'] = nrm, tri
        with open(path, 'wb') as f:
            f.write(f'{name} (m) written by tools/geometry/fda_nozzle.py'.encode()[:80].ljust(80, b' '))
            f.write(np.uint32(len(faces)).tobytes())
            f.write(rec.tobytes())
    elif fmt == 'ascii':
        with open(path, 'w') as f:
            f.write(f'solid {name}\n')
            for nv, t in zip(nrm, tri):
                f.write('  facet normal %.9g %.9g %.9g\n    outer loop\n' % tuple(nv))
                for p in t:
                    f.write('      vertex %.9g %.9g %.9g\n' % tuple(p))
                f.write('    endloop\n  endfacet\n')
            f.write(f'endsolid {name}\n')
    else:
        raise ValueError('format must be "binary" or "ascii"')


def read_stl(path):
    """Triangles (T,3,3) float64 of a binary or ASCII STL."""
    data = open(path, 'rb').read()
    if len(data) >= 84:
        n = int(np.frombuffer(data, '<u4', 1, 80)[0])
        if len(data) == 84 + 50 * n:
            rec = np.frombuffer(data, dtype=[('n', '<f4', 3), ('v', '<f4', (3, 3)), ('a', '<u2')],
                                count=n, offset=84)
            return rec['v'].astype(np.float64)
    vals = [line.split()[1:4] for line in data.decode('ascii').splitlines()
            if line.strip().startswith('vertex')]
    # as float32 then float64, as a binary reader would see the same file
    return np.array(vals, dtype=np.float32).astype(np.float64).reshape(-1, 3, 3)


def weld(tri):
    """Exact weld (bitwise-equal coordinates): (unique vertices, faces)."""
    v, inv = np.unique(tri.reshape(-1, 3), axis=0, return_inverse=True)
    return v, inv.reshape(-1, 3)


# ------------------------------------------------------------------------------ checks

def mesh_report(verts, faces):
    """Closedness, orientation and volume of an indexed triangle mesh."""
    e = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    und = np.sort(e, axis=1)
    _, ucount = np.unique(und, axis=0, return_counts=True)
    _, dcount = np.unique(e, axis=0, return_counts=True)
    tri = verts[faces]
    vol = np.einsum('ij,ij->i', tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6
    area2 = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    used = np.zeros(len(verts), bool)
    used[faces.ravel()] = True
    chi = len(verts) - len(ucount) + len(faces)
    return {'vertices': len(verts), 'unused_vertices': int((~used).sum()),
            'triangles': len(faces), 'edges': len(ucount),
            'edges_not_used_twice': int((ucount != 2).sum()),
            'directed_edges_repeated': int((dcount != 1).sum()),
            'degenerate_triangles': int((area2 <= 0).sum()),
            'euler_characteristic': int(chi), 'signed_volume': float(vol)}


def cap_report(tri, axis_vec):
    """Area-weighted centroid, unit normal (from the winding), area, flatness of a cap."""
    cr = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    a = 0.5 * np.linalg.norm(cr, axis=1)
    area = a.sum()
    cen = (a[:, None] * tri.mean(axis=1)).sum(0) / area
    nrm = cr.sum(0)
    nrm /= np.linalg.norm(nrm)
    flat = np.abs((tri.reshape(-1, 3) - cen) @ nrm).max()
    return {'centre': cen, 'normal': nrm, 'area': area, 'radius_equiv': np.sqrt(area / np.pi),
            'flatness': flat, 'normal_dot_axis': float(nrm @ axis_vec)}


def fmt_vec(v):
    return '[' + ', '.join('%.9g' % (x + 0.0) for x in v) + ']'      # + 0.0: no "-0"


def run_check(out, args, expected_vertices):
    ok = True

    def verdict(cond, what):
        nonlocal ok
        ok &= bool(cond)
        print(f'  {"ok  " if cond else "FAIL"} {what}')

    print(f'check: reading {os.path.join(out, "nozzle.stl")} back and welding exactly')
    body = read_stl(os.path.join(out, 'nozzle.stl'))
    v, f = weld(body)
    rep = mesh_report(v, f)
    for key in ('vertices', 'triangles', 'edges', 'euler_characteristic'):
        print(f'  {key}: {rep[key]}')
    verdict(rep['vertices'] == expected_vertices,
            f'welded vertices = generated vertices ({rep["vertices"]} vs {expected_vertices}):'
            ' no duplicates, no accidental merges')
    verdict(rep['unused_vertices'] == 0 and rep['degenerate_triangles'] == 0,
            f'no unused vertices, no degenerate triangles ({rep["degenerate_triangles"]})')
    verdict(rep['edges_not_used_twice'] == 0,
            f'closed: every edge used by exactly two triangles ({rep["edges_not_used_twice"]} not)')
    verdict(rep['directed_edges_repeated'] == 0,
            'consistently oriented: every edge traversed once in each direction')
    verdict(rep['euler_characteristic'] == 2, 'genus 0 (V - E + F = 2)')
    va = analytic_volume(args.upstream, args.downstream)
    vp = va * polygon_factor(args.segments)
    vol = rep['signed_volume']
    rel_a, rel_p = vol / va - 1, vol / vp - 1
    print(f'  signed volume: {vol:.9e} m^3; analytic (circles) {va:.9e} m^3: {rel_a:+.4%};'
          f' faceted ({args.segments}-gon factor {polygon_factor(args.segments):.7f})'
          f' {vp:.9e} m^3: {rel_p:+.2e}')
    verdict(vol > 0, 'outward orientation (signed volume > 0)')
    verdict(abs(rel_a) < 0.005, 'volume within 0.5% of the revolved profile'
            + ('' if polygon_factor(args.segments) > 0.995 else
               f' (cannot hold: {args.segments} segments alone lose'
               f' {1 - polygon_factor(args.segments):.2%})'))
    verdict(abs(rel_p) < 1e-5, 'volume within 1e-5 of the faceted (polygonal) solid')

    ax, _, _ = _frame(args.axis)
    z_in, z_out = domain(args.orientation, args.upstream, args.downstream)
    body_set = {t.tobytes() for t in body.astype(np.float32)}
    for name, zc, sign in (('inlet_cap', z_in, -1), ('outlet_cap', z_out, +1)):
        tri = read_stl(os.path.join(out, name + '.stl'))
        c = cap_report(tri, ax)
        sub = all(t.tobytes() in body_set for t in tri.astype(np.float32))
        print(f'  {name}: {len(tri)} triangles, centre {fmt_vec(c["centre"])},'
              f' normal {fmt_vec(c["normal"])}, area {c["area"]:.6e} m^2'
              f' (pi R^2 {np.pi * R_INLET ** 2:.6e}), flatness {c["flatness"]:.1e} m')
        verdict(sub, f'{name}: every triangle is a triangle of nozzle.stl (same vertices, same order)')
        verdict(np.allclose(c['centre'], zc * ax, atol=1e-7)       # float32 coordinates
                and abs(c['normal_dot_axis'] - sign) < 1e-9 and c['flatness'] < 1e-8,
                f'{name}: flat disc on the axis at z = {zc:.6f} m, normal {sign:+d} axis (outward)')
        verdict(abs(c['area'] / (np.pi * R_INLET ** 2) - polygon_factor(args.segments)) < 1e-5,
                f'{name}: area = pi R^2 x polygon factor')
    # The analytic radius function against the written vertices.
    zz = v @ ax
    rr = np.linalg.norm(v - zz[:, None] * ax, axis=1)
    wall = rr > 0
    rz = radius(zz[wall], args.orientation)
    step = np.isclose(zz[wall], 0.0, atol=1e-12)
    err = np.abs(np.where(step, np.minimum(np.abs(rr[wall] - R_THROAT), np.abs(rr[wall] - R_INLET)),
                          rr[wall] - rz)).max()
    verdict(err < 1e-8, f'every wall vertex lies on r(z) (max deviation {err:.1e} m)')
    print('check: ' + ('PASS' if ok else 'FAIL'))
    return ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--output', default='.', help='output folder (created if missing)')
    ap.add_argument('--segments', type=int, default=128, help='segments around (default 128)')
    ap.add_argument('--upstream', type=float, default=DEFAULT_UPSTREAM,
                    help='inlet pipe length (m) before the cone (sudden-expansion) or before the'
                         f' contraction (conical-diffuser); default {DEFAULT_UPSTREAM}')
    ap.add_argument('--downstream', type=float, default=DEFAULT_DOWNSTREAM,
                    help='outlet pipe length (m) after the expansion (sudden-expansion) or after'
                         f' the cone (conical-diffuser); default {DEFAULT_DOWNSTREAM}')
    ap.add_argument('--axis', choices=('z', 'x'), default='z', help='the nozzle axis (default z)')
    ap.add_argument('--orientation', choices=ORIENTATIONS, default='sudden-expansion',
                    help='flow direction through the nozzle (default sudden-expansion)')
    ap.add_argument('--cone-segments', type=int, default=24,
                    help='minimum number of axial segments along the cone (default 24)')
    ap.add_argument('--max-dz', type=float, default=0.002,
                    help='largest axial spacing of rings (m; 0: rings only at the profile'
                         ' corners and in the cone); default 0.002')
    ap.add_argument('--format', choices=('binary', 'ascii'), default='binary',
                    help='STL flavour (default binary)')
    ap.add_argument('--check', action='store_true',
                    help='verify closedness, orientation and volume of what was written')
    args = ap.parse_args(argv)

    z, r = profile(args.orientation, args.upstream, args.downstream, args.cone_segments, args.max_dz)
    verts, faces, cin, cout, ci, co = build(z, r, args.segments, args.axis)
    os.makedirs(args.output, exist_ok=True)
    write_stl(os.path.join(args.output, 'nozzle.stl'), verts, faces, 'fda_nozzle', args.format)
    write_stl(os.path.join(args.output, 'inlet_cap.stl'), verts, faces[cin], 'inlet_cap', args.format)
    write_stl(os.path.join(args.output, 'outlet_cap.stl'), verts, faces[cout], 'outlet_cap', args.format)

    ax, _, _ = _frame(args.axis)
    z_in, z_out = domain(args.orientation, args.upstream, args.downstream)
    print(f'FDA nozzle, {args.orientation} orientation, axis +{args.axis}, flow along +{args.axis};'
          f' {args.axis} = 0 at the {"sudden expansion" if args.orientation == ORIENTATIONS[0] else "sudden contraction"}')
    zc0 = -(L_THROAT + L_CONE) if args.orientation == ORIENTATIONS[0] else L_THROAT + L_CONE
    print(f'  inlet plane {z_in:.6f} m, cone/throat corners {zc0:.6f} and'
          f' {(-1 if args.orientation == ORIENTATIONS[0] else 1) * L_THROAT:.6f} m,'
          f' step 0, outlet plane {z_out:.6f} m (cone length {L_CONE * 1e3:.4f} mm)')
    print(f'  {len(z)} rings x {args.segments} segments: {len(verts)} vertices, {len(faces)} triangles'
          f' -> {os.path.join(args.output, "nozzle.stl")} ({args.format})')
    a = areas()
    for name, zc, sign in (('inlet', z_in, -1), ('outlet', z_out, +1)):
        print(f'  {name}_cap.stl: centre {fmt_vec(zc * ax)}, outward normal {fmt_vec(sign * ax)},'
              f' radius {R_INLET} m (polygon-area equivalent'
              f' {R_INLET * np.sqrt(polygon_factor(args.segments)):.9f} m)')
    print(f'  areas: inlet/outlet {a["inlet"]:.6e} m^2, throat {a["throat"]:.6e} m^2;'
          f' analytic volume {analytic_volume(args.upstream, args.downstream):.6e} m^3')
    for re_t in (500, 2000):
        fc = flow_conditions(re_t)
        print(f'  Re_throat {re_t}: Q = {fc["flow_rate"]:.6e} m^3/s, mean u inlet'
              f' {fc["u_mean_inlet"]:.6f} m/s (Poiseuille centre {fc["u_centre_inlet_poiseuille"]:.6f}),'
              f' mean u throat {fc["u_mean_throat"]:.6f} m/s, Re_inlet {fc["re_inlet"]:.1f}')
    if args.check:
        return 0 if run_check(args.output, args, len(verts)) else 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
