#include "core/sim/checkpoint.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <span>
#include <sstream>
#include <utility>

#include "core/common/text.hpp"
#include "core/io/hdf5_file.hpp"
#include "core/sim/gathered_voxels.hpp"
#include "core/sim/population_state.hpp"

namespace hemo {

namespace {

// 1: node fields only. 2: and the particle tables (/particles); a checkpoint of version
// 1 reads as one without particle tables.
constexpr int format_version = 2;
constexpr int oldest_format_read = 1;
constexpr const char* kind = "a hemoflow checkpoint";

/// The restart-state fields, by name (the registry's order is by name too).
std::vector<const FieldBase*> state_fields(const FieldRegistry& fields) {
  std::vector<const FieldBase*> out;
  for (const FieldBase* f : fields.list())
    if (f->restart_state()) out.push_back(f);
  return out;
}

/// How a field's values are stored: HDF5's types in the file and in memory, and the
/// bytes of one value.
struct Storage {
  hid_t file, memory;
  std::size_t bytes;
};

/// `what` names the array for the error: "field 'f'".
Storage storage_of_type(const std::string& t, const std::string& what) {
  if (t == "float32") return {H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 4};
  if (t == "float64") return {H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 8};
  if (t == "uint32") return {H5T_STD_U32LE, H5T_NATIVE_UINT32, 4};
  if (t == "int32") return {H5T_STD_I32LE, H5T_NATIVE_INT32, 4};
  if (t == "uint8") return {H5T_STD_U8LE, H5T_NATIVE_UINT8, 1};
  // 16-bit population storage (physics/storage16.hpp): the codes as they are; the
  // dataset's element_type attribute names the format.
  if (t == "fp16s" || t == "e4m11") return {H5T_STD_U16LE, H5T_NATIVE_UINT16, 2};
  throw std::logic_error("checkpoint: no HDF5 type for " + what + " of type " + t);
}

/// Whether a type name is one of the 16-bit population storages.
bool phys_storage16(const std::string& t) { return t == "fp16s" || t == "e4m11"; }

Storage storage_of(const FieldBase& f) { return storage_of_type(f.type_name(), "field '" + f.name() + "'"); }

Storage storage_of(const ParticleTable& t, const ParticleColumnBase& c) {
  return storage_of_type(c.type_name(), "column '" + c.name() + "' of particle table '" + t.name() + "'");
}

/// Whether stored values of this class and size are a column's or field's type.
/// Whether a checkpoint's field was written as optional restart state (a plugin's statistics).
bool optional_in_file(io::hdf5::Input& in, const std::string& name) {
  const std::vector<std::string> attrs = in.attribute_names(name);
  return std::find(attrs.begin(), attrs.end(), "optional_state") != attrs.end() &&
         in.text_of(name, "optional_state") == "true";
}

bool same_type(const io::hdf5::Input::Shape& s, const std::string& type_name, std::size_t bytes) {
  const bool floating = type_name.rfind("float", 0) == 0;
  return s.type_size == bytes && (s.type_class == H5T_FLOAT) == floating &&
         (floating || s.type_class == H5T_INTEGER);
}

/// "32-bit floating point" or "8-bit integers": how a dataset's values are stored.
std::string stored_type(const io::hdf5::Input::Shape& s) {
  return str(s.type_size * 8, "-bit ", s.type_class == H5T_FLOAT ? "floating point" : "integers");
}

/// The columns of a particle table that a checkpoint holds: the restart-state ones and
/// `id` (it names each row, so rows gathered from many ranks stay identifiable), in the
/// table's order.
std::vector<const ParticleColumnBase*> checkpoint_columns(const ParticleTable& t) {
  std::vector<const ParticleColumnBase*> out;
  for (const ParticleColumnBase* c : t.columns())
    if (c->restart_state() || c->name() == "id") out.push_back(c);
  return out;
}

/// The process dies (SIGKILL, nothing flushed) in the middle of its n-th checkpoint when
/// HEMO_TEST_KILL_IN_CHECKPOINT=n: how tests show that a kill while writing leaves the
/// previous checkpoint usable (tests/checkpoint/restart.py).
void test_kill_point() {
  static int count = 0;
  const char* at = std::getenv("HEMO_TEST_KILL_IN_CHECKPOINT");
  if (at && ++count == std::atoi(at)) {
    std::fprintf(stderr, "HEMO_TEST_KILL_IN_CHECKPOINT: killed while writing checkpoint %d\n", count);
    std::raise(SIGKILL);
  }
}

std::string encode(const CheckpointInfo& c) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%lld %a %d %d %d %a %a %a %llu %a %d\n", static_cast<long long>(c.step), c.time,
                c.dims[0], c.dims[1], c.dims[2], c.dx, c.dt, c.tau, static_cast<unsigned long long>(c.nodes),
                c.initial_mass, c.ranks);
  return buf + c.precision + "\n" + c.written_by + "\n" + c.case_file;
}

