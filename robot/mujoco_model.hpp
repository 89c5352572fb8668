#pragma once
// A MuJoCo model (MJCF or URDF file) with its data, owned together: the rigid-body half of a
// robot coupled to a terrain tier (docs/robots.md). MuJoCo is Debian's libmujoco 2.2.2.

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct mjModel_;
struct mjData_;

namespace talus::robot {

/// A robot that cannot be used as given (file MuJoCo rejects, unknown body name, bad coupling):
/// the message names the file or the item and what was expected.
class RobotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Owns one mjModel and one mjData (freed together). Move-only.
class MujocoModel {
 public:
  /// Loads an MJCF (.xml) or URDF (.urdf) file; MuJoCo decides by the root element. A file
  /// MuJoCo rejects throws RobotError "FILE: MuJoCo rejected the model: <MuJoCo's message>"
  /// (MuJoCo's message carries the XML line for syntax and schema errors).
  static MujocoModel load(const std::filesystem::path& file);

  MujocoModel(MujocoModel&&) noexcept;
  MujocoModel& operator=(MujocoModel&&) noexcept;
  ~MujocoModel();

  const mjModel_* model() const { return model_.get(); }
  mjModel_* model() { return model_.get(); }
  const mjData_* data() const { return data_.get(); }
  mjData_* data() { return data_.get(); }
  const std::filesystem::path& file() const { return file_; }

  /// Names of all bodies (index = MuJoCo body id; body 0 is "world"), unnamed ones as "".
  std::vector<std::string> body_names() const;
  /// Names of all geoms (index = MuJoCo geom id), unnamed ones as "".
  std::vector<std::string> geom_names() const;
  /// Names of all actuators (index = MuJoCo actuator id).
  std::vector<std::string> actuator_names() const;
  /// Names of all joints (index = MuJoCo joint id).
  std::vector<std::string> joint_names() const;
  /// Body id of `name`; RobotError listing the body names when there is none.
  int body_id(const std::string& name) const;
  /// Geom id of `name`; RobotError listing the geom names when there is none.
  int geom_id(const std::string& name) const;
  /// Actuator id of `name`; RobotError listing the actuator names when there is none.
  int actuator_id(const std::string& name) const;

  /// Sum of all body masses [kg].
  double total_mass_kg() const;
  /// MuJoCo's integration time step [s] (model option timestep).
  double time_step_s() const;
  /// Sets MuJoCo's time step [s]; RobotError unless finite and > 0.
  void set_time_step_s(double dt_s);
  /// Simulated time [s].
  double time_s() const;
  /// Resets the data to the model's initial configuration (qpos0, zero velocity, time 0) and
  /// recomputes positions (mj_forward).
  void reset();

 private:
  struct FreeModel {
    void operator()(mjModel_* m) const;
  };
  struct FreeData {
    void operator()(mjData_* d) const;
  };

 public:
  /// A copy of the whole simulation state (MuJoCo's mjData: time, qpos, qvel, act, ctrl, applied
  /// forces, warm starts): restore() makes the robot continue bit for bit from it.
  class Snapshot {
   public:
    Snapshot(Snapshot&&) noexcept = default;
    Snapshot& operator=(Snapshot&&) noexcept = default;
    ~Snapshot() = default;

   private:
    friend class MujocoModel;
    Snapshot(const mjModel_* of, std::unique_ptr<mjData_, FreeData> copy)
        : model(of), data(std::move(copy)) {}
    const mjModel_* model;
    std::unique_ptr<mjData_, FreeData> data;
  };
  Snapshot snapshot() const;
  /// Puts back a snapshot of this model (RobotError for another model's).
  void restore(const Snapshot& snapshot);

 private:
  MujocoModel(std::filesystem::path file, mjModel_* m);

  std::filesystem::path file_;
  std::unique_ptr<mjModel_, FreeModel> model_;
  std::unique_ptr<mjData_, FreeData> data_;
};

/// "a, b, c" of the non-empty names (for "... exists; known: a, b, c" messages).
std::string join_names(const std::vector<std::string>& names);

}  // namespace talus::robot
