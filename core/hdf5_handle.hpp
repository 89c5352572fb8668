#pragma once
// RAII for HDF5's C API (wrench-space databases, sweep results): an identifier closed by its own
// close function, and HDF5's automatic error printing turned off (callers report every failure
// with the file and the object's name instead).

#include <hdf5.h>

namespace talus {

class Hdf5Handle {
 public:
  Hdf5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  ~Hdf5Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// Turns off HDF5's printing of its error stack (construct one before calling HDF5).
struct SilenceHdf5Errors {
  SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }
};

}  // namespace talus