CheckpointInfo decode(const std::string& s) {
  CheckpointInfo c;
  std::istringstream in(s);
  std::string numbers;
  std::getline(in, numbers);
  long long step = 0;
  unsigned long long nodes = 0;
  std::sscanf(numbers.c_str(), "%lld %la %d %d %d %la %la %la %llu %la %d", &step, &c.time, &c.dims[0], &c.dims[1],
              &c.dims[2], &c.dx, &c.dt, &c.tau, &nodes, &c.initial_mass, &c.ranks);
  c.step = step;
  c.nodes = nodes;
  std::getline(in, c.precision);
  std::getline(in, c.written_by);
  std::getline(in, c.case_file);
  return c;
}

/// Rank 0: gathered entries of `size` bytes each put in order, entry order[p] at p.
std::vector<unsigned char> in_order(const std::vector<unsigned char>& all, const std::vector<std::size_t>& order,
                                    std::size_t size) {
  std::vector<unsigned char> out(all.size());
  for (std::size_t p = 0; p < order.size(); ++p) std::memcpy(&out[p * size], &all[order[p] * size], size);
  return out;
}

/// Rank 0: the order in which a checkpoint lists a table's `total` rows gathered from
/// every rank (row p of the file is gathered row order[p]): by ascending `id` (stable)
/// when the table has a one-component uint32 column `id`, so the file is the same on any
/// rank count; else as gathered, rank after rank. Empty on the other ranks. A collective.
std::vector<std::size_t> row_order(const ParticleTable& t, std::uint64_t total, comm::Communicator& comm) {
  std::vector<std::size_t> order(total);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::vector<const ParticleColumnBase*> columns = checkpoint_columns(t);
  const bool by_id = std::any_of(columns.begin(), columns.end(), [](const ParticleColumnBase* c) {
    return c->name() == "id" && c->components() == 1 && std::string(c->type_name()) == "uint32";
  });
  if (!by_id) return order;
  const std::vector<std::uint32_t> mine = t.get<std::uint32_t>("id").component_to_host(0, t.size());
  const std::vector<std::uint32_t> ids = comm.gather(std::span<const std::uint32_t>(mine), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
  return order;
}

/// /particles/<table>: every particle table's count (the rows of all ranks), bound
/// restart values and checkpoint columns, each a (components, N) array in the column's
/// type, rows in row_order. The restart values are rank 0's: a partitioned plugin keeps
/// its restart values equal on every rank. `out` is rank 0's file (null on the other
/// ranks). A collective.
void write_particle_tables(io::hdf5::Output* out, const FieldRegistry& fields, comm::Communicator& comm) {
  const bool root = out != nullptr;
  if (root) out->group("particles");
  for (const ParticleTable* t : fields.particle_tables()) {
    const std::string group = "particles/" + t->name();
    const std::vector<std::uint64_t> mine_count{t->size()};
    const std::vector<std::uint64_t> counts = comm.gather(std::span<const std::uint64_t>(mine_count), 0);
    std::uint64_t total = 0;
    for (const std::uint64_t c : counts) total += c;
    const std::vector<std::size_t> order = row_order(*t, total, comm);
    if (root) {
      out->group(group);
      io::hdf5::Handle g(H5Gopen2(out->root(), group.c_str(), H5P_DEFAULT), H5Gclose);
      if (!g.ok()) throw std::runtime_error("HDF5 error writing " + out->path() + ": cannot open group /" + group);
      const unsigned long long count = total;
      out->attribute(g.get(), "count", H5T_STD_U64LE, H5T_NATIVE_ULLONG, 1, &count);
      out->string_attribute(g.get(), "owner", t->owner());
      for (const auto& [name, value] : t->restart_values())
        out->attribute(g.get(), name.c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, value);
    }
    for (const ParticleColumnBase* c : checkpoint_columns(*t)) {
      const Storage storage = storage_of(*t, *c);
      hid_t table = H5I_INVALID_HID;
      if (root) table = out->table(group + "/" + c->name(), storage.file, hsize_t(c->components()), total);
      for (int r = 0; r < c->components(); ++r) {
        const std::vector<unsigned char> mine = c->component_bytes(r, t->size());
        const std::vector<unsigned char> all = comm.gather(std::span<const unsigned char>(mine), 0);
        if (root) out->write_row(table, storage.memory, hsize_t(r), total, in_order(all, order, storage.bytes).data());
      }
    }
  }
}

/// Rank 0: refuses a column whose shape claims more rows than the file stores (a damaged
/// file: its `count` and shape say 2^40 rows, its data is not there), before they are
/// allocated. hemoflow writes columns contiguous and whole; a chunked one (a file
/// repacked with compression) must store something.
void check_stored(const io::hdf5::Input& in, const std::string& name, std::uint64_t rows, double bytes,
                  const std::string& what) {
  if (rows == 0 || bytes <= 0) return;
  io::hdf5::Handle d(H5Dopen2(in.root(), name.c_str(), H5P_DEFAULT), H5Dclose);
  io::hdf5::Handle dcpl(d.ok() ? H5Dget_create_plist(d.get()) : H5I_INVALID_HID, H5Pclose);
  if (!dcpl.ok()) in.fail("cannot open dataset /" + name + io::hdf5::reason());
  const hsize_t stored = H5Dget_storage_size(d.get());
  if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED ? stored == 0 : double(stored) < bytes)
    in.fail(str(what, ": its shape says ", rows, " rows, but the file stores ", stored, " bytes of them (the checkpoint ",
                "is damaged)"));
}

