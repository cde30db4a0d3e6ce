#include "core/io/hdf5_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>
#include <vector>

#include <unistd.h>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/io/write_failure.hpp"

namespace hemo::io::hdf5 {

Quiet::Quiet() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Quiet::~Quiet() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

std::string reason() {
  std::string text;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* err, void* out) -> herr_t {
        if (n == 0 && err->desc) *static_cast<std::string*>(out) = err->desc;
        return 0;
      },
      &text);
  return text.empty() ? std::string() : " (" + text + ")";
}

namespace {

/// The errno of the system call that failed under the current error stack, as HDF5's
/// file drivers record it in their message ("..., errno = 28, error message = ..."); 0
/// if none says (the process's errno may be stale by then).
int errno_of_stack() {
  int found = 0;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned, const H5E_error2_t* err, void* out) -> herr_t {
        const char* at = err->desc ? std::strstr(err->desc, "errno = ") : nullptr;
        if (at && *static_cast<int*>(out) == 0) *static_cast<int*>(out) = std::atoi(at + 8);
        return 0;
      },
      &found);
  return found;
}

/// HDF5 registers an atexit hook that closes every file still open. A file whose close
/// failed (its flush hit a full disk) stays registered half-closed, and the hook then
/// crashes the process at exit (seen with HDF5 1.10: SIGSEGV in H5F__close_cb), turning
/// the write error's exit code into a signal. hemoflow closes its files itself, so the
/// hook is not needed; it must be turned off before the library's first use, here at
/// load time.
const bool no_atexit_hook = H5dont_atexit() >= 0;

/// The user block of a sealed file (Output's `sealed`): this text, the checksum in 16 hex
/// digits and a newline, the rest zero. 512 bytes, HDF5's smallest user block.
constexpr hsize_t seal_bytes = 512;
constexpr char seal_magic[] = "hemoflow checksum (64-bit FNV-1a over 8-byte words) of the bytes after 512: ";

/// The checksum of a file's bytes from `from` to its end: FNV-1a over little-endian 8-byte
/// words (the last one zero-padded), then the length mixed in. Not cryptographic: it
/// catches damage and truncation, not forgery. Empty when the file cannot be read.
std::optional<std::uint64_t> file_checksum(const std::string& path, std::uint64_t from) {
  std::ifstream in(path, std::ios::binary);
  if (!in.seekg(std::streamoff(from))) return std::nullopt;
  std::vector<char> buf(std::size_t(1) << 20);
  std::uint64_t h = 0xcbf29ce484222325ULL, length = 0;
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    const std::size_t got = std::size_t(in.gcount());
    if (got == 0) break;
    length += got;
    for (std::size_t i = 0; i < got; i += 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, buf.data() + i, std::min<std::size_t>(8, got - i));
      h = (h ^ w) * 0x100000001b3ULL;
    }
  }
  if (in.bad()) return std::nullopt;
  return (h ^ length) * 0x100000001b3ULL;
}

}  // namespace

herr_t Handle::close() { return id_ >= 0 ? closer_(std::exchange(id_, H5I_INVALID_HID)) : 0; }

hid_t file_access() {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7) && !(H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 12 && H5_VERS_RELEASE == 0)
  if (fapl >= 0 && H5Pset_file_locking(fapl, false, true) < 0) {
    H5Pclose(fapl);
    return H5I_INVALID_HID;
  }
#endif
  return fapl;
}

Output::Output(std::string path, std::uint64_t expected_bytes, bool sealed)
    : path_(std::move(path)), tmp_(path_ + ".tmp"), expected_(expected_bytes), sealed_(sealed) {
  (void)no_atexit_hook;
  Handle fapl(check_id(file_access(), "create a file access list"), H5Pclose);
  Handle fcpl(check_id(H5Pcreate(H5P_FILE_CREATE), "create a file creation list"), H5Pclose);
  if (sealed_) check(H5Pset_userblock(fcpl.get(), seal_bytes), "reserve its user block");
  file_ = check_id(H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), "create the file", expected_);
}

void Output::seal() {
  // After HDF5 has closed the file: the checksum of everything after the user block, into it.
  const std::uint64_t bytes = std::max(expected_, planned_);
  const std::optional<std::uint64_t> sum = file_checksum(tmp_, seal_bytes);
  char block[seal_bytes] = {};
  const int n = sum ? std::snprintf(block, sizeof block, "%s%016llx\n", seal_magic, static_cast<unsigned long long>(*sum)) : -1;
  std::FILE* f = n > 0 ? std::fopen(tmp_.c_str(), "r+b") : nullptr;
  const bool ok = f && std::fwrite(block, 1, sizeof block, f) == sizeof block && std::fflush(f) == 0 &&
                  ::fsync(fileno(f)) == 0;
  const int err = errno;
  if (f) std::fclose(f);
  if (!ok) {
    std::remove(tmp_.c_str());
    write_failed(path_, "write its checksum into " + tmp_ + " (removed)", seal_bytes, write_cause(err), bytes);
  }
}

