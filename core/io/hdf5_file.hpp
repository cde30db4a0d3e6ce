#pragma once
// The HDF5 plumbing shared by every writer and reader of HDF5 files in hemoflow (the
// field snapshots, the voxel geometry file): errors as exceptions with HDF5's own cause,
// ids closed by scope, and files written under a temporary name and renamed into place so
// a crash never leaves a half-written file. Host-only (includes hdf5.h): never in a .cu.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hemo::io::hdf5 {

/// HDF5 prints its error stack to stderr by default; we report errors as exceptions
/// instead, and restore the caller's setting afterwards so that other HDF5 users in the
/// process keep theirs.
class Quiet {
 public:
  Quiet();
  ~Quiet();
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// " (cause)" from the innermost message of the current error stack (errno text, "name
/// already exists", ...), where the outer ones only repeat the call; "" if there is none.
std::string reason();

/// Closes an HDF5 id when it goes out of scope.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() {
    if (id_ >= 0) closer_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }
  herr_t close();

 private:
  hid_t id_;
  Closer closer_;
};

/// One HDF5 file written under <path>.tmp and renamed over <path> by commit(); if it is
/// abandoned (an exception), the temporary file is closed and removed, and a file of the
/// same name written before stays as it was. Every failure throws WriteError
/// (core/io/write_failure.hpp) naming the file, the step, the bytes it was writing and
/// the cause (the full disk or quota, the file size limit: errno as HDF5 reports it),
/// with `expected_bytes` (the file's size, about, where the writer knows it) beside.
///
/// With `sealed` (checkpoints), the file starts with a 512-byte HDF5 user block that
/// commit() fills, after HDF5 has closed the file, with a checksum of everything after
/// it; Input verifies it before HDF5 reads a byte, so a file damaged or cut short after
/// it was written is refused with a message instead of reaching HDF5's parser (which a
/// damaged file can crash: tests/fuzz/README.md). HDF5 and ParaView skip a user block.
class Output {
 public:
  explicit Output(std::string path, std::uint64_t expected_bytes = 0, bool sealed = false);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  hid_t root() const { return file_; }
  const std::string& path() const { return path_; }

  /// A dataset of `rank` dims; with `chunk`, stored in chunks of that shape and, with
  /// deflate > 0, gzip-compressed at that level. `unit`, if given, becomes its "unit"
  /// attribute.
  void dataset(const std::string& name, hid_t file_type, hid_t mem_type, int rank, const hsize_t* dims,
               const void* data, const std::string* unit = nullptr, const hsize_t* chunk = nullptr, int deflate = 0);
  /// A dataset of rows x columns created empty and filled one row at a time with
  /// write_row (so a writer holds one row in memory, not the table). Returns its id,
  /// which the file closes.
  hid_t table(const std::string& name, hid_t file_type, hsize_t rows, hsize_t columns);
  void write_row(hid_t table, hid_t mem_type, hsize_t row, hsize_t columns, const void* data);
  void group(const std::string& name);
  /// A numeric attribute of n values (n = 1: a scalar).
  void attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, hsize_t n, const void* value);
  /// Variable-length UTF-8, so h5py returns a str rather than bytes.
  void string_attribute(hid_t obj, const char* name, const std::string& value);
  void commit();

 private:
  /// `what` says the step ("write dataset /voxel"), `bytes` what it writes.
  void check(herr_t r, const std::string& what, std::uint64_t bytes = 0) const;
  void seal();
  hid_t check_id(hid_t id, const std::string& what, std::uint64_t bytes = 0) const;
  [[noreturn]] void fail(const std::string& what, std::uint64_t bytes) const;

  std::string path_;
  std::string tmp_;
  std::uint64_t expected_ = 0;  // the caller's estimate of the whole file
  bool sealed_ = false;         // a checksum in the user block (commit)
  std::uint64_t planned_ = 0;   // the bytes of the datasets created so far
  hid_t file_ = H5I_INVALID_HID;
  std::vector<hid_t> tables_;  // closed before the file
};

/// A hemoflow HDF5 file opened for reading. Every failure is an InputError naming the
/// file, what was looked for and HDF5's cause, since the file is the user's input.
class Input {
 public:
  /// `kind` says what the file should be, for the messages: "a voxel geometry file".
  Input(std::string path, const std::string& kind);
  ~Input();
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  hid_t root() const { return file_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;
  /// Refuses a sealed file whose checksum does not match (Output's `sealed`).
  void verify_seal() const;

  /// A numeric attribute of the root group with n values (1: scalar), converted to
  /// mem_type.
  void numbers(const char* name, hid_t mem_type, std::size_t n, void* out) const;
  /// A string attribute of the root group (fixed or variable length).
  std::string text(const char* name) const;
  /// The same for an attribute of the group or dataset at `object` ("particles/cells").
  void numbers_of(const std::string& object, const char* name, hid_t mem_type, std::size_t n, void* out) const;
  std::string text_of(const std::string& object, const char* name) const;
  /// The names of the attributes of the group or dataset at `object`, by name.
  std::vector<std::string> attribute_names(const std::string& object) const;
  /// The names of the members of the group at `group`, by name; none if it is absent.
  std::vector<std::string> members(const std::string& group) const;
  /// Whether the file has a dataset or group at `name` ("fields/f").
  bool has_dataset(const std::string& name) const;
  /// The dataset's dimensions and the class and size of its values (fails if absent).
  struct Shape {
    std::vector<hsize_t> dims;
    H5T_class_t type_class = H5T_NO_CLASS;
    std::size_t type_size = 0;
  };
  Shape shape(const std::string& name) const;
  /// The whole dataset, or with `row` >= 0 that row of a 2-D one, converted to mem_type.
  void read(const std::string& name, hid_t mem_type, void* out, long long row = -1) const;
  /// The box start .. start + count - 1 of a `rank`-D dataset (a hyperslab), converted
  /// to mem_type, into a dense array (last index fastest).
  void read_box(const std::string& name, hid_t mem_type, int rank, const hsize_t* start, const hsize_t* count,
                void* out) const;

 private:
  /// The attribute `name` of `object` ("/": the root), opened; fails naming `what`.
  hid_t open_attribute(const std::string& object, const char* name) const;
  /// "'step'" for the root's attributes, "'count' of /particles/cells" for another's.
  static std::string attribute_label(const std::string& object, const char* name);

  std::string path_, kind_;
  hid_t file_ = H5I_INVALID_HID;
};

/// A file access property list without file locking where the library allows it
/// (locking fails outright on some cluster file systems: no flock on Lustre/NFS).
/// H5I_INVALID_HID on failure; the caller owns it.
hid_t file_access();

}  // namespace hemo::io::hdf5