/// Rank 0: the table's checkpoint columns are in the file with its type, components and
/// `count` rows, and the file holds no other column of it.
void check_table_columns(const io::hdf5::Input& in, const ParticleTable& t, std::uint64_t count) {
  const std::string table = "particle table '" + t.name() + "'", group = "particles/" + t.name();
  std::vector<std::string> expected;
  for (const ParticleColumnBase* c : checkpoint_columns(t)) {
    expected.push_back(c->name());
    const std::string name = group + "/" + c->name();
    const std::string want = str(c->type_name(), " x ", c->components(), " components of ", count, " rows");
    if (!in.has_dataset(name))
      in.fail(str(table, " has no column '", c->name(), "' (", t.owner(), " keeps it through restarts, ", want,
                  "): the checkpoint was written by another version of ", t.owner()));
    const io::hdf5::Input::Shape s = in.shape(name);
    if (s.dims.size() == 2 && s.dims[0] == hsize_t(c->components()) && s.dims[1] == count &&
        same_type(s, c->type_name(), storage_of(t, *c).bytes)) {
      check_stored(in, name, count, double(count) * c->components() * double(storage_of(t, *c).bytes),
                   str(table, ", column '", c->name(), "'"));
      continue;
    }
    const std::string found = s.dims.size() == 2
                                  ? str(stored_type(s), " x ", s.dims[0], " components of ", s.dims[1], " rows")
                                  : str(stored_type(s), " in ", s.dims.size(), " dimension(s)");
    in.fail(str(table, ", column '", c->name(), "': the checkpoint has ", found, ", this run expects ", want,
                " (another precision or version of ", t.owner(), ")"));
  }
  for (const std::string& c : in.members(group))
    if (std::find(expected.begin(), expected.end(), c) == expected.end())
      in.fail(str("the checkpoint holds column '", c, "' of ", table, ", which ", t.owner(),
                  " does not keep through restarts in this run: it was written by another version of ", t.owner()));
}

