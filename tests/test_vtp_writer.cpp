// VTK PolyData frames, the .pvd time series and the body pose log, read back with a minimal parser.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/units.hpp"
#include "core/vtp_writer.hpp"
#include "error_message.hpp"

namespace talus {
namespace {

namespace fs = std::filesystem;
using test_support::invalid_argument_of;

class Scratch {
 public:
  Scratch() {
    path_ = fs::temp_directory_path() / ("talus_vtp_" + std::to_string(::getpid()));
    fs::create_directories(path_);
  }
  ~Scratch() { fs::remove_all(path_); }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The value of attribute `attr` in the first tag (after `from`) that contains `marker`.
std::string attribute(const std::string& xml, const std::string& marker, const std::string& attr) {
  const std::size_t at = xml.find(marker);
  if (at == std::string::npos) return "";
  const std::size_t tag = xml.rfind('<', at);
  const std::size_t end = xml.find('>', at);
  const std::string t = xml.substr(tag, end - tag);
  const std::size_t a = t.find(" " + attr + "=\"");
  if (a == std::string::npos) return "";
  const std::size_t v = a + attr.size() + 3;
  return t.substr(v, t.find('"', v) - v);
}

// The values of the DataArray named `name`, ascii or appended raw.
std::vector<double> read_array(const std::string& xml, const std::string& name) {
  const std::string marker = "Name=\"" + name + "\"";
  const std::string type = attribute(xml, marker, "type");
  std::vector<double> values;
  if (attribute(xml, marker, "format") == "ascii") {
    const std::size_t start = xml.find('>', xml.find(marker)) + 1;
    std::istringstream in(xml.substr(start, xml.find("</DataArray>", start) - start));
    float v = 0.0F;  // the writer's text reads back to the same float
    while (in >> v) values.push_back(v);
    return values;
  }
  const std::size_t base = xml.find('_', xml.find("<AppendedData encoding=\"raw\">")) + 1;
  const std::size_t offset = std::stoul(attribute(xml, marker, "offset"));
  std::uint64_t bytes = 0;
  std::memcpy(&bytes, xml.data() + base + offset, 8);
  const char* data = xml.data() + base + offset + 8;
  if (type == "Float32") {
    for (std::size_t i = 0; i < bytes / 4; ++i) {
      float f = 0.0F;
      std::memcpy(&f, data + 4 * i, 4);
      values.push_back(f);
    }
  } else {
    for (std::size_t i = 0; i < bytes / 8; ++i) {
      std::int64_t k = 0;
      std::memcpy(&k, data + 8 * i, 8);
      values.push_back(static_cast<double>(k));
    }
  }
  return values;
}

class VtpRoundTrip : public ::testing::TestWithParam<VtpEncoding> {};

TEST_P(VtpRoundTrip, PointsAndArraysReadBack) {
  Scratch dir;
  const std::vector<float> x{0.0F, 1.5F, -2.25F}, y{0.1F, 0.2F, 0.3F}, z{1e-3F, 2.0F, 7.0F};
  const std::vector<float> r{0.01F, 0.02F, 0.015F};
  const std::vector<float> vx{1, 2, 3}, vy{-1, -2, -3}, vz{0.5F, 0.25F, 0.125F};
  write_vtp_points(dir / "f.vtp", x, y, z, {{"radius", {r}}, {"velocity", {vx, vy, vz}}},
                   GetParam());
  const std::string xml = slurp(dir / "f.vtp");
  EXPECT_EQ(attribute(xml, "<Piece", "NumberOfPoints"), "3");
  EXPECT_EQ(attribute(xml, "<Piece", "NumberOfVerts"), "3");
  EXPECT_EQ(attribute(xml, "Name=\"velocity\"", "NumberOfComponents"), "3");
  EXPECT_EQ(read_array(xml, "radius"), (std::vector<double>{0.01F, 0.02F, 0.015F}));
  EXPECT_EQ(read_array(xml, "velocity"),
            (std::vector<double>{1, -1, 0.5, 2, -2, 0.25, 3, -3, 0.125}));  // interleaved
  EXPECT_EQ(read_array(xml, "Points"),
            (std::vector<double>{0.0F, 0.1F, 1e-3F, 1.5F, 0.2F, 2.0F, -2.25F, 0.3F, 7.0F}));
  EXPECT_EQ(read_array(xml, "connectivity"), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(read_array(xml, "offsets"), (std::vector<double>{1, 2, 3}));
}

INSTANTIATE_TEST_SUITE_P(Encodings, VtpRoundTrip,
                         ::testing::Values(VtpEncoding::ascii, VtpEncoding::binary));

TEST(VtpWriter, RefusesMismatchedArrays) {
  Scratch dir;
  const std::vector<float> a{1, 2}, b{1};
  EXPECT_NE(invalid_argument_of([&] {
              write_vtp_points(dir / "f.vtp", a, b, a, {});
            }).find("x, y, z hold 2, 1, 2 values"),
            std::string::npos);
  const std::string msg = invalid_argument_of([&] {
    write_vtp_points(dir / "f.vtp", a, a, a, {{"v", {a, b}}});
  });
  EXPECT_NE(msg.find("array \"v\" component 1 holds 1 values; expected 2"), std::string::npos)
      << msg;
  EXPECT_NE(invalid_argument_of([&] {
              write_vtp_points(dir / "f.vtp", a, a, a, {{"r", {a}}, {"r", {a}}});
            }).find("two point-data arrays are named \"r\""),
            std::string::npos);
  EXPECT_NE(invalid_argument_of([&] {
              write_vtp_points(dir / "f.vtp", a, a, a, {{"a<b", {a}}});
            }).find("XML special character"),
            std::string::npos);
}

TEST(PvdWriter, ListsFramesWithTimes) {
  Scratch dir;
  write_pvd(dir / "particles.pvd", {{0.0, "frames/p_0000.vtp"}, {0.05, "frames/p_0001.vtp"}});
  const std::string xml = slurp(dir / "particles.pvd");
  EXPECT_NE(xml.find("type=\"Collection\""), std::string::npos);
  EXPECT_EQ(attribute(xml, "p_0000.vtp", "timestep"), "0");
  EXPECT_EQ(attribute(xml, "p_0001.vtp", "timestep"), "0.05");
  EXPECT_EQ(attribute(xml, "p_0001.vtp", "file"), "frames/p_0001.vtp");
  EXPECT_NE(invalid_argument_of([&] {
              write_pvd(dir / "x.pvd", {{1.0, "a.vtp"}, {1.0, "b.vtp"}});
            }).find("frame 1 has time 1 s; expected finite times increasing"),
            std::string::npos);
}

TEST(BodyPoseLog, RowsHoldPositionAndQuaternion) {
  Scratch dir;
  BodyPoseLog log(dir / "poses.csv");
  log.add(0.0, "blade", make_pose(Vec3(1, 2, 3)));
  log.add(0.5, "blade", make_pose(Vec3(0, 0, 1), 0.0, 0.0, kPi / 2));
  log.close();
  std::istringstream in(slurp(dir / "poses.csv"));
  std::string header, row1, row2;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  EXPECT_EQ(header, "time_s,body,x_m,y_m,z_m,qw,qx,qy,qz");
  EXPECT_EQ(row1, "0,blade,1,2,3,1,0,0,0");
  // 90 deg about z: (cos 45, 0, 0, sin 45).
  std::vector<std::string> cells;
  std::stringstream ss(row2);
  for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
  ASSERT_EQ(cells.size(), 9u);
  EXPECT_NEAR(std::stod(cells[5]), std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(std::stod(cells[8]), std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(std::stod(cells[6]), 0.0, 1e-12);
}

}  // namespace
}  // namespace talus
