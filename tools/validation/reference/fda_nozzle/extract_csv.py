#!/usr/bin/env python3
"""Converts the FDA nozzle sudden-expansion experiments (raw/SE_exp_*.zip) into the CSV
files of this folder. See SOURCE.md for where the zips come from and what the columns mean.

usage: python3 extract_csv.py        (rewrites the CSV files next to this script)

The zips hold one text file per experimental trial in the round-robin "conformance"
format: header lines "key value", then blocks "name [args]" / count / count lines of
"x y". The LDV file of Re 2000 uses the same block layout with tabs and CR line ends.
Plain Python + numpy; the numbers are carried over unchanged (shortest repr of the
parsed float).
"""
import csv
import os
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# Trial code -> laboratory, inferred (not stated in the data files); see SOURCE.md.
LAB = {'243': 'Lab-1', '468': 'Lab-1', '763': 'Lab-1', '297': 'Lab-2', '999': 'Lab-3'}

# Two-sided 95% Student t quantiles, by degrees of freedom.
T975 = {1: 12.706204736, 2: 4.302652730, 3: 3.182446305, 4: 2.776445105}


def parse(text):
    """Returns (header dict, list of (block name, args tuple, [(x, y), ...]))."""
    lines = text.replace('\r\n', '\n').replace('\r', '\n').split('\n')
    head, blocks, i = {}, [], 0
    while i < len(lines):
        tok = lines[i].split()
        if not tok:
            i += 1
            continue
        nxt = lines[i + 1].split() if i + 1 < len(lines) else []
        is_block = (tok[0][0].isalpha() and len(nxt) == 1 and nxt[0].isdigit())
        if not is_block:
            if tok[0][0].isalpha():
                head.setdefault(tok[0], ' '.join(tok[1:]).strip('"').strip())
            i += 1
            continue
        n = int(nxt[0])
        pts = []
        for j in range(n):
            a = lines[i + 2 + j].split()
            pts.append((float(a[0]), float(a[1])))
        blocks.append((tok[0], tuple(tok[1:]), pts))
        i += 2 + n
    return head, blocks


def g6(x):
    return None if x is None else float('%.6g' % x)


def num(x):
    return '' if x is None or (isinstance(x, float) and np.isnan(x)) else repr(float(x))


def write(name, header, rows):
    path = os.path.join(HERE, name)
    with open(path, 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(header)
        for r in rows:
            w.writerow([num(v) if isinstance(v, float) else v for v in r])
    print(f'{name}: {len(rows)} rows, {os.path.getsize(path)} bytes')


def piv(re_tag):
    zpath = os.path.join(HERE, 'raw', f'SE_exp_{re_tag}.zip')
    z = zipfile.ZipFile(zpath)
    names = sorted(n for n in z.namelist() if os.path.basename(n).startswith('PIV_'))
    cl, prof, pres = [], [], []
    for n in names:
        head, blocks = parse(z.read(n).decode('latin-1'))
        code = head['dataset-code']
        lab = LAB[code]
        assert head['geometry-flow-z-direction'] in ('+1', '1'), n
        assert float(head['geometry-sudden-z']) == 0.0, n
        wall = {}
        for name, args, pts in blocks:
            if name == 'plot-z-distribution-axial-velocity':
                cl += [(code, lab, zz, u) for zz, u in pts]
            elif name == 'plot-profile-axial-velocity-at-z':
                zc = float(args[0])
                prof += [(code, lab, zc, r, u) for r, u in pts]
            elif name.endswith('plot-wall-distribution-pressure'):
                wall[name] = pts
            elif name.endswith('plot-z-distribution-pressure'):
                wall.setdefault('z:' + name, pts)
        for name, pts in wall.items():
            if name.startswith('z:'):
                continue
            other = wall.get('z:' + name.replace('wall-distribution', 'z-distribution'))
            assert other is None or other == pts, f'{n}: wall and z pressure blocks differ'
            status = 'deleted_in_source' if name.startswith('deleted-') else 'ok'
            p0 = dict(pts).get(0.0)
            pres += [(code, lab, zz, p, None if p0 is None else g6(p - p0), status)
                     for zz, p in pts]
    tag = f'piv_se_re{re_tag}'
    write(f'{tag}_centerline.csv', ['trial', 'lab', 'z_m', 'u_axial_m_s'], cl)
    write(f'{tag}_profiles.csv', ['trial', 'lab', 'z_m', 'r_m', 'u_axial_m_s'], prof)
    write(f'{tag}_wall_pressure.csv',
          ['trial', 'lab', 'z_m', 'p_Pa', 'p_minus_p_z0_Pa', 'status'], pres)

    # Derived: inter-laboratory centre-line statistics (Lab-1 trials averaged first).
    zs = sorted({r[2] for r in cl})
    rows = []
    for zz in zs:
        per_lab = {}
        for code, lab, z2, u in cl:
            if z2 == zz:
                per_lab.setdefault(lab, []).append(u)
        means = [float(np.mean(v)) for _, v in sorted(per_lab.items())]
        n = len(means)
        m = float(np.mean(means))
        sd = float(np.std(means, ddof=1)) if n > 1 else None
        ci = T975[n - 1] * sd / np.sqrt(n) if n > 1 else None
        n1 = len(per_lab.get('Lab-1', []))
        rows.append((zz, n, n1, g6(m), g6(sd), g6(ci)))
    write(f'{tag}_centerline_interlab_derived.csv',
          ['z_m', 'n_labs', 'n_lab1_trials', 'u_mean_m_s', 'u_sd_m_s', 'u_ci95_halfwidth_m_s'],
          rows)


def ldv():
    z = zipfile.ZipFile(os.path.join(HERE, 'raw', 'SE_exp_2000.zip'))
    n = [n for n in z.namelist() if os.path.basename(n).startswith('LDV_')][0]
    head, blocks = parse(z.read(n).decode('latin-1'))
    assert float(head['geometry-sudden-z']) == 0.0
    d = {(name, args[0] if args else ''): pts for name, args, pts in blocks}
    cl_u = d[('centerline-axial-velocity-at-r=', '0')]
    cl_s = d[('centerline-axial-stdev-at-r=', '0')]
    assert [p[0] for p in cl_u] == [p[0] for p in cl_s]
    write('ldv_se_re2000_centerline.csv', ['z_m', 'u_axial_m_s', 'u_axial_std_m_s'],
          [(a[0], a[1], b[1]) for a, b in zip(cl_u, cl_s)])
    rows = []
    for (name, arg), pts in d.items():
        if name != 'axial-velocity-at-z=':
            continue
        sd = d[('axial-velocity-stdev-at-z=', arg)]
        assert [p[0] for p in pts] == [p[0] for p in sd]
        rows += [(float(arg), a[0], a[1], b[1]) for a, b in zip(pts, sd)]
    write('ldv_se_re2000_profiles.csv', ['z_m', 'r_m', 'u_axial_m_s', 'u_axial_std_m_s'], rows)


if __name__ == '__main__':
    piv('0500')
    piv('2000')
    ldv()
