#pragma once
// ParaView outputs of the particle tier: VTK XML PolyData (.vtp) frames of particles, a .pvd
// collection that lists the frames with their times (ParaView opens it as a time series), and a
// body pose log.
//
// A .vtp frame holds one point per particle (each also a vertex cell, so ParaView draws it without
// a filter) and point-data arrays (radius, velocity, ...), all Float32. Two encodings: ascii
// (readable, large) and binary, which is VTK's "appended raw" form: after the XML, one block per
// array of a UInt64 byte count and the little-endian values, each array's offset counted from the
// '_' that starts the block. (VTK's base64 form was not chosen: raw is smaller, faster and
// unambiguous, and ParaView reads both.)
//
// The body pose log is CSV (time_s, body, x_m, y_m, z_m, qw, qx, qy, qz): ParaView opens it with
// its CSV reader, and the "Table To Points" filter on x_m, y_m, z_m shows the bodies' origins over
// time.

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/pose.hpp"

namespace talus {

/// One point-data array: a scalar (one component) or a vector (three), each component a separate
/// array of one value per point (the particle state's structure-of-arrays layout).
struct VtpArray {
  std::string name;
  std::vector<std::span<const float>> components;  ///< 1 to 9 spans, each of the point count
};

enum class VtpEncoding { ascii, binary };

/// Writes particles at (x, y, z) [m] with the given point-data arrays as a VTK XML PolyData file.
/// Throws std::invalid_argument when the coordinate spans or an array's components differ in length
/// from x, an array has no or more than 9 components or an empty or duplicate name, or a name holds
/// a character that XML attributes cannot (<, >, &, "); std::runtime_error naming the path when
/// the file cannot be written.
void write_vtp_points(const std::filesystem::path& path, std::span<const float> x,
                      std::span<const float> y, std::span<const float> z,
                      const std::vector<VtpArray>& point_data,
                      VtpEncoding encoding = VtpEncoding::binary);

/// One frame of a time series: its time [s] and its file, relative to the .pvd file's folder.
struct PvdFrame {
  double time_s = 0.0;
  std::string file;
};

/// Writes a ParaView collection (.pvd) listing the frames in the given order. Throws
/// std::invalid_argument when times are not finite or not increasing, or a file name holds an XML
/// special character; std::runtime_error naming the path when it cannot be written.
void write_pvd(const std::filesystem::path& path, const std::vector<PvdFrame>& frames);

/// Appends body poses to a CSV file, one row per body and time: time_s, body, x_m, y_m, z_m, qw,
/// qx, qy, qz (position of the body origin and the unit quaternion of R_WB, qw >= 0).
class BodyPoseLog {
 public:
  /// Creates (or truncates) the file; throws std::runtime_error naming the path when it cannot.
  explicit BodyPoseLog(const std::filesystem::path& path);
  ~BodyPoseLog();
  BodyPoseLog(BodyPoseLog&&) noexcept;
  BodyPoseLog& operator=(BodyPoseLog&&) noexcept;
  /// Adds one row; throws std::runtime_error when the file cannot be written.
  void add(double time_s, const std::string& body, const Pose& X_WB);
  /// Flushes and closes; throws std::runtime_error when that fails.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace talus
