#include "core/io/hdf5_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

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

Output::Output(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {
  Handle fapl(check_id(file_access(), "create a file access list"), H5Pclose);
  file_ = check_id(H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), "create the file");
}

Output::~Output() {
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
  // An empty vector may hand us a null pointer, which H5Dwrite rejects.
  if (total > 0) check(H5Dwrite(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), what);
  if (unit) string_attribute(dset.get(), "unit", *unit);
  check(dset.close(), what);
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
  const hid_t f = std::exchange(file_, H5I_INVALID_HID);
  if (H5Fclose(f) < 0) {
    const std::string why = reason();
    std::remove(tmp_.c_str());
    throw std::runtime_error("HDF5 error writing " + path_ + ": cannot close the file" + why);
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp_.c_str());
    throw std::runtime_error("cannot rename " + tmp_ + " to " + path_ + ": " + std::strerror(err));
  }
}

void Output::check(herr_t r, const std::string& what) const {
  if (r < 0) fail(what);
}

hid_t Output::check_id(hid_t id, const std::string& what) const {
  if (id < 0) fail(what);
  return id;
}

void Output::fail(const std::string& what) const {
  throw std::runtime_error("HDF5 error writing " + path_ + ": cannot " + what + reason());
}

}  // namespace hemo::io::hdf5
