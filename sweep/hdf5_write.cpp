#include "sweep/hdf5_write.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>

#include "core/hdf5_handle.hpp"

namespace talus::sweep {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& name, const char* what) {
  throw std::runtime_error(fmt::format("{}: {}: cannot write {}", where, name, what));
}

hid_t utf8_string_type() {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  return type;
}

// h5py's boolean: an enum of int8 with members FALSE = 0 and TRUE = 1.
hid_t bool_type() {
  const hid_t type = H5Tenum_create(H5T_NATIVE_INT8);
  const std::int8_t no = 0;
  const std::int8_t yes = 1;
  H5Tenum_insert(type, "FALSE", &no);
  H5Tenum_insert(type, "TRUE", &yes);
  return type;
}

void write_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type,
                   const std::vector<hsize_t>& dims, const void* data, const std::string& where) {
  const Hdf5Handle space(
      dims.empty() ? H5Screate(H5S_SCALAR)
                   : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
      H5Sclose);
  const Hdf5Handle set(H5Dcreate2(parent, hdf5_name(name).c_str(), file_type, space.get(),
                                  H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       H5Dclose);
  if (!space.ok() || !set.ok() ||
      H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    fail(where, name, "dataset");
  }
}

bool all_of(const nlohmann::json& array, bool (nlohmann::json::*test)() const noexcept) {
  for (const auto& item : array) {
    if (!(item.*test)()) return false;
  }
  return true;
}

// A rectangular array of arrays of numbers: its (rows, columns), or {0, 0} when it is not one.
std::pair<std::size_t, std::size_t> matrix_shape(const nlohmann::json& array) {
  if (array.empty() || !array[0].is_array() || array[0].empty()) return {0, 0};
  const std::size_t columns = array[0].size();
  for (const auto& row : array) {
    if (!row.is_array() || row.size() != columns || !all_of(row, &nlohmann::json::is_number)) {
      return {0, 0};
    }
  }
  return {array.size(), columns};
}

void write_array(hid_t parent, const std::string& name, const nlohmann::json& array,
                 const std::string& where) {
  if (all_of(array, &nlohmann::json::is_number)) {
    if (!array.empty() && all_of(array, &nlohmann::json::is_number_integer)) {
      std::vector<long long> data;
      for (const auto& v : array) data.push_back(v.get<long long>());
      write_dataset(parent, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, {data.size()}, data.data(),
                    where);
    } else {
      std::vector<double> data;
      for (const auto& v : array) data.push_back(v.get<double>());
      write_doubles(parent, name, data, {data.size()}, where);
    }
  } else if (const auto [rows, columns] = matrix_shape(array); rows > 0) {
    std::vector<double> data;
    for (const auto& row : array) {
      for (const auto& v : row) data.push_back(v.get<double>());
    }
    write_doubles(parent, name, data, {rows, columns}, where);
  } else if (all_of(array, &nlohmann::json::is_string)) {
    std::vector<std::string> data;
    for (const auto& v : array) data.push_back(v.get<std::string>());
    write_strings(parent, name, data, where);
  } else if (all_of(array, &nlohmann::json::is_boolean)) {
    std::vector<std::int8_t> data;
    for (const auto& v : array) data.push_back(v.get<bool>() ? 1 : 0);
    const Hdf5Handle type(bool_type(), H5Tclose);
    write_dataset(parent, name, type.get(), type.get(), {data.size()}, data.data(), where);
  } else {
    const Hdf5Handle group(create_group(parent, name, where), H5Gclose);
    for (std::size_t i = 0; i < array.size(); ++i) {
      write_json(group.get(), std::to_string(i), array[i], where);
    }
  }
}

void write_scalar_attribute(hid_t object, const std::string& name, hid_t file_type,
                            hid_t memory_type, const void* value, const std::string& where) {
  const Hdf5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Hdf5Handle attr(
      H5Acreate2(object, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.ok() || H5Awrite(attr.get(), memory_type, value) < 0) fail(where, name, "attribute");
}

}  // namespace

std::string hdf5_name(const std::string& key) {
  if (key.empty() || key == ".") return "_";
  std::string name = key;
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  return name;
}

hid_t create_group(hid_t parent, const std::string& name, const std::string& where) {
  const Hdf5Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(links.get(), 1);
  const hid_t group = H5Gcreate2(parent, name.c_str(), links.get(), H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) fail(where, name, "group");
  return group;
}

void write_doubles(hid_t parent, const std::string& name, const std::vector<double>& data,
                   const std::vector<std::size_t>& shape, const std::string& where) {
  const std::vector<hsize_t> dims(shape.begin(), shape.end());
  write_dataset(parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims, data.data(), where);
}

void write_strings(hid_t parent, const std::string& name, const std::vector<std::string>& data,
                   const std::string& where) {
  std::vector<const char*> pointers;
  for (const std::string& s : data) pointers.push_back(s.c_str());
  const Hdf5Handle type(utf8_string_type(), H5Tclose);
  write_dataset(parent, name, type.get(), type.get(), {data.size()}, pointers.data(), where);
}

void write_json(hid_t parent, const std::string& name, const nlohmann::json& value,
                const std::string& where) {
  if (value.is_object()) {
    const Hdf5Handle group(create_group(parent, hdf5_name(name), where), H5Gclose);
    for (const auto& [key, member] : value.items()) write_json(group.get(), key, member, where);
  } else if (value.is_array()) {
    write_array(parent, name, value, where);
  } else if (value.is_number_integer()) {
    const long long v = value.get<long long>();
    write_dataset(parent, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, {}, &v, where);
  } else if (value.is_number()) {
    const double v = value.get<double>();
    write_dataset(parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &v, where);
  } else if (value.is_boolean()) {
    const std::int8_t v = value.get<bool>() ? 1 : 0;
    const Hdf5Handle type(bool_type(), H5Tclose);
    write_dataset(parent, name, type.get(), type.get(), {}, &v, where);
  } else if (value.is_string()) {
    const std::string text = value.get<std::string>();
    const char* pointer = text.c_str();
    const Hdf5Handle type(utf8_string_type(), H5Tclose);
    write_dataset(parent, name, type.get(), type.get(), {}, &pointer, where);
  } else {  // null: an empty dataset (h5py reads h5py.Empty)
    const Hdf5Handle space(H5Screate(H5S_NULL), H5Sclose);
    const Hdf5Handle set(H5Dcreate2(parent, hdf5_name(name).c_str(), H5T_IEEE_F64LE, space.get(),
                                    H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Dclose);
    if (!set.ok()) fail(where, name, "dataset");
  }
}

void write_attribute(hid_t object, const std::string& name, const std::string& value,
                     const std::string& where) {
  const Hdf5Handle type(utf8_string_type(), H5Tclose);
  const char* pointer = value.c_str();
  write_scalar_attribute(object, name, type.get(), type.get(), &pointer, where);
}

void write_attribute(hid_t object, const std::string& name, long long value,
                     const std::string& where) {
  write_scalar_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value, where);
}

void write_attribute(hid_t object, const std::string& name, double value,
                     const std::string& where) {
  write_scalar_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, where);
}

bool read_string_attribute(hid_t object, const std::string& name, std::string& value) {
  if (H5Aexists(object, name.c_str()) <= 0) return false;
  const Hdf5Handle attr(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose);
  const Hdf5Handle file_type(attr.ok() ? H5Aget_type(attr.get()) : -1, H5Tclose);
  const Hdf5Handle space(attr.ok() ? H5Aget_space(attr.get()) : -1, H5Sclose);
  if (!file_type.ok() || !space.ok() || H5Tget_class(file_type.get()) != H5T_STRING ||
      H5Tis_variable_str(file_type.get()) <= 0 ||
      H5Sget_simple_extent_type(space.get()) != H5S_SCALAR) {
    return false;  // talus writes only scalar variable-length strings
  }
  const Hdf5Handle memory(utf8_string_type(), H5Tclose);
  char* text = nullptr;
  if (H5Aread(attr.get(), memory.get(), &text) < 0 || text == nullptr) return false;
  value = text;
  H5free_memory(text);
  return true;
}

}  // namespace talus::sweep