Output::~Output() {
  for (const hid_t t : tables_) H5Dclose(t);
  if (file_ >= 0) {
    H5Fclose(file_);
    std::remove(tmp_.c_str());
  }
}

void Output::dataset(const std::string& name, hid_t file_type, hid_t mem_type, int rank, const hsize_t* dims,
                     const void* data, const std::string* unit, const hsize_t* chunk, int deflate) {
  const std::string what = "write dataset /" + name;
  Handle space(check_id(H5Screate_simple(rank, dims, nullptr), what), H5Sclose);
  Handle dcpl(check_id(H5Pcreate(H5P_DATASET_CREATE), what), H5Pclose);
  if (chunk) {
    check(H5Pset_chunk(dcpl.get(), rank, chunk), what);
    if (deflate > 0) check(H5Pset_deflate(dcpl.get(), unsigned(deflate)), what);
  }
  Handle dset(check_id(H5Dcreate2(file_, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                       what),
              H5Dclose);
  hsize_t total = 1;
  for (int i = 0; i < rank; ++i) total *= dims[i];
  const std::uint64_t bytes = total * H5Tget_size(file_type);
  planned_ += bytes;
  // An empty vector may hand us a null pointer, which H5Dwrite rejects.
  if (total > 0) check(H5Dwrite(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), what, bytes);
  if (unit) string_attribute(dset.get(), "unit", *unit);
  check(dset.close(), what, bytes);
}

hid_t Output::table(const std::string& name, hid_t file_type, hsize_t rows, hsize_t columns) {
  const std::string what = "create dataset /" + name;
  const hsize_t dims[2] = {rows, columns};
  Handle space(check_id(H5Screate_simple(2, dims, nullptr), what), H5Sclose);
  // Created whole: with H5D_ALLOC_TIME_EARLY, running out of disk space shows here, not
  // halfway through the rows.
  Handle dcpl(check_id(H5Pcreate(H5P_DATASET_CREATE), what), H5Pclose);
  check(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), what);
  const std::uint64_t bytes = rows * columns * H5Tget_size(file_type);
  planned_ += bytes;
  const hid_t dset =
      check_id(H5Dcreate2(file_, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), what,
               bytes);
  tables_.push_back(dset);
  return dset;
}

void Output::write_row(hid_t table, hid_t mem_type, hsize_t row, hsize_t columns, const void* data) {
  if (columns == 0) return;
  char name[256] = "a table";
  if (H5Iget_name(table, name, sizeof name) <= 0) std::strcpy(name, "a table");
  const std::string what = "write row " + std::to_string(row) + " of " + name;
  Handle file_space(check_id(H5Dget_space(table), what), H5Sclose);
  const hsize_t start[2] = {row, 0}, count[2] = {1, columns};
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), what);
  Handle mem_space(check_id(H5Screate_simple(1, &columns, nullptr), what), H5Sclose);
  check(H5Dwrite(table, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data), what,
        columns * H5Tget_size(mem_type));
}

void Output::group(const std::string& name) {
  Handle g(check_id(H5Gcreate2(file_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group /" + name),
           H5Gclose);
}

void Output::attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, hsize_t n, const void* value) {
  const std::string what = std::string("write attribute ") + name;
  Handle space(check_id(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), what), H5Sclose);
  Handle attr(check_id(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), what), H5Aclose);
  check(H5Awrite(attr.get(), mem_type, value), what);
  check(attr.close(), what);
}

void Output::string_attribute(hid_t obj, const char* name, const std::string& value) {
  const std::string what = std::string("write attribute ") + name;
  Handle type(check_id(H5Tcopy(H5T_C_S1), what), H5Tclose);
  check(H5Tset_size(type.get(), H5T_VARIABLE), what);
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), what);
  const char* p = value.c_str();
  attribute(obj, name, type.get(), type.get(), 1, &p);
}

void Output::commit() {
  // Closing writes what HDF5 still buffers (metadata, the last chunks): a full disk may
  // show only here. The tables are closed first, and a failure of theirs counts too.
  bool closed = true;
  for (const hid_t t : tables_) closed = H5Dclose(t) >= 0 && closed;
  tables_.clear();
  const std::uint64_t bytes = std::max(expected_, planned_);
  if (!closed) fail("flush its datasets", 0);
  const hid_t f = std::exchange(file_, H5I_INVALID_HID);
  if (H5Fclose(f) < 0) {
    const int err = errno_of_stack();
    const std::string why = err ? write_cause(err) : "HDF5 could not close it" + reason();
    std::remove(tmp_.c_str());
    write_failed(path_, "close it under the temporary name " + tmp_ + " (removed)", 0, why, bytes);
  }
  if (sealed_) seal();
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp_.c_str());
    write_failed(path_, "rename " + tmp_ + " into place", 0, write_cause(err), bytes);
  }
}

