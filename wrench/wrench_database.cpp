// Validation and HDF5 storage of wrench-space databases (layout: docs/wrench_space.md).

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#if defined(__GNUC__) && !defined(__clang__)  // clang has no such warning (the fuzz build)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "wrench/wrench_database.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <cmath>
#include <vector>

#include "core/hdf5_handle.hpp"
#include "core/memory_budget.hpp"

namespace talus::wrench {

namespace {

std::string components_name(int dimension) {
  return dimension == 3 ? "f_x,f_z,tau_y" : "f_x,f_y,f_z,tau_x,tau_y,tau_z";
}

[[noreturn]] void fail(const std::string& where, const std::string& field,
                       const std::string& what) {
  throw DatabaseError(fmt::format("{}: {}: {}", where, field, what));
}

}  // namespace

const char* depth_reference_name(DepthReference reference) {
  return reference == DepthReference::kLowestPoint ? "lowest_point" : "bottom_centre";
}

std::optional<DepthReference> parse_depth_reference(std::string_view name) {
  for (const DepthReference r : {DepthReference::kBottomCentre, DepthReference::kLowestPoint}) {
    if (name == depth_reference_name(r)) return r;
  }
  return std::nullopt;
}

double configuration_depth(DepthReference reference, double foot_radius_m,
                           double bottom_centre_depth_m, double tilt_rad) {
  // The bottom rim's lowest point lies r sin|phi| below the centre of the tilted bottom face.
  if (reference == DepthReference::kBottomCentre) return bottom_centre_depth_m;
  return bottom_centre_depth_m - foot_radius_m * std::sin(std::abs(tilt_rad));
}

double bottom_centre_depth(DepthReference reference, double foot_radius_m, double depth_m,
                           double tilt_rad) {
  if (reference == DepthReference::kBottomCentre) return depth_m;
  return depth_m + foot_radius_m * std::sin(std::abs(tilt_rad));
}

void validate_medium(const MediumDescription& medium, const std::string& where) {
  if (medium.name.empty()) fail(where, "medium.name", "empty");
  if (!(medium.grain_radius_m > 0.0) || !std::isfinite(medium.grain_radius_m)) {
    fail(where, "medium.grain_radius_m", fmt::format("{}, expected > 0", medium.grain_radius_m));
  }
  if (!(medium.density_kg_m3 > 0.0) || !std::isfinite(medium.density_kg_m3)) {
    fail(where, "medium.density_kg_m3", fmt::format("{}, expected > 0", medium.density_kg_m3));
  }
  if (!(medium.friction >= 0.0) || !std::isfinite(medium.friction)) {
    fail(where, "medium.friction", fmt::format("{}, expected >= 0", medium.friction));
  }
}

void WrenchDatabase::validate(const std::string& where) const {
  const int D = wrench_dimension();
  const int m = direction_count();
  const int n = configuration_count();
  if (D != 3 && D != 6) {
    fail(where, "velocity_directions",
         fmt::format("expected 3 (planar) or 6 (spatial) columns, got {}", D));
  }
  if (m < 1) fail(where, "velocity_directions", "no directions");
  if (!velocity_directions.allFinite()) fail(where, "velocity_directions", "NaN or infinite entry");
  for (int i = 0; i < m; ++i) {
    const double norm = velocity_directions.row(i).norm();
    if (std::abs(norm - 1.0) > 1e-6) {
      fail(where, "velocity_directions",
           fmt::format("row {} has norm {:.9g}, expected a unit direction", i, norm));
    }
  }
  if (velocity_scale.size() != D) {
    fail(where, "velocity_scale",
         fmt::format("{} entries, but velocity_directions has {} columns", velocity_scale.size(),
                     D));
  }
  for (int k = 0; k < D; ++k) {
    if (!(velocity_scale[k] > 0.0) || !std::isfinite(velocity_scale[k])) {
      fail(where, "velocity_scale",
           fmt::format("entry {} is {}, expected > 0", k, velocity_scale[k]));
    }
  }
  if (n < 1) fail(where, "configurations", "no configurations");
  if (!configurations.allFinite()) fail(where, "configurations", "NaN or infinite entry");
  for (int j = 0; j < n; ++j) {
    if (configurations(j, 0) > 0.0) {
      fail(where, "configurations",
           fmt::format("row {} has depth {} m; depths are <= 0 (0 at the surface)", j,
                       configurations(j, 0)));
    }
    for (int k = 0; k < j; ++k) {
      if ((configurations.row(j) - configurations.row(k)).norm() < 1e-12) {
        fail(where, "configurations",
             fmt::format("rows {} and {} repeat the configuration (d = {}, phi = {})", k, j,
                         configurations(j, 0), configurations(j, 1)));
      }
    }
  }
  if (static_cast<int>(wrenches.size()) != n) {
    fail(where, "wrenches",
         fmt::format("{} configurations of wrenches, but {} configurations", wrenches.size(), n));
  }
  for (int j = 0; j < n; ++j) {
    const Eigen::MatrixXd& w = wrenches[static_cast<size_t>(j)];
    if (w.rows() != m || w.cols() != D) {
      fail(where, "wrenches",
           fmt::format("configuration {} has {}x{} wrenches, expected {}x{} (directions x "
                       "components)",
                       j, w.rows(), w.cols(), m, D));
    }
    if (!w.allFinite())
      fail(where, "wrenches", fmt::format("configuration {}: NaN or infinite", j));
  }
  if (!reference_point_m.allFinite()) fail(where, "reference_point", "NaN or infinite entry");
  if (!(foot_radius_m >= 0.0) || !std::isfinite(foot_radius_m)) {
    fail(where, "foot_radius_m", fmt::format("{}, expected >= 0", foot_radius_m));
  }
  if (depth_reference == DepthReference::kLowestPoint && !(foot_radius_m > 0.0)) {
    fail(where, "foot_radius_m",
         "depths measured at the lowest point need the foot's radius (> 0)");
  }
  validate_medium(medium, where);
}

// ---------------------------------------------------------------------------------------------
// HDF5 (C API). Handles are closed by small RAII holders; HDF5's own error printing is silenced
// and every failure is reported with the file and the object's name.

namespace {

using Handle = Hdf5Handle;

void write_dataset(hid_t file, const std::string& where, const char* name,
                   const std::vector<hsize_t>& dims, const std::vector<double>& data) {
  const Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                     H5Sclose);
  const Handle set(
      H5Dcreate2(file, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  if (!space.ok() || !set.ok() ||
      H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0) {
    throw DatabaseError(fmt::format("{}: {}: cannot write dataset", where, name));
  }
}

void write_string_attribute(hid_t object, const std::string& where, const char* name,
                            const std::string& value) {
  const Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<size_t>(1, value.size()));
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attr(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                    H5Aclose);
  std::string padded = value.empty() ? std::string(1, '\0') : value;
  if (!attr.ok() || H5Awrite(attr.get(), type.get(), padded.data()) < 0) {
    throw DatabaseError(fmt::format("{}: attribute {}: cannot write", where, name));
  }
}

void write_number_attribute(hid_t object, const std::string& where, const char* name,
                            double value) {
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attr(H5Acreate2(object, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                    H5Aclose);
  if (!attr.ok() || H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value) < 0) {
    throw DatabaseError(fmt::format("{}: attribute {}: cannot write", where, name));
  }
}

// Numbers are read as one of HDF5's standard types, which every writer (HDF5's own, h5py, MATLAB)
// uses. A type with any other precision, offset or padding is refused before HDF5 converts it:
// its conversion code trusts those fields, and a corrupted float type smashed HDF5's stack in
// H5T__bit_get_d (found by fuzz/fuzz_wrench_database).
constexpr const char* kStandardNumbers =
    "IEEE 32- or 64-bit floats or 8- to 64-bit integers, either byte order";

bool is_standard_number(hid_t type) {
  const hid_t standard[] = {H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE,
                            H5T_STD_I8LE,   H5T_STD_I8BE,   H5T_STD_U8LE,   H5T_STD_U8BE,
                            H5T_STD_I16LE,  H5T_STD_I16BE,  H5T_STD_U16LE,  H5T_STD_U16BE,
                            H5T_STD_I32LE,  H5T_STD_I32BE,  H5T_STD_U32LE,  H5T_STD_U32BE,
                            H5T_STD_I64LE,  H5T_STD_I64BE,  H5T_STD_U64LE,  H5T_STD_U64BE};
  for (const hid_t candidate : standard) {
    if (H5Tequal(type, candidate) > 0) return true;
  }
  return false;
}

// Deflate's largest expansion: one 258-byte match per 2 bits of a Huffman code comes to about
// 1032:1 (zlib's technical notes, "Maximum compression factor"). Datasets compressed with it
// cannot yield more than this many bytes per stored byte.
constexpr double kDeflateMaxExpansion = 1032.0;

// The largest factor by which a dataset's filters can expand its stored bytes; refuses filters
// talus does not read. Shuffle and Fletcher-32 do not expand data; deflate (gzip) is what h5py
// and HDF5's tools write when asked to compress.
double filter_expansion(hid_t create_plist, const std::string& where, const char* name) {
  double expansion = 1.0;
  const int filters = H5Pget_nfilters(create_plist);
  for (int k = 0; k < filters; ++k) {
    unsigned flags = 0;
    size_t values = 0;
    unsigned filter_config = 0;
    const H5Z_filter_t filter = H5Pget_filter2(create_plist, static_cast<unsigned>(k), &flags,
                                               &values, nullptr, 0, nullptr, &filter_config);
    if (filter == H5Z_FILTER_DEFLATE) {
      expansion = kDeflateMaxExpansion;
    } else if (filter != H5Z_FILTER_SHUFFLE && filter != H5Z_FILTER_FLETCHER32) {
      throw DatabaseError(fmt::format(
          "{}: {}: stored with HDF5 filter {}, which talus does not read; write it uncompressed "
          "or with gzip (deflate)",
          where, name, static_cast<int>(filter)));
    }
  }
  return expansion;
}

// A chunked dataset's chunk shape (empty for other layouts or an unreadable one).
std::vector<hsize_t> chunk_dims(hid_t create_plist, int rank) {
  if (H5Pget_layout(create_plist) != H5D_CHUNKED || rank < 1 || rank > H5S_MAX_RANK) return {};
  std::vector<hsize_t> chunk(static_cast<size_t>(rank));
  if (H5Pget_chunk(create_plist, rank, chunk.data()) != rank) return {};
  return chunk;
}

// Whether every value of the dataset is stored in the file rather than left to HDF5's fill value.
// For chunked data, H5Dget_space_status compares stored bytes with the uncompressed size and so
// calls compressed data partly allocated; the written chunks are counted instead.
bool all_data_stored(hid_t set, hid_t create_plist, const std::vector<hsize_t>& dims) {
  if (H5Pget_layout(create_plist) != H5D_CHUNKED) {
    H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
    return H5Dget_space_status(set, &status) >= 0 && status == H5D_SPACE_STATUS_ALLOCATED;
  }
  const std::vector<hsize_t> chunk = chunk_dims(create_plist, static_cast<int>(dims.size()));
  if (chunk.empty()) return false;
  double chunks_needed = 1.0;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (chunk[k] == 0) return false;
    chunks_needed *= std::ceil(static_cast<double>(dims[k]) / static_cast<double>(chunk[k]));
  }
  // HDF5 1.10 refuses H5S_ALL here: the dataset's own dataspace selects all of it.
  const Handle space(H5Dget_space(set), H5Sclose);
  hsize_t chunks_stored = 0;
  return H5Dget_num_chunks(set, space.get(), &chunks_stored) >= 0 &&
         static_cast<double>(chunks_stored) >= chunks_needed;
}

// A dataset's shape comes from the file, and so does the claim of how many bytes hold its data;
// a corrupted file can claim gigabytes in a few kilobytes (found by fuzz/fuzz_wrench_database,
// whose inputs made the loader allocate over 4 GB). Before anything is allocated for the values
// (`dims`, `value_bytes` each): all of the data must be stored (no chunk left to HDF5's fill
// value), the stored bytes must lie within the file and be able to expand to the values through
// the dataset's filters. This bounds talus's allocation for a dataset by the file's size times
// deflate's largest expansion.
void check_stored_bytes_cover(hid_t file, hid_t set, const std::string& where, const char* name,
                              const std::vector<hsize_t>& dims, size_t value_bytes) {
  double bytes = static_cast<double>(value_bytes);
  for (const hsize_t d : dims) bytes *= static_cast<double>(d);
  const Handle plist(H5Dget_create_plist(set), H5Pclose);
  if (!plist.ok()) throw DatabaseError(fmt::format("{}: {}: cannot read its layout", where, name));
  if (!all_data_stored(set, plist.get(), dims)) {
    throw DatabaseError(
        fmt::format("{}: {}: the file stores no data for some of its values; the file is "
                    "corrupted or was not completely written",
                    where, name));
  }
  const double expansion = filter_expansion(plist.get(), where, name);
  hsize_t file_bytes = 0;
  const auto stored = static_cast<double>(H5Dget_storage_size(set));
  if (H5Fget_filesize(file, &file_bytes) < 0 || stored > static_cast<double>(file_bytes) ||
      stored * expansion < bytes) {
    throw DatabaseError(fmt::format(
        "{}: {}: its shape holds {:.3g} bytes of values but the file stores {:.3g} bytes for it "
        "(the file has {}); the file is corrupted",
        where, name, bytes, stored, file_bytes));
  }
}

// Reads a dataset of doubles, checking its rank; returns dims.
std::vector<double> read_dataset(hid_t file, const std::string& where, const char* name, int rank,
                                 std::vector<hsize_t>& dims) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
    throw DatabaseError(fmt::format("{}: {}: missing dataset", where, name));
  }
  const Handle set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  if (!set.ok()) throw DatabaseError(fmt::format("{}: {}: not a dataset", where, name));
  const Handle space(H5Dget_space(set.get()), H5Sclose);
  const int actual_rank = H5Sget_simple_extent_ndims(space.get());
  if (actual_rank != rank) {
    throw DatabaseError(
        fmt::format("{}: {}: expected {} dimensions, got {}", where, name, rank, actual_rank));
  }
  dims.assign(static_cast<size_t>(rank), 0);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  const Handle type(H5Dget_type(set.get()), H5Tclose);
  if (!is_standard_number(type.get())) {
    throw DatabaseError(
        fmt::format("{}: {}: expected numbers ({})", where, name, kStandardNumbers));
  }
  // The shape comes from the file: a corrupted one can claim any size (found by
  // fuzz/fuzz_wrench_database: 1.2e17 values). Refuse what overflows or cannot fit in memory.
  double values = 1.0;
  for (const hsize_t d : dims) values *= static_cast<double>(d);
  // Every dataset of a database holds values; an empty one with a huge other dimension (found by
  // fuzz/fuzz_wrench_database: 0 x 10^18) would have the loops below run for ever on nothing.
  if (values == 0.0) {
    throw DatabaseError(fmt::format("{}: {}: holds no values (a dimension is 0)", where, name));
  }
  if (values * sizeof(double) > static_cast<double>(memory_budget_bytes())) {
    throw DatabaseError(
        fmt::format("{}: {}: its shape holds {:.3g} values, more than this machine's "
                    "memory allows; the file is corrupted",
                    where, name, values));
  }
  check_stored_bytes_cover(file, set.get(), where, name, dims, H5Tget_size(type.get()));
  const auto count = static_cast<size_t>(values);
  std::vector<double> data(count);
  if (H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0) {
    throw DatabaseError(fmt::format("{}: {}: cannot read", where, name));
  }
  return data;
}

