#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz targets into corpus/<reader>/, and the dictionaries.

    tests/fuzz/make_corpus.py [stl] [case] [voxel] [checkpoint] [dicts]   (default: all)

Seeds named valid_* must be accepted by their reader (the ctest fuzz.<reader>_seeds_valid
checks it); seed_* ones need not be. Inputs found by the fuzzer (a minimised corpus,
crashes once fixed) are added to corpus/<reader>/ beside them by hand; this script only
rewrites its own seeds.

  stl         binary tetrahedron, the same with a header starting with "solid", ASCII with
              two solids, truncated binary, ASCII with coordinates near the largest double.
  case        every case in cases/*.toml and the TOML files of tests/integration/bad_input
              (comment lines dropped, to stay under -max_len), each case again with only
              core's sections (valid_*: core's schema accepts it), and a few made here:
              --set overrides ("#set " lines), dt instead of tau, end_time, probes.
  voxel       recipes (h5_recipe.hpp) of voxel files laid out as write_voxel_file writes
              them (core/geometry/voxel_file.cpp), and a few near misses.
  checkpoint  recipes of the checkpoint that write_checkpoint (core/sim/checkpoint.cpp)
              writes for checkpoint_fuzz.cpp's fixed run, and near misses.
  dicts       case.dict from docs/config-reference.md (every section, key and allowed
              value, core's and the plugins'), h5_recipe.dict from the recipe grammar and
              the names the voxel and checkpoint readers look for.
"""
import pathlib
import re
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"


def write_seeds(reader: str, seeds: dict, limit: int = 4096) -> None:
    folder = CORPUS / reader
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in seeds.items():
        if isinstance(data, str):
            data = data.encode()
        assert len(data) <= limit, (name, len(data))
        (folder / name).write_bytes(data)
    print(f"{reader}: {len(seeds)} seeds, {sum(len(d) for d in seeds.values())} bytes")


# --- STL -------------------------------------------------------------------------------

# A unit tetrahedron: closed, four triangles, outward orientation.
CORNERS = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
FACES = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def binary_stl(header: bytes, faces=FACES, count=None) -> bytes:
    out = bytearray(header.ljust(80, b" ")[:80])
    out += struct.pack("<I", len(faces) if count is None else count)
    for f in faces:
        out += struct.pack("<3f", 0.0, 0.0, 0.0)  # normal: readers recompute it
        for v in f:
            out += struct.pack("<3f", *CORNERS[v])
        out += b"\0\0"
    return bytes(out)


def ascii_stl() -> bytes:
    lines = []
    for name, faces in (("first", FACES[:2]), ("second", FACES[2:])):
        lines.append(f"solid {name}")
        for f in faces:
            lines += ["  facet normal 0 0 0", "    outer loop"]
            lines += ["      vertex %g %g %g" % CORNERS[v] for v in f]
            lines += ["    endloop", "  endfacet"]
        lines.append(f"endsolid {name}")
    return ("\n".join(lines) + "\n").encode()


def stl_seeds() -> dict:
    return {
        "valid_binary_tetra.stl": binary_stl(b"hemoflow fuzz seed"),
        "valid_binary_solid_header.stl": binary_stl(b"solid but binary"),
        "valid_ascii_tetra.stl": ascii_stl(),
        "seed_binary_truncated.stl": binary_stl(b"hemoflow fuzz seed")[:150],
        # Coordinates near the largest double: products and sums in the surface checks overflow.
        "seed_ascii_huge_coordinates.stl": (
            b"solid huge\nfacet normal 0 0 1\nouter loop\nvertex 1.7e308 0 0\n"
            b"vertex 1.7e308 -1.7e308 0\nvertex -1.7e308 1.7e308 1e308\nendloop\nendfacet\nendsolid huge\n"),
    }


# --- case files --------------------------------------------------------------------------

def reference_sections():
    """[(header, owner, [(key, type, allowed)])] from docs/config-reference.md."""
    sections = []
    for line in (ROOT / "docs" / "config-reference.md").read_text().splitlines():
        if line.startswith("### "):
            sections.append([line[4:].strip(), None, []])
        elif line.startswith("Owner: `") and sections:
            sections[-1][1] = line.split("`")[1]
        elif line.startswith("| `") and sections:
            cells = [c.strip() for c in line.strip("|").split("|")]
            sections[-1][2].append((cells[0].strip("`"), cells[1], cells[4]))
    return sections


def core_section_names() -> set:
    return {h.strip("[]") for h, owner, _ in reference_sections() if owner == "core"}


def without_comment_lines(text: str) -> str:
    return "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#") and l.strip()) + "\n"


def core_only(text: str) -> str:
    """The case without the tables that plugins own (and without comment lines)."""
    core = core_section_names()
    out, keep = [], True
    for line in text.splitlines():
        m = re.match(r"\s*\[\[?\s*([A-Za-z0-9_.]+)\s*\]\]?", line)
        if m:
            keep = m.group(1) in core
        if keep and line.strip() and not line.lstrip().startswith("#"):
            out.append(line)
    return "\n".join(out) + "\n"


def case_seeds() -> dict:
    seeds = {}
    for path in sorted((ROOT / "cases").glob("*.toml")):
        seeds[f"seed_{path.stem}.toml"] = without_comment_lines(path.read_text())
        seeds[f"valid_{path.stem}.toml"] = core_only(path.read_text())
    for path in sorted((ROOT / "tests" / "integration" / "bad_input").glob("*.toml")):
        seeds[f"seed_bad_{path.stem}.toml"] = without_comment_lines(path.read_text())
    seeds["valid_overrides.toml"] = (
        "#set lattice.tau=0.9\n#set geometry.shape=box\n#set output.probe.1.points=7\n"
        "#set run.plugins=[\"lb_bgk\"]\n#set flow.reference_velocity=0.5\n"
        "[run]\nsteps = 10\n[fluid]\ndensity = 1000.0\nviscosity = 1e-6\n[lattice]\ndx = 1e-4\ntau = 0.6\n"
        "[geometry]\nshape = \"pipe\"\nsize = [1e-3, 1e-3, 2e-3]\n"
        "[[output.probe]]\nname = \"a\"\ntype = \"point\"\nposition = [0, 0, 0]\n"
        "[[output.probe]]\nname = \"b\"\ntype = \"line\"\nstart = [0, 0, 0]\nend = [1e-3, 0, 0]\n")
    seeds["valid_dt_end_time.toml"] = (
        "[run]\nend_time = 0.5\nprecision = \"fp32\"\nplugins = [\"lb_vlbm\", \"boundaries\", \"wall_shear\"]\n"
        "[lattice]\ndx = 2.5e-4\ndt = 1e-5\n[geometry]\nshape = \"tree\"\nlevels = 3\nradius = 1e-3\n"
        "length = 5e-3\naxis = [0, 0, 1]\n[[geometry.obstacle]]\ncenter = [0, 0, 1e-3]\nradius = 2e-4\n"
        "[forcing]\nacceleration = [0.0, 0, 1.5]\namplitude = [0, 0, 0.5]\nperiod = 0.25\n"
        "[initial]\nvelocity = [0, 0, 0.01]\n[checkpoint]\nevery = 100\nwall_seconds = 3600\nfinal = true\n"
        "[output]\nfields = [\"velocity\"]\nprecision = \"float32\"\nevery = 0x10\n")
    seeds["valid_inline_tables.toml"] = (
        "run = { steps = 1_000, backend = 'cpu' }\nfluid.density = 1.06e3\nlattice = { dx = 1e-4 }\n"
        "geometry = { shape = \"box\", size = [1e-3, 1e-3, 1e-3], origin = [-5e-4, -5e-4, -5e-4] }\n"
        "output.probe = [ { name = \"p\", type = \"point\", position = [0.0, 0.0, 0.0] } ]\n"
        "partition = { brick = 4 }\n")
    seeds["seed_wrong_types.toml"] = (
        "[run]\nsteps = 1.0\nbackend = \"gpu\"\nplugins = \"lb_bgk\"\n[lattice]\ndx = \"1e-4\"\ntau = 0.5\n"
        "[geometry]\nshape = [\"box\"]\nsize = [1e-3, 1e-3]\n[output]\nprobe = { name = \"x\" }\n"
        "[forcing]\nacceleration = [nan, inf, -inf]\nperiod = 1979-05-27T07:32:00Z\n")
    return seeds


def toml_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def case_dict() -> str:
    entries = set()
    for header, _owner, keys in reference_sections():
        entries.add(header)
        name = header.strip("[]")
        entries.update(name.split("."))
        for key, _type, allowed in keys:
            entries.add(key)
            entries.add(f"{key} = ")
            entries.add(f"{name}.{key}=")  # for "#set " lines
            entries.update(f'"{v}"' for v in re.findall(r"`([^`]*)`", allowed))
    entries.update([
        "#set ", "[[", "]]", " = ", "true", "false", "nan", "inf", "-inf", "+inf", "0x", "0o", "0b", "1e308", "1e-308",
        "-0.0", "9223372036854775807", "-9223372036854775808", "1_000", '"""', "'''", "\\u00e9", "\\U0001F600",
        "1979-05-27T07:32:00Z", "07:32:00", "[]", "[[]]", "{}", "{ ", " }", ", ", "\n", "\r\n", "# ", ".", "=",
    ])
    lines = ["# libFuzzer dictionary for case_fuzz.cpp (written by make_corpus.py from docs/config-reference.md)"]
    for e in sorted(entries):
        escaped = "".join(c if 32 <= ord(c) < 127 and c not in '\\"' else
                          ("\\" + c if c in '\\"' else f"\\x{ord(c):02x}") for c in e)
        lines.append(f'"{escaped}"')
    return "\n".join(lines) + "\n"


# --- HDF5 recipes (h5_recipe.hpp) ------------------------------------------------------

def voxel_recipe(nx=4, ny=3, nz=2, p=None, version="1", distance=False, extra="") -> str:
    p = p if p is not None else "0 0 1 0.5 0.25 1 0 0.75"
    lines = [
        f"data solid_fraction f32[{nz}x{ny}x{nx}] chunk={nz}x{ny}x{nx} gzip=4 {p}",
        f"attr / format_version i32 {version}",
        f"attr / dims i32[3] {nx} {ny} {nz}",
        "attr / origin f64[3] -0.001 0 2.5e-4",
        "attr / dx f64 0.0005",
        "attr / characteristic_length f64 0.002",
        "attr / description str pipe\\sof\\sradius\\s1\\smm",
    ]
    if distance:
        lines.insert(1, f"data signed_distance f32[{nz}x{ny}x{nx}] chunk={nz}x{ny}x{nx} gzip=4 -1e-3 0 5e-4")
    return "\n".join(lines) + "\n" + extra


def voxel_seeds() -> dict:
    return {
        "valid_small.recipe": voxel_recipe(),
        "valid_signed_distance.recipe": voxel_recipe(distance=True),
        "valid_one_voxel.recipe": voxel_recipe(1, 1, 1, "0"),
        "valid_contiguous.recipe": voxel_recipe().replace(" chunk=2x3x4 gzip=4", ""),
        "valid_big_unwritten.recipe": voxel_recipe(1000, 1000, 1000, ""),  # a header-only read, a window of zeros
        "seed_float64_p.recipe": voxel_recipe().replace("f32[", "f64be["),
        "seed_p_out_of_range.recipe": voxel_recipe(p="0 1.5 nan -0"),
        "seed_version_2.recipe": voxel_recipe(version="2"),
        "seed_shape_mismatch.recipe": voxel_recipe().replace("attr / dims i32[3] 4 3 2", "attr / dims i32[3] 2 3 4"),
        "seed_overflowing_dims.recipe": voxel_recipe(2097152, 2097152, 2097152, ""),
        "seed_fixed_strings.recipe": voxel_recipe().replace("description str", "description fstr[2]"),
        "seed_soft_links.recipe": voxel_recipe().replace("data solid_fraction", "data real_p") +
                                  "link solid_fraction real_p\nlink signed_distance nowhere\n",
    }


# The fixed run of checkpoint_fuzz.cpp: 5 fluid voxels (lexicographic 0, 2, 4, 7, 11 of a
# 3 x 2 x 2 box), fields f (float64 x 3), h (fp16s x 2), tag (uint32 x 1), tables cells
# (position float32 x 3, id uint32, value start_size) and marks (mark float32).
def checkpoint_recipe(version="2", step="7", voxels="0 2 4 7 11", cells=3, marks=2, particles=True, extra="") -> str:
    lines = [
        f"data voxel u64[] {voxels}",
        "group fields",
        f"attr / format_version i32 {version}",
        f"attr / step i64 {step}",
        "attr / time f64 0.0014",
        "attr / precision str fp64",
        "attr / dims i32[3] 3 2 2",
        "attr / dx f64 0.0001",
        "attr / dt f64 0.0002",
        "attr / tau f64 0.8",
        "attr / nodes u64 5",
        "attr / initial_mass f64 5.000000001",
        "attr / ranks i32 2",
        "attr / written_by str hemoflow\\s0.9.0\\s(abc123)",
        "attr / case_file str cases/pipe.toml",
        "data fields/f f64[3x5] 1 0.5 0.25 -1e-3 2",
        "attr fields/f element_type str float64",
        "data fields/h u16[2x5] 0 15360 48128 1 65535",
        "attr fields/h element_type str fp16s",
        "data fields/tag u32[1x5] 7 0 4294967295 1 2",
        "attr fields/tag element_type str uint32",
    ]
    if particles:
        lines += [
            "group particles",
            "group particles/cells",
            f"attr particles/cells count u64 {cells}",
            "attr particles/cells owner str rbc_test",
            "attr particles/cells start_size f64 1.25",
            f"data particles/cells/position f32[3x{cells}] 0 10 20 1 11 21 2 12 22",
            f"data particles/cells/id u32[1x{cells}] 0 1 2",
            "group particles/marks",
            f"attr particles/marks count u64 {marks}",
            "attr particles/marks owner str rbc_test",
            f"data particles/marks/mark f32[1x{marks}] 0.5 -3",
        ]
    return "\n".join(lines) + "\n" + extra


def checkpoint_seeds() -> dict:
    return {
        "valid_checkpoint.recipe": checkpoint_recipe(),
        "valid_no_rows.recipe": checkpoint_recipe(cells=0, marks=0).replace(
            "f32[3x0] 0 10 20 1 11 21 2 12 22", "f32[3x0]").replace("u32[1x0] 0 1 2", "u32[1x0]").replace(
            "f32[1x0] 0.5 -3", "f32[1x0]"),
        "seed_format_1.recipe": checkpoint_recipe(version="1", particles=False),
        "seed_step_0.recipe": checkpoint_recipe(step="0"),
        "seed_other_voxels.recipe": checkpoint_recipe(voxels="0 2 4 8 11"),
        "seed_more_voxels.recipe": checkpoint_recipe().replace("data voxel u64[] 0 2 4 7 11",
                                                               "data voxel u64[1152921504606846976]"),
        "seed_float32_field.recipe": checkpoint_recipe().replace("fields/f f64[", "fields/f f32["),
        "seed_e4m11.recipe": checkpoint_recipe().replace("element_type str fp16s", "element_type str e4m11"),
        "seed_unnamed_16bit.recipe": checkpoint_recipe().replace("attr fields/h element_type str fp16s\n", ""),
        "seed_extra_field.recipe": checkpoint_recipe(extra="data fields/g f64[1x5] 0\n"),
        "seed_extra_table.recipe": checkpoint_recipe(
            extra="group particles/platelets\nattr particles/platelets count u64 4\n"
                  "attr particles/platelets owner str platelet_plugin\n"),
        "seed_extra_value.recipe": checkpoint_recipe(extra="attr particles/cells volume f64 1\n"),
        "seed_huge_count.recipe": checkpoint_recipe(cells=4611686018427387904).replace(
            " 0 10 20 1 11 21 2 12 22", "").replace("[1x4611686018427387904] 0 1 2", "[1x4611686018427387904]"),
        "seed_string_arrays.recipe": checkpoint_recipe().replace("precision str fp64", "precision str[3] fp64 fp32")
                                                         .replace("owner str rbc_test", "owner fstr[2] rbc_test"),
    }


def h5_dict() -> str:
    words = [
        "group ", "attr ", "data ", "link ", "/ ", " chunk=", " gzip=", "\n", "[]", "[3]", "x", "\\s", "\\n",
        "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", "be", "str", "fstr",
        "nan", "inf", "-inf", "-0", "0x", "1e308", "4294967295", "2147483647", "-2147483648", "18446744073709551615",
        "9223372036854775807", "65504", "1099511627776",
        # voxel file
        "solid_fraction", "signed_distance", "format_version", "dims", "origin", "dx", "characteristic_length",
        "description",
        # checkpoint
        "voxel", "fields", "fields/", "particles", "particles/", "step", "time", "precision", "dt", "tau", "nodes",
        "initial_mass", "ranks", "written_by", "case_file", "element_type", "count", "owner", "float32", "float64",
        "uint32", "int32", "uint8", "fp16s", "e4m11", "fp32", "fp64", "cells", "marks", "position", "id", "mark",
        "start_size", "energy", "tag", "rbc_test",
    ]
    lines = ["# libFuzzer dictionary for voxel_fuzz.cpp and checkpoint_fuzz.cpp (recipes, h5_recipe.hpp);",
             "# written by make_corpus.py"]
    for w in words:
        lines.append('"' + w.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\x0a") + '"')
    return "\n".join(lines) + "\n"


def main() -> None:
    which = sys.argv[1:] or ["stl", "case", "voxel", "checkpoint", "dicts"]
    if "stl" in which:
        write_seeds("stl", stl_seeds())
    if "case" in which:
        write_seeds("case", case_seeds())
    if "voxel" in which:
        write_seeds("voxel", voxel_seeds())
    if "checkpoint" in which:
        write_seeds("checkpoint", checkpoint_seeds())
    if "dicts" in which:
        (HERE / "case.dict").write_text(case_dict())
        (HERE / "h5_recipe.dict").write_text(h5_dict())
        print("wrote case.dict, h5_recipe.dict")


if __name__ == "__main__":
    main()