void Output::check(herr_t r, const std::string& what, std::uint64_t bytes) const {
  if (r < 0) fail(what, bytes);
}

hid_t Output::check_id(hid_t id, const std::string& what, std::uint64_t bytes) const {
  if (id < 0) fail(what, bytes);
  return id;
}

void Output::fail(const std::string& what, std::uint64_t bytes) const {
  // The cause in a user's words where a system call failed (full disk, quota, file size
  // limit), else HDF5's own.
  const int err = errno_of_stack();
  const std::string cause = err ? write_cause(err) : "HDF5 error" + reason();
  write_failed(path_, what, bytes, cause, std::max(expected_, planned_));
}

Input::Input(std::string path, const std::string& kind) : path_(std::move(path)), kind_(kind) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path_, ec)) throw InputError(path_ + ": no such file (expected " + kind_ + ")");
  verify_seal();
  if (H5Fis_hdf5(path_.c_str()) <= 0) throw InputError(path_ + ": not an HDF5 file (expected " + kind_ + ")");
  Handle fapl(file_access(), H5Pclose);
  file_ = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (file_ < 0) throw InputError(path_ + ": cannot open the HDF5 file" + reason());
}

void Input::verify_seal() const {
  // A sealed file (Output's `sealed`) is checked whole before HDF5 parses it; a file
  // without the seal (older checkpoints, other writers) is read as before.
  std::ifstream in(path_, std::ios::binary);
  char block[seal_bytes] = {};
  if (!in.read(block, sizeof block)) return;
  const std::size_t magic = sizeof seal_magic - 1;
  if (std::memcmp(block, seal_magic, magic) != 0) return;
  const std::string stored(block + magic, block + magic + 16);
  const std::optional<std::uint64_t> sum = file_checksum(path_, seal_bytes);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(sum.value_or(0)));
  if (!sum || stored != hex)
    throw InputError(path_ + ": damaged: the checksum hemoflow wrote into its first 512 bytes (" + stored +
                     ") does not match the rest of the file (" + (sum ? std::string(hex) : "unreadable") +
                     "): it changed or was cut short after it was written (expected " + kind_ + ")");
}

Input::~Input() {
  if (file_ >= 0) H5Fclose(file_);
}

void Input::fail(const std::string& what) const { throw InputError(path_ + ": " + what); }

std::string Input::attribute_label(const std::string& object, const char* name) {
  return object == "/" ? str("'", name, "'") : str("'", name, "' of /", object);
}

hid_t Input::open_attribute(const std::string& object, const char* name) const {
  const bool root = object == "/";
  if (!root && !has_dataset(object)) fail("no group or dataset /" + object + ": not " + kind_);
  if (H5Aexists_by_name(file_, object.c_str(), name, H5P_DEFAULT) <= 0)
    fail("no attribute " + attribute_label(object, name) + (root ? ": not " + kind_ : std::string()));
  const hid_t attr = H5Aopen_by_name(file_, object.c_str(), name, H5P_DEFAULT, H5P_DEFAULT);
  if (attr < 0) fail("cannot open attribute " + attribute_label(object, name) + reason());
  return attr;
}

void Input::numbers(const char* name, hid_t mem_type, std::size_t n, void* out) const {
  numbers_of("/", name, mem_type, n, out);
}

void Input::numbers_of(const std::string& object, const char* name, hid_t mem_type, std::size_t n, void* out) const {
  const std::string label = attribute_label(object, name);
  Handle attr(open_attribute(object, name), H5Aclose);
  Handle space(H5Aget_space(attr.get()), H5Sclose);
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!space.ok() || !type.ok()) fail("cannot open attribute " + label + reason());
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) fail("attribute " + label + " is not numeric");
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count != hssize_t(n))
    fail("attribute " + label + " has " + std::to_string(count) + " value(s), expected " + std::to_string(n));
  if (H5Aread(attr.get(), mem_type, out) < 0) fail("cannot read attribute " + label + reason());
}

std::string Input::text(const char* name) const { return text_of("/", name); }

