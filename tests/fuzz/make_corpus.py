#!/usr/bin/env python3
"""Writes the seed inputs of the STL fuzzer into corpus/ (each well under 2 KB).

Seeds cover both formats and the branches between them: a valid binary file, the same
with a header starting with "solid", a valid ASCII file with two solids, a truncated
binary file, and an ASCII file with coordinates near the largest double. Inputs found by
the fuzzer are added to corpus/ beside them by hand.
"""
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"

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


def main() -> None:
    CORPUS.mkdir(exist_ok=True)
    seeds = {
        "seed_binary_tetra.stl": binary_stl(b"hemoflow fuzz seed"),
        "seed_binary_solid_header.stl": binary_stl(b"solid but binary"),
        "seed_ascii_tetra.stl": ascii_stl(),
        "seed_binary_truncated.stl": binary_stl(b"hemoflow fuzz seed")[:150],
        # Coordinates near the largest double: products and sums in the surface checks overflow.
        "seed_ascii_huge_coordinates.stl": (
            b"solid huge\nfacet normal 0 0 1\nouter loop\nvertex 1.7e308 0 0\n"
            b"vertex 1.7e308 -1.7e308 0\nvertex -1.7e308 1.7e308 1e308\nendloop\nendfacet\nendsolid huge\n"),
    }
    for name, data in seeds.items():
        assert len(data) < 2048, name
        (CORPUS / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
