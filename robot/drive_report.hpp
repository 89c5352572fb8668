#pragma once
// Files of a driving run (paper 002 Fig. 11): drive.csv with one row per DriveSample, slip.png
// (vehicle slip [%] against driven distance) and sinkage.png (each wheel's sinkage [mm] against
// driven distance).

#include <filesystem>
#include <string>
#include <vector>

#include "core/plot.hpp"
#include "robot/drive_telemetry.hpp"

namespace talus::robot {

/// slip.png's chart of `slip_percent` (slip [%] against driven distance [m]): its y axis follows
/// the data, or shows -100 to 100 % with a label saying so when a sample lies outside (slip
/// divides by the rim speed, which is near zero while a wheel lands and settles). The title names
/// the run (`run_name`, e.g. the scenario's name) when one is given.
PlotSpec slip_plot(const PlotSeries& slip_percent, const std::string& run_name = "");

/// Writes drive.csv, slip.png and sinkage.png into `dir` (which must exist). drive.csv columns:
/// t_s, distance_m, speed_m_per_s, wheel_speed_rad_per_s, slip, then sinkage_<wheel>_m per
/// wheel. Throws std::invalid_argument when a sample's sinkage count differs from the wheel
/// names, std::runtime_error (naming the path) when a file cannot be written. Both plots' titles
/// name `run_name` when one is given.
void write_drive_report(const std::filesystem::path& dir, const std::vector<DriveSample>& samples,
                        const std::vector<std::string>& wheel_names,
                        const std::string& run_name = "");

}  // namespace talus::robot