// The attribute readers read one value: an attribute whose dataspace holds more would be read
// past the end of the one-value buffer.
void check_one_value(hid_t attr, const std::string& where, const std::string& label) {
  const Handle space(H5Aget_space(attr), H5Sclose);
  const hssize_t points = space.ok() ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (points != 1) {
    throw DatabaseError(
        fmt::format("{}: {}: expected one value, the attribute holds {}", where, label, points));
  }
}

std::string read_string_attribute(hid_t object, const std::string& where, const std::string& label,
                                  const char* name) {
  if (H5Aexists(object, name) <= 0) {
    throw DatabaseError(fmt::format("{}: {}: missing attribute", where, label));
  }
  const Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  check_one_value(attr.get(), where, label);
  const Handle file_type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_STRING) {
    throw DatabaseError(fmt::format("{}: {}: expected a string", where, label));
  }
  // The memory type takes the file's character set: h5py writes UTF-8 strings, and HDF5 will not
  // convert between UTF-8 and ASCII (reading one as the other failed with "cannot read").
  const H5T_cset_t cset = H5Tget_cset(file_type.get());
  if (H5Tis_variable_str(file_type.get()) > 0) {
    // Variable-length strings, as h5py writes them.
    const Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    if (cset >= 0) H5Tset_cset(mem.get(), cset);
    char* text = nullptr;
    if (H5Aread(attr.get(), mem.get(), &text) < 0 || text == nullptr) {
      throw DatabaseError(fmt::format("{}: {}: cannot read", where, label));
    }
    std::string out(text);
    H5free_memory(text);
    return out;
  }
  // Fixed-length: read into a null-terminated type one longer, so that a null-padded string that
  // fills its whole size keeps its last character.
  const size_t size = H5Tget_size(file_type.get());
  const Handle file(H5Iget_file_id(attr.get()), H5Fclose);
  hsize_t file_bytes = 0;
  if (!file.ok() || H5Fget_filesize(file.get(), &file_bytes) < 0 || size > file_bytes) {
    throw DatabaseError(
        fmt::format("{}: {}: a string of {} bytes in a file of {}; the file is "
                    "corrupted",
                    where, label, size, file_bytes));
  }
  const Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.get(), size + 1);
  if (cset >= 0) H5Tset_cset(mem.get(), cset);
  std::string buffer(size + 1, '\0');
  if (H5Aread(attr.get(), mem.get(), buffer.data()) < 0) {
    throw DatabaseError(fmt::format("{}: {}: cannot read", where, label));
  }
  return buffer.substr(0, buffer.find('\0'));
}

