#include "plugins/rbc/iolets.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "physics/d3q19.hpp"

namespace hemo::rbc {

namespace {

using P = std::array<double, 3>;

double dot(const P& a, const P& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
P minus(const P& a, const P& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
P node_point(const mesh::SparseMesh& m, std::uint32_t n) { return {double(m.i[n]), double(m.j[n]), double(m.k[n])}; }

constexpr const char* iolet_prefix = "iolet:";
// A face cut at a slant has solid voxels up to about a spacing nearer the fluid than its
// mean depth says: sinks reach one spacing further, so that no face voxel pushes a cell
// back before it leaves (seen before this margin: cells held at the outlets of
// cases/rbc_bifurcation.toml, 2026-11-25).
constexpr double face_margin = 1.0;

}  // namespace

double IoletFace::depth(const P& x) const { return dot(minus(centre, x), normal) + 0.5; }

double IoletFace::lateral(const P& x) const {
  const P d = minus(x, centre);
  const double along = dot(d, normal);
  return std::sqrt(std::max(0.0, dot(d, d) - along * along));
}

CellIolets::CellIolets(const mesh::SparseMesh& mesh, comm::Communicator& comm, double reach,
                       const std::vector<std::string>& inflow, double inflow_length)
    : reach_(reach), inflow_length_(inflow_length) {
  // The faces: the voxels the iolet links point at (x_n - c_q), each once per iolet.
  const auto& links = mesh.links;
  std::vector<int> face_of_class(links.class_names.size(), -1);
  for (std::size_t c = 0; c < links.class_names.size(); ++c)
    if (links.class_names[c].rfind(iolet_prefix, 0) == 0) {
      face_of_class[c] = int(faces_.size());
      faces_.push_back(IoletFace{links.class_names[c].substr(std::string(iolet_prefix).size())});
    }
  std::vector<std::vector<std::array<int, 3>>> voxels(faces_.size());
  std::vector<P> outward(faces_.size(), P{0, 0, 0});
  for (std::size_t k = 0; k < links.node.size(); ++k) {
    const int f = face_of_class[links.link_class[k]];
    if (f < 0) continue;
    const std::uint32_t n = links.node[k];
    const int q = links.direction[k];
    namespace d = phys::d3q19;
    voxels[std::size_t(f)].push_back({mesh.i[n] - d::cx(q), mesh.j[n] - d::cy(q), mesh.k[n] - d::cz(q)});
    outward[std::size_t(f)] = {outward[f][0] - d::cx(q), outward[f][1] - d::cy(q), outward[f][2] - d::cz(q)};
  }
  // Every rank's face voxels and outward sums (integers: exact in any order), so that all
  // ranks, and one rank alone, build the same faces.
  if (comm.size() > 1) {
    std::vector<std::int32_t> mine;
    for (std::size_t f = 0; f < voxels.size(); ++f)
      for (const auto& v : voxels[f]) mine.insert(mine.end(), {std::int32_t(f), v[0], v[1], v[2]});
    std::vector<std::int32_t> all = comm.gather<std::int32_t>(mine, 0);
    std::vector<unsigned char> bytes(all.size() * sizeof(std::int32_t));
    if (!bytes.empty()) std::memcpy(bytes.data(), all.data(), bytes.size());
    comm.broadcast(bytes, 0);
    all.resize(bytes.size() / sizeof(std::int32_t));
    if (!bytes.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
    for (auto& v : voxels) v.clear();
    for (std::size_t e = 0; e + 3 < all.size(); e += 4) voxels[std::size_t(all[e])].push_back({all[e + 1], all[e + 2], all[e + 3]});
    std::vector<double> sums;
    for (const P& o : outward) sums.insert(sums.end(), o.begin(), o.end());
    comm.sum(std::span<double>(sums));
    for (std::size_t f = 0; f < outward.size(); ++f) outward[f] = {sums[3 * f], sums[3 * f + 1], sums[3 * f + 2]};
  }
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    auto& v = voxels[f];
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    IoletFace& face = faces_[f];
    face.face_voxels = v.size();
    if (v.empty()) continue;  // the iolet cuts no fluid of this rank
    const double len = std::sqrt(dot(outward[f], outward[f]));
    face.normal = {outward[f][0] / len, outward[f][1] / len, outward[f][2] / len};
    for (const auto& p : v)
      for (int a = 0; a < 3; ++a) face.centre[a] += double(p[a]) / double(v.size());
    for (const auto& p : v) face.radius = std::max(face.radius, face.lateral({double(p[0]), double(p[1]), double(p[2])}));
  }
  // Which inflow names are iolets.
  for (const std::string& name : inflow) {
    const auto it = std::find_if(faces_.begin(), faces_.end(), [&](const IoletFace& f) { return f.name == name; });
    if (it == faces_.end()) {
      std::vector<std::string> names;
      for (const auto& f : faces_) names.push_back("'" + f.name + "'");
      throw InputError(str("iolet '", name, "' is not one of the case's iolets (",
                           names.empty() ? std::string("it has none") : join(names, ", "), ")"));
    }
    feeds_.push_back(Feed{int(it - faces_.begin()), {}});
  }
}

void CellIolets::list_feed_nodes(const mesh::SparseMesh& mesh) {
  for (Feed& feed : feeds_) feed.nodes.clear();
  if (feeds_.empty()) return;
  for (std::uint32_t f = 0; f < mesh.num_fluid(); ++f) {
    const std::uint32_t n = mesh.fluid_node(f);
    const P x = node_point(mesh, n);
    for (Feed& feed : feeds_)
      if (in_feed(feed, x)) feed.nodes.push_back(n);
  }
}

int CellIolets::sink_at(const std::array<std::int64_t, 3>& v) const {
  const P x{double(v[0]), double(v[1]), double(v[2])};
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    const IoletFace& face = faces_[f];
    if (face.face_voxels && face.depth(x) < reach_ + face_margin && face.lateral(x) < face.radius + reach_) return int(f);
  }
  return -1;
}

int CellIolets::sink_of(const P& x) const {
  return sink_at({std::int64_t(std::floor(x[0] + 0.5)), std::int64_t(std::floor(x[1] + 0.5)),
                  std::int64_t(std::floor(x[2] + 0.5))});
}

std::vector<std::uint8_t> CellIolets::sink_map(const mesh::TileMaps& tiles) const {
  const std::int64_t c = tiles.c, volume = tiles.tile_volume();
  std::vector<std::uint8_t> out(std::size_t(tiles.num_mapped() * volume), 0);
  if (faces_.empty()) return out;
  for (std::uint32_t t = 0; t < tiles.num_mapped(); ++t) {
    const auto tc = tiles.tile_coords_of(std::int32_t(t));
    for (std::int64_t l = 0; l < volume; ++l) {
      const int f = sink_at({tc[0] * c + l % c, tc[1] * c + (l / c) % c, tc[2] * c + l / (c * c)});
      out[std::size_t(t * volume + l)] = std::uint8_t(f + 1);
    }
  }
  return out;
}

bool CellIolets::in_feed(const Feed& f, const P& x, double margin) const {
  const IoletFace& face = faces_[std::size_t(f.iolet)];
  if (!face.face_voxels) return false;
  const double d = face.depth(x);
  return d >= reach_ + face_margin - margin && d < reach_ + face_margin + inflow_length_ + margin &&
         face.lateral(x) < face.radius + margin;
}

std::vector<CellPlacement> place_in_feed(const mesh::SparseMesh& mesh, const mesh::TileMaps& tiles,
                                         const CellModel<double>& model, const CellIolets& iolets,
                                         const CellIolets::Feed& feed, const std::vector<CellPlacement>& existing,
                                         std::size_t wanted, std::mt19937_64& rng, std::uint64_t give_up_after) {
  if (feed.nodes.empty() || wanted == 0) return {};
  std::uniform_int_distribution<std::size_t> pick(0, feed.nodes.size() - 1);
  return add_at_random(
      mesh, tiles, model, existing, wanted, rng, [&](std::mt19937_64& r) { return feed.nodes[pick(r)]; },
      [&](const CellPlacement& c) {
        const P x{c.position[0], c.position[1], c.position[2]};
        return iolets.in_feed(feed, x) && iolets.sink_of(x) < 0;
      },
      give_up_after * wanted, give_up_after);
}

}  // namespace hemo::rbc
