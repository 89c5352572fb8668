#include "robot/mujoco_model.hpp"

#include <mujoco/mujoco.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <regex>

namespace talus::robot {

namespace {

// MuJoCo's default handlers append every warning and error to MUJOCO_LOG.TXT in the current
// folder, a file the user owns, and print on stdout, which may carry a tool's own output. talus's
// messages go to stderr, and so do MuJoCo's.
void warn_on_stderr(const char* message) { std::fprintf(stderr, "MuJoCo warning: %s\n", message); }

// MuJoCo cannot go on after an error (its state is left half-written): say it on stderr and end
// the process with exit status 1, as MuJoCo's default handler does, but without its log file.
[[noreturn]] void fail_on_stderr(const char* message) {
  std::fprintf(stderr, "MuJoCo error: %s\n", message);
  std::fflush(stderr);
  std::exit(1);
}

void send_mujoco_messages_to_stderr() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    mju_user_warning = warn_on_stderr;
    mju_user_error = fail_on_stderr;
  });
}

}  // namespace

void MujocoModel::FreeModel::operator()(mjModel* m) const { mj_deleteModel(m); }
void MujocoModel::FreeData::operator()(mjData* d) const { mj_deleteData(d); }

MujocoModel::MujocoModel(std::filesystem::path file, mjModel* m)
    : file_(std::move(file)), model_(m), data_(mj_makeData(m)) {
  if (!data_) throw RobotError(file_.string() + ": MuJoCo could not allocate the model's data");
  mj_forward(model_.get(), data_.get());
}

MujocoModel::MujocoModel(MujocoModel&&) noexcept = default;
MujocoModel& MujocoModel::operator=(MujocoModel&&) noexcept = default;
MujocoModel::~MujocoModel() = default;

MujocoModel MujocoModel::load(const std::filesystem::path& file) {
  send_mujoco_messages_to_stderr();
  // MuJoCo's own message for a missing file is "resource not found via provider or OS
  // filesystem"; say it in our words, with the path.
  if (std::filesystem::is_directory(file)) {
    throw RobotError(file.string() + ": is a folder (expected an MJCF or URDF file)");
  }
  if (!std::filesystem::is_regular_file(file)) {
    throw RobotError(file.string() + ": no such robot file (expected an MJCF or URDF file)");
  }
  if (std::filesystem::file_size(file) == 0) {
    throw RobotError(file.string() + ": the file is empty (expected an MJCF or URDF file)");
  }
  std::array<char, 1000> error{};
  mjModel* m = mj_loadXML(file.string().c_str(), nullptr, error.data(), int(error.size()));
  if (!m) {
    // MuJoCo's message spans lines and says "Line number=N" (XML syntax, from TinyXML) or
    // "line N" (schema and compiler errors); lead with "FILE:N:" like every talus message.
    std::string message = std::regex_replace(std::string(error.data()), std::regex("\\s+"), " ");
    while (!message.empty() && message.back() == ' ') message.pop_back();
    std::smatch line;
    std::string where = file.string();
    // Line 0 is TinyXML's "no line" (a document with nothing to parse): no place to name.
    if (std::regex_search(message, line, std::regex("[Ll]ine(?: number)?[ =]([0-9]+)")) &&
        std::stoi(line[1].str()) > 0) {
      where += ":" + line[1].str();
    }
    throw RobotError(where + ": MuJoCo rejected the model: " +
                     (message.empty() ? std::string("(no message)") : message));
  }
  return MujocoModel(file, m);
}

namespace {

std::vector<std::string> names_of(const mjModel* m, int type, int count) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const char* n = mj_id2name(m, type, i);
    names.emplace_back(n ? n : "");
  }
  return names;
}

int id_of(const mjModel* m, int type, const std::string& name, const char* what,
          const std::vector<std::string>& known, const std::filesystem::path& file) {
  const int id = name.empty() ? -1 : mj_name2id(m, type, name.c_str());
  if (id < 0) {
    const std::string plural = std::string(what) == "body" ? "bodies" : std::string(what) + "s";
    throw RobotError(file.string() + ": no " + what + " named '" + name + "'; the model's " +
                     plural + " are: " + join_names(known));
  }
  return id;
}

}  // namespace

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (n.empty()) continue;
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out.empty() ? std::string("(none named)") : out;
}

std::vector<std::string> MujocoModel::body_names() const {
  return names_of(model_.get(), mjOBJ_BODY, model_->nbody);
}
std::vector<std::string> MujocoModel::geom_names() const {
  return names_of(model_.get(), mjOBJ_GEOM, model_->ngeom);
}
std::vector<std::string> MujocoModel::actuator_names() const {
  return names_of(model_.get(), mjOBJ_ACTUATOR, model_->nu);
}
std::vector<std::string> MujocoModel::joint_names() const {
  return names_of(model_.get(), mjOBJ_JOINT, model_->njnt);
}

int MujocoModel::body_id(const std::string& name) const {
  return id_of(model_.get(), mjOBJ_BODY, name, "body", body_names(), file_);
}
int MujocoModel::geom_id(const std::string& name) const {
  return id_of(model_.get(), mjOBJ_GEOM, name, "geom", geom_names(), file_);
}
int MujocoModel::actuator_id(const std::string& name) const {
  return id_of(model_.get(), mjOBJ_ACTUATOR, name, "actuator", actuator_names(), file_);
}

double MujocoModel::total_mass_kg() const { return mj_getTotalmass(model_.get()); }
double MujocoModel::time_step_s() const { return model_->opt.timestep; }
void MujocoModel::set_time_step_s(double dt_s) {
  if (!std::isfinite(dt_s) || dt_s <= 0.0) {
    throw RobotError(file_.string() + ": time step must be a finite number > 0 [s], got " +
                     std::to_string(dt_s));
  }
  model_->opt.timestep = dt_s;
}
double MujocoModel::time_s() const { return data_->time; }

MujocoModel::Snapshot MujocoModel::snapshot() const {
  std::unique_ptr<mjData, FreeData> copy(mj_makeData(model_.get()));
  if (!copy) throw RobotError(file_.string() + ": MuJoCo could not allocate a snapshot's data");
  mj_copyData(copy.get(), model_.get(), data_.get());
  return Snapshot(model_.get(), std::move(copy));
}

void MujocoModel::restore(const Snapshot& snapshot) {
  if (snapshot.model != model_.get()) {
    throw RobotError(file_.string() + ": restore: the snapshot was taken of another model");
  }
  mj_copyData(data_.get(), model_.get(), snapshot.data.get());
}

void MujocoModel::reset() {
  mj_resetData(model_.get(), data_.get());
  mj_forward(model_.get(), data_.get());
}

}  // namespace talus::robot
