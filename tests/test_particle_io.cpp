// Save and load of particle states: a round trip is bit-identical, and every kind of bad file
// (missing, wrong magic, other version, truncated, corrupted, NaN) is refused naming the file.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "particles/particle_io.hpp"
#include "particles/particle_state.hpp"
#include "scratch_files.hpp"

namespace talus::particles {
namespace {

namespace fs = std::filesystem;

ParticleState small_state() {
  ParticleState s;
  s.add(Vec3(0.1, 0.2, 0.3), Vec3(-1.0, 0.5, 0.25), 0.01, 0.002, Vec3(1.0, -2.0, 30.0));
  s.add(Vec3(1e-7, -2.5, 3.75), Vec3(0.0, 0.0, -9.81), 0.02, 0.5);
  s.add(Vec3(4.0, 5.0, 6.0), Vec3::Zero(), 0.005, 1e-4);
  s.time_s = 1.25;
  s.step = 1250;
  return s;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<long>(bytes.size()));
}

std::string load_error(const fs::path& p) {
  try {
    load_particle_state(p);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ParticleIo, RoundTripIsBitIdentical) {
  const ParticleState s = small_state();
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "state.tps";
  save_particle_state(s, p);
  const ParticleState r = load_particle_state(p);
  EXPECT_EQ(r.x_m, s.x_m);
  EXPECT_EQ(r.y_m, s.y_m);
  EXPECT_EQ(r.z_m, s.z_m);
  EXPECT_EQ(r.vx_m_per_s, s.vx_m_per_s);
  EXPECT_EQ(r.vy_m_per_s, s.vy_m_per_s);
  EXPECT_EQ(r.vz_m_per_s, s.vz_m_per_s);
  EXPECT_EQ(r.radius_m, s.radius_m);
  EXPECT_EQ(r.inv_mass_per_kg, s.inv_mass_per_kg);
  EXPECT_EQ(r.time_s, s.time_s);
  EXPECT_EQ(r.step, s.step);
  EXPECT_TRUE(r.body_wrenches.empty());
  EXPECT_EQ(r.wx_rad_per_s, s.wx_rad_per_s);
  EXPECT_EQ(r.wy_rad_per_s, s.wy_rad_per_s);
  EXPECT_EQ(r.wz_rad_per_s, s.wz_rad_per_s);
  // 8-byte magic, version, array count, n, time, steps, 11 arrays of n floats, checksum.
  EXPECT_EQ(read_bytes(p).size(), 40u + 11u * 3u * 4u + 8u);
}

TEST(ParticleIo, EmptyStateRoundTrips) {
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "empty.tps";
  save_particle_state(ParticleState{}, p);
  EXPECT_EQ(load_particle_state(p).size(), 0u);
}

TEST(ParticleIo, MissingFileIsNamed) {
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "absent.tps";
  fs::remove(p);
  const std::string msg = load_error(p);
  EXPECT_NE(msg.find("absent.tps: cannot open"), std::string::npos) << msg;
}

TEST(ParticleIo, WrongMagicIsRefused) {
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "notes.tps";
  write_bytes(p, "x,y,z\n1,2,3\n0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
  const std::string msg = load_error(p);
  EXPECT_NE(msg.find("notes.tps: not a talus particle state file"), std::string::npos) << msg;
}

TEST(ParticleIo, OtherVersionIsRefused) {
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "v3.tps";
  save_particle_state(small_state(), p);
  std::string bytes = read_bytes(p);
  const std::uint32_t v3 = 3;
  std::memcpy(bytes.data() + 8, &v3, 4);
  write_bytes(p, bytes);
  const std::string msg = load_error(p);
  EXPECT_NE(msg.find("v3.tps: format version 3 is not supported"), std::string::npos) << msg;
}

TEST(ParticleIo, TruncatedFileIsRefused) {
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "cut.tps";
  save_particle_state(small_state(), p);
  const std::string bytes = read_bytes(p);
  write_bytes(p, bytes.substr(0, bytes.size() - 13));
  std::string msg = load_error(p);
  EXPECT_NE(msg.find("cut.tps: truncated"), std::string::npos) << msg;
  write_bytes(p, bytes.substr(0, 20));  // inside the header
  msg = load_error(p);
  EXPECT_NE(msg.find("cut.tps: truncated"), std::string::npos) << msg;
}

TEST(ParticleIo, CorruptedByteFailsTheChecksum) {
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "flip.tps";
  save_particle_state(small_state(), p);
  std::string bytes = read_bytes(p);
  bytes[50] = static_cast<char>(bytes[50] ^ 0x10);  // a bit of x_m
  write_bytes(p, bytes);
  const std::string msg = load_error(p);
  EXPECT_NE(msg.find("flip.tps: checksum mismatch"), std::string::npos) << msg;
}

TEST(ParticleIo, NanIsRefusedNamingTheParticle) {
  ParticleState s = small_state();
  s.vz_m_per_s[2] = std::numeric_limits<float>::quiet_NaN();
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "nan.tps";
  save_particle_state(s, p);  // saving the last state before a divergence must work
  const std::string msg = load_error(p);
  EXPECT_NE(msg.find("nan.tps: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("particle 2"), std::string::npos) << msg;
}

TEST(ParticleIo, UnwritablePathIsNamed) {
  const testing_files::ScratchDir scratch;
  const fs::path p = scratch.path() / "no_such_dir" / "x.tps";
  try {
    save_particle_state(small_state(), p);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("x.tps: cannot write"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace talus::particles