std::string Input::text_of(const std::string& object, const char* name) const {
  const std::string label = attribute_label(object, name);
  Handle attr(open_attribute(object, name), H5Aclose);
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.ok() || H5Tget_class(type.get()) != H5T_STRING) fail("attribute " + label + " is not a string");
  // One string: H5Aread writes every element of the attribute into what follows.
  Handle space(H5Aget_space(attr.get()), H5Sclose);
  const hssize_t count = space.ok() ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (count != 1) fail("attribute " + label + " holds " + std::to_string(count) + " strings, expected 1");
  Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
  if (H5Tis_variable_str(type.get()) > 0) {
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    char* p = nullptr;
    if (H5Aread(attr.get(), mem.get(), &p) < 0) fail("cannot read attribute " + label + reason());
    std::string s = p ? p : "";
    H5free_memory(p);
    return s;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string s(size, '\0');
  H5Tset_size(mem.get(), size);
  if (H5Aread(attr.get(), mem.get(), s.data()) < 0) fail("cannot read attribute " + label + reason());
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::vector<std::string> Input::attribute_names(const std::string& object) const {
  Handle obj(H5Oopen(file_, object.c_str(), H5P_DEFAULT), H5Oclose);
  std::vector<std::string> names;
  const auto collect = [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->push_back(name);
    return 0;
  };
  if (!obj.ok() || H5Aiterate2(obj.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names) < 0)
    fail("cannot list the attributes of /" + object + reason());
  return names;
}

std::vector<std::string> Input::members(const std::string& group) const {
  std::vector<std::string> names;
  if (group != "/" && !has_dataset(group)) return names;
  Handle g(H5Gopen2(file_, group.c_str(), H5P_DEFAULT), H5Gclose);
  H5G_info_t info{};
  if (!g.ok() || H5Gget_info(g.get(), &info) < 0) fail("cannot open group /" + group + reason());
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length = H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    std::string name(length < 0 ? 0 : std::size_t(length) + 1, '\0');
    if (length < 0 ||
        H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT) < 0)
      fail("cannot list group /" + group + reason());
    name.resize(std::size_t(length));
    names.push_back(name);
  }
  return names;
}

bool Input::has_dataset(const std::string& name) const {
  // Each component of a path must exist before H5Lexists may be asked about the next.
  std::size_t at = 0;
  while (true) {
    const std::size_t slash = name.find('/', at + 1);
    const std::string prefix = name.substr(0, slash);
    if (H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
    at = slash;
  }
}

Input::Shape Input::shape(const std::string& name) const {
  if (!has_dataset(name)) fail("no dataset /" + name + ": not " + kind_ + ", or written by another version");
  Handle dset(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  Handle space(dset.ok() ? H5Dget_space(dset.get()) : H5I_INVALID_HID, H5Sclose);
  Handle type(dset.ok() ? H5Dget_type(dset.get()) : H5I_INVALID_HID, H5Tclose);
  if (!space.ok() || !type.ok()) fail("cannot open dataset /" + name + reason());
  Shape s;
  const int rank = H5Sget_simple_extent_ndims(space.get());
  s.dims.resize(std::size_t(rank < 0 ? 0 : rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), s.dims.data(), nullptr);
  s.type_class = H5Tget_class(type.get());
  s.type_size = H5Tget_size(type.get());
  return s;
}

void Input::read(const std::string& name, hid_t mem_type, void* out, long long row) const {
  if (row < 0) {
    const Shape s = shape(name);
    Handle dset(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (H5Dread(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
      fail("cannot read dataset /" + name + reason());
    return;
  }
  const Shape s = shape(name);
  if (s.dims.size() != 2 || hsize_t(row) >= s.dims[0]) fail("cannot read dataset /" + name + ": no row " + std::to_string(row));
  if (s.dims[1] == 0) return;
  const hsize_t start[2] = {hsize_t(row), 0}, count[2] = {1, s.dims[1]};
  read_box(name, mem_type, 2, start, count, out);
}

void Input::read_box(const std::string& name, hid_t mem_type, int rank, const hsize_t* start, const hsize_t* count,
                     void* out) const {
  const Shape s = shape(name);
  std::string box;
  hsize_t total = 1;
  for (int d = 0; d < rank; ++d) {
    box += (d ? ", " : "") + std::to_string(start[d]) + ":" + std::to_string(start[d] + count[d]);
    total *= count[d];
  }
  const std::string what = "cannot read dataset /" + name + " [" + box + "]";
  if (int(s.dims.size()) != rank) fail(what + ": it has rank " + std::to_string(s.dims.size()));
  for (int d = 0; d < rank; ++d)
    if (start[d] + count[d] > s.dims[d]) fail(what + ": beyond its extent " + std::to_string(s.dims[d]));
  if (total == 0) return;
  Handle dset(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  Handle file_space(H5Dget_space(dset.get()), H5Sclose);
  Handle mem_space(H5Screate_simple(1, &total, nullptr), H5Sclose);
  if (!dset.ok() || !file_space.ok() || !mem_space.ok() ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
      H5Dread(dset.get(), mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, out) < 0)
    fail(what + reason());
}

}  // namespace hemo::io::hdf5
