#pragma once
// Fuzz inputs for hemoflow's HDF5 readers (the voxel file, checkpoints). The goal is
// hemoflow's own checks of what a file holds, not the HDF5 library's parser, so an input
// is usually a *recipe*: a few lines of text that say which groups, attributes, datasets
// and links the file has, with which types, shapes and values. The fuzz entry point writes
// that file with the HDF5 library (always a well-formed HDF5 file) and hands its path to
// the reader. libFuzzer mutates the text (a dictionary of the keywords and names helps),
// so it reaches missing, misnamed, mistyped and misshapen attributes and datasets, absurd
// sizes and values, dangling links, without first having to get HDF5's metadata right.
//
// An input that starts with HDF5's signature (\x89HDF\r\n\x1a\n) is instead written as
// it is: a real file's bytes, which mutate into damaged HDF5 files (raw mode; see
// tests/fuzz/README.md for why the fuzzing runs mostly use recipes).
//
// Recipe grammar, one command a line; tokens split at spaces and tabs; '#' starts a
// comment line; a line that does not parse, or that HDF5 refuses, is skipped:
//   group PATH                      a group (and every missing group above it)
//   attr OBJECT NAME TYPE VALUE...  an attribute of OBJECT ("/" for the root)
//   data PATH TYPE [chunk=AxB...] [gzip=L] VALUE...
//                                   a dataset; chunked (and compressed) if given
//   link PATH TARGET                a soft link (it may dangle)
// TYPE is an element type with an optional shape: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64
// (little-endian; with a "be" suffix, big-endian: f64be), str (variable-length UTF-8
// string, as hemoflow writes them), fstr (fixed-length string, as long as its longest
// value). Shape: none = a scalar; [] = one dimension holding the values given; [N] or
// [AxBxC] = those dimensions (up to 8; an attribute holds at most 4096 values).
// VALUEs are numbers (strtod/strtoll syntax: nan, inf, 0x1p-3, 0x10) or, for strings,
// tokens in which \s is a space, \n a newline, \t a tab and \\ a backslash. They are
// repeated to fill the shape. A dataset given no values, or more than 65536 elements, is
// created without writing it: HDF5 allocates nothing, so its dimensions may be huge.
// Paths may start with '/'. With HEMO_FUZZ_KEEP_H5=FILE in the environment, the file made
// is copied to FILE (how the raw seeds are made from recipes).
#include <cstdint>
#include <string>

namespace hemo::fuzz {

/// Writes the HDF5 file for this input at `path` (raw bytes or a recipe, see above).
void write_h5_input(const std::string& path, const std::uint8_t* data, std::size_t size);

}  // namespace hemo::fuzz
