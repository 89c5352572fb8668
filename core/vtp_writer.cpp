#include "core/vtp_writer.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "core/csv_writer.hpp"

namespace talus {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the binary .vtp writer declares LittleEndian data");

void require_xml_safe(const std::string& what, const std::string& text) {
  if (text.find_first_of("<>&\"") != std::string::npos) {
    throw std::invalid_argument(
        fmt::format("{} \"{}\" holds an XML special character (<, >, &, \")", what, text));
  }
}

// A file opened for writing, closed on scope exit; errors name the path.
class OutFile {
 public:
  explicit OutFile(const std::filesystem::path& path) : path_(path) {
    file_ = std::fopen(path.string().c_str(), "wb");
    if (file_ == nullptr) {
      throw std::runtime_error(fmt::format("cannot open {} for writing", path.string()));
    }
  }
  ~OutFile() {
    if (file_ != nullptr) std::fclose(file_);
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  void write(const void* data, std::size_t bytes) {
    if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes) fail();
  }
  void write(const std::string& text) { write(text.data(), text.size()); }
  void close() {
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) fail();
  }

 private:
  [[noreturn]] void fail() const {
    throw std::runtime_error(fmt::format("cannot write {}", path_.string()));
  }
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

// One DataArray's values, interleaved by component, as the file stores them.
struct Block {
  std::string xml_attributes;  // type, Name, NumberOfComponents
  std::vector<float> f32;
  std::vector<std::int64_t> i64;
  std::size_t bytes() const { return f32.size() * 4 + i64.size() * 8; }
};

Block float_block(const std::string& name, const std::vector<std::span<const float>>& comps) {
  Block b;
  b.xml_attributes =
      fmt::format("type=\"Float32\" Name=\"{}\" NumberOfComponents=\"{}\"", name, comps.size());
  const std::size_t n = comps.front().size();
  b.f32.resize(n * comps.size());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < comps.size(); ++c) b.f32[i * comps.size() + c] = comps[c][i];
  }
  return b;
}

void write_ascii_values(OutFile& out, const Block& b) {
  std::string line;
  for (std::size_t i = 0; i < b.f32.size(); ++i) {
    line += fmt::format("{} ", b.f32[i]);  // shortest text that reads back to the same float
    if (line.size() > 4000) {
      out.write(line);
      line.clear();
    }
  }
  for (std::size_t i = 0; i < b.i64.size(); ++i) {
    line += fmt::format("{} ", b.i64[i]);
    if (line.size() > 4000) {
      out.write(line);
      line.clear();
    }
  }
  out.write(line + "\n");
}

}  // namespace