/// Rank 0: the table's group has an attribute for every restart value bound, and no
/// other beside count and owner.
void check_table_values(const io::hdf5::Input& in, const ParticleTable& t) {
  const std::string table = "particle table '" + t.name() + "'", group = "particles/" + t.name();
  const std::map<std::string, double*>& values = t.restart_values();
  const std::vector<std::string> attributes = in.attribute_names(group);
  for (const auto& [name, value] : values)
    if (std::find(attributes.begin(), attributes.end(), name) == attributes.end())
      in.fail(str(table, " has no value '", name, "' (a float64 attribute of /", group, "), which ", t.owner(),
                  " keeps through restarts: the checkpoint was written by another version of ", t.owner()));
  for (const std::string& a : attributes)
    if (a != "count" && a != "owner" && !values.count(a))
      in.fail(str("the checkpoint holds value '", a, "' of ", table, " (an attribute of /", group, "), which ",
                  t.owner(), " does not keep through restarts in this run: it was written by another version of ",
                  t.owner()));
}

/// Rank 0: the checkpoint holds exactly this run's particle tables, each with its
/// checkpoint columns and its bound restart values; InputError naming the file and
/// saying what differs otherwise. Returns each table's count of rows.
std::map<std::string, std::uint64_t> check_particle_tables(const io::hdf5::Input& in, const FieldRegistry& fields) {
  const std::vector<std::string> stored = in.members("particles");  // none in format 1
  const std::vector<const ParticleTable*> tables = fields.particle_tables();
  std::map<std::string, std::uint64_t> counts;
  for (const ParticleTable* t : tables) {
    if (std::find(stored.begin(), stored.end(), t->name()) == stored.end())
      in.fail(str("the checkpoint holds no particle table '", t->name(), "', which plugin ", t->owner(),
                  " of this run declares: it was written by a run without ", t->owner(), "; continue it without \"",
                  t->owner(), "\" in run.plugins, or run this case from the start"));
    unsigned long long count = 0;
    in.numbers_of("particles/" + t->name(), "count", H5T_NATIVE_ULLONG, 1, &count);
    check_table_columns(in, *t, count);
    check_table_values(in, *t);
    counts[t->name()] = count;
  }
  for (const std::string& name : stored) {
    if (std::any_of(tables.begin(), tables.end(), [&](const ParticleTable* t) { return t->name() == name; })) continue;
    const std::string group = "particles/" + name, owner = in.text_of(group, "owner");
    unsigned long long count = 0;
    in.numbers_of(group, "count", H5T_NATIVE_ULLONG, 1, &count);
    in.fail(str("the checkpoint holds particle table '", name, "' of plugin ", owner, " (", count, " rows), which no ",
                "plugin of this run declares: it was written by a run with other plugins (add \"", owner,
                "\" to run.plugins to continue it)"));
  }
  return counts;
}

/// Rank 0's `values` on every rank (as many on every rank). A collective.
template <class T>
void broadcast_values(std::span<T> values, comm::Communicator& comm) {
  if (values.empty()) return;
  std::vector<unsigned char> bytes(values.size_bytes());
  std::memcpy(bytes.data(), values.data(), bytes.size());
  comm.broadcast(bytes, 0);
  std::memcpy(values.data(), bytes.data(), bytes.size());
}

/// After rank 0's check_particle_tables (`in` and `counts` are rank 0's: null and empty
/// on the other ranks): every table resized to its count, its checkpoint columns filled
/// and its restart values set, as rank 0 reads them, on every rank. So every rank holds
/// all rows: a partitioned plugin (rbc) keeps the rows it owns at its first step. A
/// collective.
void read_particle_tables(const io::hdf5::Input* in, FieldRegistry& fields,
                          const std::map<std::string, std::uint64_t>& counts, comm::Communicator& comm) {
  const bool root = in != nullptr;
  for (const ParticleTable* ct : fields.particle_tables()) {
    ParticleTable& t = fields.particle_table(ct->name());
    const std::string group = "particles/" + t.name();
    std::uint64_t count = root ? counts.at(t.name()) : 0;
    broadcast_values(std::span<std::uint64_t>(&count, 1), comm);
    t.resize(count);
    for (const ParticleColumnBase* cc : checkpoint_columns(t)) {
      ParticleColumnBase& c = t.column(cc->name());
      const Storage storage = storage_of(t, c);
      std::vector<unsigned char> row;
      for (int r = 0; r < c.components(); ++r) {
        if (root) row.resize(count * storage.bytes);
        if (root && count > 0) in->read(group + "/" + c.name(), storage.memory, row.data(), r);
        comm.broadcast(row, 0);
        c.set_component_bytes(r, row);
      }
    }
    std::vector<double> values;
    for (const auto& [name, value] : t.restart_values()) {
      values.push_back(0.0);
      if (root) in->numbers_of(group, name.c_str(), H5T_NATIVE_DOUBLE, 1, &values.back());
    }
    broadcast_values(std::span<double>(values), comm);
    std::size_t v = 0;
    for (const auto& [name, value] : t.restart_values()) *value = values[v++];
  }
}

}  // namespace

