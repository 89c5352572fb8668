#pragma once
// Writing JSON values, tables of columns and arrays into HDF5 groups, in the types h5py and
// MATLAB read without help: float64 and int64 numbers, UTF-8 variable-length strings, booleans as
// h5py's enum {FALSE, TRUE} of int8.

#include <hdf5.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace talus::sweep {

/// An HDF5 link name for `key`: '/' (HDF5's path separator) becomes '_', an empty name or "."
/// becomes "_".
std::string hdf5_name(const std::string& key);

/// Writes `value` as `name` under `parent`: an object becomes a group of its members, a number,
/// string or boolean a scalar dataset, an array of numbers (or of equal-length arrays of numbers)
/// a float64 (or int64) dataset of rank 1 (2), an array of strings or booleans a rank-1 dataset,
/// any other array a group with members "0", "1", ...; null an empty dataset. Throws
/// std::runtime_error naming `where` and the object when HDF5 fails.
void write_json(hid_t parent, const std::string& name, const nlohmann::json& value,
                const std::string& where);

/// Writes a float64 dataset of `shape` (C order).
void write_doubles(hid_t parent, const std::string& name, const std::vector<double>& data,
                   const std::vector<std::size_t>& shape, const std::string& where);

/// Writes a rank-1 dataset of UTF-8 strings.
void write_strings(hid_t parent, const std::string& name, const std::vector<std::string>& data,
                   const std::string& where);

/// Writes a UTF-8 string attribute, or an int64 or float64 one.
void write_attribute(hid_t object, const std::string& name, const std::string& value,
                     const std::string& where);
void write_attribute(hid_t object, const std::string& name, long long value,
                     const std::string& where);
void write_attribute(hid_t object, const std::string& name, double value, const std::string& where);

/// Reads a string attribute; false when `object` has none by that name or it is not a string.
bool read_string_attribute(hid_t object, const std::string& name, std::string& value);

/// Creates the group `name` under `parent` (and its missing parents, for "a/b/c").
hid_t create_group(hid_t parent, const std::string& name, const std::string& where);

}  // namespace talus::sweep