void write_vtp_points(const std::filesystem::path& path, std::span<const float> x,
                      std::span<const float> y, std::span<const float> z,
                      const std::vector<VtpArray>& point_data, VtpEncoding encoding) {
  const std::size_t n = x.size();
  if (y.size() != n || z.size() != n) {
    throw std::invalid_argument(
        fmt::format("write_vtp_points {}: x, y, z hold {}, {}, {} values; expected equal counts",
                    path.string(), n, y.size(), z.size()));
  }
  std::set<std::string> names;
  for (const VtpArray& a : point_data) {
    if (a.name.empty()) {
      throw std::invalid_argument(
          fmt::format("write_vtp_points {}: a point-data array has no name", path.string()));
    }
    require_xml_safe("write_vtp_points: array name", a.name);
    if (!names.insert(a.name).second) {
      throw std::invalid_argument(fmt::format(
          "write_vtp_points {}: two point-data arrays are named \"{}\"", path.string(), a.name));
    }
    if (a.components.empty() || a.components.size() > 9) {
      throw std::invalid_argument(
          fmt::format("write_vtp_points {}: array \"{}\" has {} components; expected 1 to 9",
                      path.string(), a.name, a.components.size()));
    }
    for (std::size_t c = 0; c < a.components.size(); ++c) {
      if (a.components[c].size() != n) {
        throw std::invalid_argument(fmt::format(
            "write_vtp_points {}: array \"{}\" component {} holds {} values; expected {} (one per "
            "point)",
            path.string(), a.name, c, a.components[c].size(), n));
      }
    }
  }

  std::vector<Block> point_blocks;
  for (const VtpArray& a : point_data) point_blocks.push_back(float_block(a.name, a.components));
  Block points = float_block("Points", {x, y, z});
  Block connectivity;
  connectivity.xml_attributes = "type=\"Int64\" Name=\"connectivity\"";
  Block offsets;
  offsets.xml_attributes = "type=\"Int64\" Name=\"offsets\"";
  for (std::size_t i = 0; i < n; ++i) {
    connectivity.i64.push_back(static_cast<std::int64_t>(i));
    offsets.i64.push_back(static_cast<std::int64_t>(i + 1));
  }

  const bool binary = encoding == VtpEncoding::binary;
  std::vector<const Block*> order;  // file order of the appended blocks
  std::uint64_t offset = 0;
  auto data_array = [&](const Block& b) {
    if (!binary) return fmt::format("<DataArray {} format=\"ascii\">\n", b.xml_attributes);
    order.push_back(&b);
    const std::string s = fmt::format("<DataArray {} format=\"appended\" offset=\"{}\"/>\n",
                                      b.xml_attributes, offset);
    offset += 8 + b.bytes();
    return s;
  };

  OutFile out(path);
  out.write(fmt::format(
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
      "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n<Piece "
      "NumberOfPoints=\"{}\" NumberOfVerts=\"{}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
      "NumberOfPolys=\"0\">\n",
      n, n));
  auto section = [&](const std::string& open, const std::vector<const Block*>& blocks,
                     const std::string& close) {
    out.write(open);
    for (const Block* b : blocks) {
      out.write(data_array(*b));
      if (!binary) {
        write_ascii_values(out, *b);
        out.write("</DataArray>\n");
      }
    }
    out.write(close);
  };
  std::vector<const Block*> pd;
  for (const Block& b : point_blocks) pd.push_back(&b);
  section("<PointData>\n", pd, "</PointData>\n");
  section("<Points>\n", {&points}, "</Points>\n");
  section("<Verts>\n", {&connectivity, &offsets}, "</Verts>\n");
  out.write("</Piece>\n</PolyData>\n");
  if (binary) {
    out.write("<AppendedData encoding=\"raw\">\n_");
    for (const Block* b : order) {
      const std::uint64_t bytes = b->bytes();
      out.write(&bytes, sizeof bytes);
      out.write(b->f32.data(), b->f32.size() * 4);
      out.write(b->i64.data(), b->i64.size() * 8);
    }
    out.write("\n</AppendedData>\n");
  }
  out.write("</VTKFile>\n");
  out.close();
}

void write_pvd(const std::filesystem::path& path, const std::vector<PvdFrame>& frames) {
  for (std::size_t k = 0; k < frames.size(); ++k) {
    if (!std::isfinite(frames[k].time_s) || (k > 0 && !(frames[k].time_s > frames[k - 1].time_s))) {
      throw std::invalid_argument(fmt::format(
          "write_pvd {}: frame {} has time {} s; expected finite times increasing frame to frame",
          path.string(), k, frames[k].time_s));
    }
    require_xml_safe("write_pvd: file", frames[k].file);
  }
  OutFile out(path);
  out.write(
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
      "byte_order=\"LittleEndian\">\n<Collection>\n");
  for (const PvdFrame& f : frames) {
    out.write(fmt::format("<DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n",
                          f.time_s, f.file));
  }
  out.write("</Collection>\n</VTKFile>\n");
  out.close();
}

struct BodyPoseLog::Impl {
  CsvWriter csv;
};

BodyPoseLog::BodyPoseLog(const std::filesystem::path& path)
    : impl_(std::make_unique<Impl>(
          Impl{CsvWriter(path, {"time_s", "body", "x_m", "y_m", "z_m", "qw", "qx", "qy", "qz"})})) {
}
BodyPoseLog::~BodyPoseLog() = default;
BodyPoseLog::BodyPoseLog(BodyPoseLog&&) noexcept = default;
BodyPoseLog& BodyPoseLog::operator=(BodyPoseLog&&) noexcept = default;

void BodyPoseLog::add(double time_s, const std::string& body, const Pose& X_WB) {
  Quat q(X_WB.linear());
  q.normalize();
  if (q.w() < 0.0) q.coeffs() *= -1.0;
  const Vec3 p = X_WB.translation();
  impl_->csv.write_row(
      std::vector<CsvCell>{time_s, body, p.x(), p.y(), p.z(), q.w(), q.x(), q.y(), q.z()});
}

void BodyPoseLog::close() { impl_->csv.close(); }

}  // namespace talus