std::string checkpoint_path(const std::string& dir_or_file) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir_or_file, ec))
    return (std::filesystem::path(dir_or_file) / checkpoint_file_name).string();
  return dir_or_file;
}

void write_checkpoint(const std::string& path, const CheckpointInfo& info, const mesh::SparseMesh& mesh,
                      const FieldRegistry& fields, comm::Communicator& comm) {
  const bool root = comm.rank() == 0;
  const GatheredVoxels gathered = gather_voxels(mesh, comm);
  const std::vector<std::uint64_t>& voxels = gathered.voxel;
  const std::vector<std::size_t>& order = gathered.ascending;
  std::unique_ptr<io::hdf5::Quiet> quiet;
  std::unique_ptr<io::hdf5::Output> out;
  if (root) {
    std::vector<std::uint64_t> sorted(voxels.size());
    for (std::size_t p = 0; p < order.size(); ++p) sorted[p] = voxels[order[p]];
    quiet = std::make_unique<io::hdf5::Quiet>();
    // The node fields' bytes (particle tables aside), for the message of a full disk.
    std::uint64_t expected = sorted.size() * sizeof(std::uint64_t);
    for (const FieldBase* f : state_fields(fields))
      expected += std::uint64_t(f->components()) * sorted.size() * storage_of(*f).bytes;
    out = std::make_unique<io::hdf5::Output>(path, expected, /*sealed=*/true);  // checked whole at --restart
    const hsize_t n = sorted.size();
    out->dataset("voxel", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &n, sorted.data());
    out->group("fields");
    const long long step = info.step;
    const unsigned long long nodes = n;
    const int ranks = comm.size();
    hid_t r = out->root();
    out->attribute(r, "format_version", H5T_STD_I32LE, H5T_NATIVE_INT, 1, &format_version);
    out->attribute(r, "step", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, &step);
    out->attribute(r, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &info.time);
    out->string_attribute(r, "precision", info.precision);
    out->attribute(r, "dims", H5T_STD_I32LE, H5T_NATIVE_INT, 3, info.dims.data());
    out->attribute(r, "dx", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &info.dx);
    out->attribute(r, "dt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &info.dt);
    out->attribute(r, "tau", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &info.tau);
    out->attribute(r, "nodes", H5T_STD_U64LE, H5T_NATIVE_ULLONG, 1, &nodes);
    out->attribute(r, "initial_mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &info.initial_mass);
    out->attribute(r, "ranks", H5T_STD_I32LE, H5T_NATIVE_INT, 1, &ranks);
    out->string_attribute(r, "written_by", info.written_by);
    out->string_attribute(r, "case_file", info.case_file);
  }
  bool first_row = true;
  for (const FieldBase* f : state_fields(fields)) {
    const Storage storage = storage_of(*f);
    hid_t table = H5I_INVALID_HID;
    if (root) {
      table = out->table("fields/" + f->name(), storage.file, hsize_t(f->components()), voxels.size());
      out->string_attribute(table, "element_type", f->type_name());
      if (f->optional_state()) out->string_attribute(table, "optional_state", "true");
    }
    for (int c = 0; c < f->components(); ++c) {
      // f*_q of the owned fluid nodes, whatever the streaming scheme (no holes)
      const std::vector<unsigned char> mine = mesh.compact(post_collision_row(mesh, *f, c, info.step), storage.bytes);
      const std::vector<unsigned char> all = comm.gather(std::span<const unsigned char>(mine), 0);
      if (!root) continue;
      out->write_row(table, storage.memory, hsize_t(c), voxels.size(), in_order(all, order, storage.bytes).data());
      if (std::exchange(first_row, false)) test_kill_point();
    }
  }
  write_particle_tables(out.get(), fields, comm);
  if (root) out->commit();
}

CheckpointInfo read_checkpoint_info(const std::string& path, comm::Communicator& comm) {
  std::vector<unsigned char> bytes;
  if (comm.rank() == 0) {
    const io::hdf5::Quiet quiet;
    const io::hdf5::Input in(path, kind);
    int version = 0;
    in.numbers("format_version", H5T_NATIVE_INT, 1, &version);
    if (version < oldest_format_read || version > format_version)
      in.fail(str("checkpoint format_version ", version, " is not supported (this hemoflow reads ", oldest_format_read,
                  " to ", format_version, ")"));
    CheckpointInfo c;
    long long step = 0;
    unsigned long long nodes = 0;
    in.numbers("step", H5T_NATIVE_LLONG, 1, &step);
    in.numbers("time", H5T_NATIVE_DOUBLE, 1, &c.time);
    c.precision = in.text("precision");
    in.numbers("dims", H5T_NATIVE_INT, 3, c.dims.data());
    in.numbers("dx", H5T_NATIVE_DOUBLE, 1, &c.dx);
    in.numbers("dt", H5T_NATIVE_DOUBLE, 1, &c.dt);
    in.numbers("tau", H5T_NATIVE_DOUBLE, 1, &c.tau);
    in.numbers("nodes", H5T_NATIVE_ULLONG, 1, &nodes);
    in.numbers("initial_mass", H5T_NATIVE_DOUBLE, 1, &c.initial_mass);
    in.numbers("ranks", H5T_NATIVE_INT, 1, &c.ranks);
    c.written_by = in.text("written_by");
    c.case_file = in.text("case_file");
    c.step = step;
    c.nodes = nodes;
    if (c.step < 1) in.fail(str("step = ", c.step, ": a checkpoint is taken after a step (>= 1)"));
    const std::string s = encode(c);
    bytes.assign(s.begin(), s.end());
  }
  comm.broadcast(bytes, 0);
  return decode(std::string(bytes.begin(), bytes.end()));
}

void restore_checkpoint(const std::string& path, const mesh::SparseMesh& mesh, FieldRegistry& fields,
                        comm::Communicator& comm) {
  const bool root = comm.rank() == 0;
  const GatheredVoxels gathered = gather_voxels(mesh, comm);
  const std::vector<std::uint64_t>& voxels = gathered.voxel;
  const std::vector<std::size_t>& order = gathered.ascending;
  const std::vector<std::uint64_t> counts = comm.gather(std::span<const std::uint64_t>(std::vector<std::uint64_t>{mesh.num_fluid()}), 0);
  std::unique_ptr<io::hdf5::Quiet> quiet;
  std::unique_ptr<io::hdf5::Input> in;
  const std::vector<const FieldBase*> state = state_fields(fields);
  std::vector<unsigned char> present(state.size(), 1);  // 0: an optional field the checkpoint lacks
  std::map<std::string, std::uint64_t> particle_counts;
  if (root) {
    quiet = std::make_unique<io::hdf5::Quiet>();
    in = std::make_unique<io::hdf5::Input>(path, kind);
    // The checkpoint must hold exactly this run's fluid voxels...
    const io::hdf5::Input::Shape vs = in->shape("voxel");
    if (vs.dims.size() != 1 || vs.type_class != H5T_INTEGER) in->fail("dataset /voxel is not a list of voxel indices");
    // The count first: a damaged file may claim more voxels than memory holds.
    if (vs.dims[0] != voxels.size())
      in->fail(str("the checkpoint has ", vs.dims[0], " fluid nodes, this case ", voxels.size(),
                   ": it was written for another geometry (or resolution, or iolets)"));
    std::vector<std::uint64_t> file_voxels(vs.dims[0]);
    in->read("voxel", H5T_NATIVE_UINT64, file_voxels.data());
    auto ijk = [&](std::uint64_t v) {
      const std::uint64_t nx = std::uint64_t(mesh.dims[0]), ny = std::uint64_t(mesh.dims[1]);
      return str("(", v % nx, ", ", v / nx % ny, ", ", v / (nx * ny), ")");
    };
    for (std::size_t p = 0; p < order.size(); ++p)
      if (file_voxels[p] != voxels[order[p]])
        in->fail(str("the checkpoint's fluid voxels differ from this case's (first at voxel ",
                     ijk(std::min(file_voxels[p], voxels[order[p]])), "): it was written for another geometry"));
    // ... exactly its particle tables ...
    particle_counts = check_particle_tables(*in, fields);
    // ... and exactly its restart-state fields.
    std::vector<std::string> expected;
    for (std::size_t k = 0; k < state.size(); ++k) {
      const FieldBase* f = state[k];
      expected.push_back(f->name());
      const std::string name = "fields/" + f->name();
      if (!in->has_dataset(name) && f->optional_state()) {
        present[k] = 0;  // a plugin's statistics, new in this run: they start afresh
        continue;
      }
      if (!in->has_dataset(name))
        in->fail(str("no field '", f->name(), "' (declared by ", f->owner(), "): the checkpoint was written by a run "
                     "with other plugins"));
      const io::hdf5::Input::Shape s = in->shape(name);
      if (s.dims.size() != 2 || s.dims[0] != hsize_t(f->components()) || s.dims[1] != voxels.size() ||
          !same_type(s, f->type_name(), storage_of(*f).bytes))
        in->fail(str("field '", f->name(), "' is stored as ", stored_type(s), " with ", s.dims.empty() ? 0 : s.dims[0],
                     " components; this run has ", f->type_name(), " x ", f->components(),
                     " (another precision or plugin version)"));
      // Two formats share a size and class (fp16s, e4m11): the attribute tells them apart.
      const std::vector<std::string> attrs = in->attribute_names(name);
      const bool named = std::find(attrs.begin(), attrs.end(), "element_type") != attrs.end();
      const std::string stored = named ? in->text_of(name, "element_type") : std::string();
      if ((named || phys_storage16(f->type_name())) && stored != f->type_name())
        in->fail(str("field '", f->name(), "' holds ", named ? stored : std::string("values of an unnamed type"),
                     " values; this run stores ", f->type_name(),
                     " (a restart continues in the storage it was written in: set lb_bgk.storage = \"",
                     named ? stored : std::string("?"), "\")"));
    }
    const std::vector<std::string> stored = in->members("fields");
    for (const std::string& s : stored)
      if (std::find(expected.begin(), expected.end(), s) == expected.end() &&
          !optional_in_file(*in, "fields/" + s))  // a plugin's statistics this run goes without
        in->fail(str("the checkpoint holds field '", s, "', which no plugin of this run declares as state: it was "
                     "written by a run with other plugins"));
  }
  comm.broadcast(present, 0);
  for (std::size_t k = 0; k < state.size(); ++k) {
    if (!present[k]) continue;
    const FieldBase* cf = state[k];
    FieldBase& f = fields.lookup(cf->name());
    f.mark_restored();
    const Storage storage = storage_of(f);
    const std::size_t size = storage.bytes;
    std::vector<unsigned char> all, row, mine;
    std::vector<std::uint64_t> byte_counts;
    if (root) {
      for (const std::uint64_t c : counts) byte_counts.push_back(c * size);
      row.resize(voxels.size() * size);
      all.resize(row.size());
    }
    for (int c = 0; c < f.components(); ++c) {
      if (root) {
        in->read("fields/" + f.name(), storage.memory, row.data(), c);
        for (std::size_t p = 0; p < order.size(); ++p) std::memcpy(&all[order[p] * size], &row[p * size], size);
      }
      comm.scatter(all, byte_counts, mine, 0);
      f.set_component_bytes(c, mesh.expand(mine, size));
    }
  }
  read_particle_tables(in.get(), fields, particle_counts, comm);
}

}  // namespace hemo