double read_number_attribute(hid_t object, const std::string& where, const std::string& label,
                             const char* name) {
  if (H5Aexists(object, name) <= 0) {
    throw DatabaseError(fmt::format("{}: {}: missing attribute", where, label));
  }
  const Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  check_one_value(attr.get(), where, label);
  const Handle file_type(H5Aget_type(attr.get()), H5Tclose);
  if (!is_standard_number(file_type.get())) {
    throw DatabaseError(
        fmt::format("{}: {}: expected a number ({})", where, label, kStandardNumbers));
  }
  double value = 0.0;
  if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value) < 0) {
    throw DatabaseError(fmt::format("{}: {}: cannot read", where, label));
  }
  return value;
}

}  // namespace

void save_database(const WrenchDatabase& db, const std::filesystem::path& path) {
  const std::string where = path.string();
  db.validate(where);
  const SilenceHdf5Errors silence;
  const Handle file(H5Fcreate(where.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) throw DatabaseError(fmt::format("{}: cannot create the file", where));
  const auto n = static_cast<size_t>(db.configuration_count());
  const auto m = static_cast<size_t>(db.direction_count());
  const auto D = static_cast<size_t>(db.wrench_dimension());

  const Handle version_space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle version(H5Acreate2(file.get(), "format_version", H5T_STD_I32LE, version_space.get(),
                                  H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose);
  const int format_version = kDatabaseFormatVersion;
  if (!version.ok() || H5Awrite(version.get(), H5T_NATIVE_INT, &format_version) < 0) {
    throw DatabaseError(fmt::format("{}: format_version: cannot write", where));
  }
  write_string_attribute(file.get(), where, "wrench_components",
                         components_name(db.wrench_dimension()));
  write_string_attribute(file.get(), where, "depth_reference",
                         depth_reference_name(db.depth_reference));
  write_number_attribute(file.get(), where, "foot_radius_m", db.foot_radius_m);

  std::vector<double> data;
  for (size_t j = 0; j < n; ++j) {
    data.push_back(db.configurations(static_cast<Eigen::Index>(j), 0));
    data.push_back(db.configurations(static_cast<Eigen::Index>(j), 1));
  }
  write_dataset(file.get(), where, "configurations", {n, 2}, data);
  data.clear();
  for (size_t i = 0; i < m; ++i) {
    for (size_t k = 0; k < D; ++k) {
      data.push_back(
          db.velocity_directions(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)));
    }
  }
  write_dataset(file.get(), where, "velocity_directions", {m, D}, data);
  write_dataset(file.get(), where, "velocity_scale", {D},
                std::vector<double>(db.velocity_scale.data(), db.velocity_scale.data() + D));
  data.clear();
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < m; ++i) {
      for (size_t k = 0; k < D; ++k) {
        data.push_back(db.wrenches[j](static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)));
      }
    }
  }
  write_dataset(file.get(), where, "wrenches", {n, m, D}, data);
  write_dataset(file.get(), where, "reference_point", {3},
                {db.reference_point_m.x(), db.reference_point_m.y(), db.reference_point_m.z()});

  const Handle medium(H5Gcreate2(file.get(), "medium", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      H5Gclose);
  if (!medium.ok()) throw DatabaseError(fmt::format("{}: medium: cannot create group", where));
  write_string_attribute(medium.get(), where, "name", db.medium.name);
  write_string_attribute(medium.get(), where, "source", db.medium.source);
  write_number_attribute(medium.get(), where, "grain_radius_m", db.medium.grain_radius_m);
  write_number_attribute(medium.get(), where, "density_kg_m3", db.medium.density_kg_m3);
  write_number_attribute(medium.get(), where, "friction", db.medium.friction);
}

