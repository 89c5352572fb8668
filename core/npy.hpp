#pragma once
// Writes arrays in NumPy's .npy format (version 1.0), so Python users can np.load() a run's
// fields without talus installed. Hand-written: the format is a short header and raw
// little-endian data, and no Debian C++ package writes it.

#include <filesystem>
#include <vector>

namespace talus {

/// Writes a C-order float64 array of the given shape (e.g. {ny, nx}) to `path`. Throws
/// std::runtime_error naming the path on I/O errors, std::invalid_argument when the shape does not
/// match the data's size.
void write_npy(const std::filesystem::path& path, const std::vector<double>& data,
               const std::vector<std::size_t>& shape);

}  // namespace talus
