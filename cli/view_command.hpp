#pragma once
// `talus view RUN_DIR [--port N]`: serves a finished run to a web browser on this machine
// (docs/viewer.md). The page is the viewer bundle built from viewer/ by `make` (Node.js); the
// run's files are served read-only, and only those under the run folder.

#include <filesystem>

namespace talus {

struct ViewCommandOptions {
  std::filesystem::path run_dir;
  int port = 0;  ///< 0: the system picks a free port
};

/// Checks the run (core/view_check.hpp), binds 127.0.0.1, prints the address and serves until
/// SIGINT, SIGTERM or SIGHUP. Returns the process exit code: 0 after a signal, 2 for a run that
/// cannot be viewed or a port in use, 1 when the viewer's page was not built.
int run_view_command(const ViewCommandOptions& options);

}  // namespace talus