WrenchDatabase load_database_at(const ScenarioTable& table, const std::string& key,
                                const std::filesystem::path& path) {
  try {
    return load_database(path);
  } catch (const std::exception& e) {
    table.fail(key, e.what());
  }
}

WrenchDatabase load_database(const std::filesystem::path& path) {
  const std::string where = path.string();
  if (!std::filesystem::exists(path)) throw DatabaseError(fmt::format("{}: no such file", where));
  const SilenceHdf5Errors silence;
  if (H5Fis_hdf5(where.c_str()) <= 0) {
    throw DatabaseError(fmt::format("{}: not an HDF5 file", where));
  }
  const Handle file(H5Fopen(where.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) throw DatabaseError(fmt::format("{}: cannot open", where));

  const double version =
      read_number_attribute(file.get(), where, "format_version", "format_version");
  if (version != 1 && version != kDatabaseFormatVersion) {
    throw DatabaseError(
        fmt::format("{}: format_version: {} is not supported (this build reads 1 to {})", where,
                    version, kDatabaseFormatVersion));
  }
  WrenchDatabase db;
  if (version >= 2) {  // version 1 had no depth reference: depths at the bottom centre
    const std::string reference =
        read_string_attribute(file.get(), where, "depth_reference", "depth_reference");
    const std::optional<DepthReference> parsed = parse_depth_reference(reference);
    if (!parsed) {
      throw DatabaseError(
          fmt::format("{}: depth_reference: \"{}\", expected \"bottom_centre\" or \"lowest_point\"",
                      where, reference));
    }
    db.depth_reference = *parsed;
    db.foot_radius_m = read_number_attribute(file.get(), where, "foot_radius_m", "foot_radius_m");
  }
  std::vector<hsize_t> dims;
  std::vector<double> data = read_dataset(file.get(), where, "configurations", 2, dims);
  if (dims[1] != 2) {
    throw DatabaseError(fmt::format("{}: configurations: expected n x 2 (depth, tilt), got {}x{}",
                                    where, dims[0], dims[1]));
  }
  const auto n = static_cast<Eigen::Index>(dims[0]);
  db.configurations.resize(n, 2);
  for (Eigen::Index j = 0; j < n; ++j) {
    db.configurations(j, 0) = data[static_cast<size_t>(2 * j)];
    db.configurations(j, 1) = data[static_cast<size_t>(2 * j + 1)];
  }
  data = read_dataset(file.get(), where, "velocity_directions", 2, dims);
  const auto m = static_cast<Eigen::Index>(dims[0]);
  const auto D = static_cast<Eigen::Index>(dims[1]);
  db.velocity_directions =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          data.data(), m, D);
  data = read_dataset(file.get(), where, "velocity_scale", 1, dims);
  db.velocity_scale =
      Eigen::Map<const Eigen::VectorXd>(data.data(), static_cast<Eigen::Index>(dims[0]));
  data = read_dataset(file.get(), where, "wrenches", 3, dims);
  if (static_cast<Eigen::Index>(dims[0]) != n || static_cast<Eigen::Index>(dims[1]) != m ||
      static_cast<Eigen::Index>(dims[2]) != D) {
    throw DatabaseError(fmt::format(
        "{}: wrenches: shape {}x{}x{}, expected {}x{}x{} (configurations x directions x "
        "components)",
        where, dims[0], dims[1], dims[2], n, m, D));
  }
  for (Eigen::Index j = 0; j < n; ++j) {
    db.wrenches.emplace_back(
        Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
            data.data() + j * m * D, m, D));
  }
  // The components' names, written beside the wrenches, must name the columns the shape holds
  // (a file of other components passed unread: "f_x,f_y" was taken as f_x, f_z, tau_y).
  if ((D == 3 || D == 6) && H5Aexists(file.get(), "wrench_components") > 0) {
    const std::string components =
        read_string_attribute(file.get(), where, "wrench_components", "wrench_components");
    if (components != components_name(static_cast<int>(D))) {
      throw DatabaseError(fmt::format(
          "{}: wrench_components: \"{}\", expected \"{}\" for wrenches of {} components", where,
          components, components_name(static_cast<int>(D)), D));
    }
  }
  data = read_dataset(file.get(), where, "reference_point", 1, dims);
  if (dims[0] != 3) {
    throw DatabaseError(
        fmt::format("{}: reference_point: expected 3 entries, got {}", where, dims[0]));
  }
  db.reference_point_m = Eigen::Vector3d(data[0], data[1], data[2]);

  if (H5Lexists(file.get(), "medium", H5P_DEFAULT) <= 0) {
    throw DatabaseError(fmt::format("{}: medium: missing group", where));
  }
  const Handle medium(H5Gopen2(file.get(), "medium", H5P_DEFAULT), H5Gclose);
  if (!medium.ok()) throw DatabaseError(fmt::format("{}: medium: not a group", where));
  db.medium.name = read_string_attribute(medium.get(), where, "medium.name", "name");
  db.medium.source = read_string_attribute(medium.get(), where, "medium.source", "source");
  db.medium.grain_radius_m =
      read_number_attribute(medium.get(), where, "medium.grain_radius_m", "grain_radius_m");
  db.medium.density_kg_m3 =
      read_number_attribute(medium.get(), where, "medium.density_kg_m3", "density_kg_m3");
  db.medium.friction = read_number_attribute(medium.get(), where, "medium.friction", "friction");
  db.validate(where);
  return db;
}

}  // namespace talus::wrench
