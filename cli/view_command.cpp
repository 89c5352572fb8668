#include "cli/view_command.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "core/view_check.hpp"

#ifndef TALUS_VIEWER_BUNDLE_DIR
#define TALUS_VIEWER_BUNDLE_DIR ""
#endif

namespace talus {
namespace fs = std::filesystem;
namespace {

// Where the built page is: TALUS_VIEWER_DIR when set (an installed talus, tests), else the build
// folder's viewer/ that `make` wrote.
fs::path bundle_dir() {
  if (const char* dir = std::getenv("TALUS_VIEWER_DIR"); dir && *dir) return dir;
  return TALUS_VIEWER_BUNDLE_DIR;
}

std::string content_type(const fs::path& file) {
  static const std::map<std::string, std::string> types = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".png", "image/png"},
      {".csv", "text/csv; charset=utf-8"},
      {".svg", "image/svg+xml"}};
  const auto it = types.find(file.extension().string());
  return it == types.end() ? "application/octet-stream" : it->second;
}

// `request_path` (decoded, after the route's prefix) as a file under `root`, or nothing when it
// would leave it: a "..", a root, a backslash or NUL, or a link that resolves outside.
std::optional<fs::path> file_under(const fs::path& root, const std::string& request_path) {
  if (request_path.find('\0') != std::string::npos ||
      request_path.find('\\') != std::string::npos) {
    return std::nullopt;
  }
  const fs::path relative(request_path);
  if (relative.has_root_path()) return std::nullopt;
  for (const fs::path& part : relative) {
    if (part == "..") return std::nullopt;
  }
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return std::nullopt;
  const fs::path real_file = fs::weakly_canonical(real_root / relative, ec);
  if (ec) return std::nullopt;
  const auto [root_end, unused] =
      std::mismatch(real_root.begin(), real_root.end(), real_file.begin(), real_file.end());
  if (root_end != real_root.end()) return std::nullopt;
  return real_file;
}

void send_file(const fs::path& root, const std::string& request_path, httplib::Response& res) {
  const std::optional<fs::path> file = file_under(root, request_path);
  if (!file) {
    res.status = 403;
    res.set_content("refused: the path leaves the served folder\n", "text/plain");
    return;
  }
  std::error_code ec;
  if (!fs::is_regular_file(*file, ec)) {
    res.status = 404;
    res.set_content(fmt::format("not found: {}\n", request_path), "text/plain");
    return;
  }
  std::ifstream in(*file, std::ios::binary);
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    res.status = 500;
    res.set_content(fmt::format("cannot read {}\n", request_path), "text/plain");
    return;
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_content(std::move(body), content_type(*file));
}

// Whether a request's Host header names this server (127.0.0.1 or localhost, with its port or
// none). A page of another site whose name its DNS points at 127.0.0.1 (DNS rebinding) could
// otherwise read the run through the visitor's browser; its requests carry that name.
bool host_is_local(const std::string& host, int port) {
  const std::string with_port = fmt::format(":{}", port);
  for (const char* name : {"127.0.0.1", "localhost"}) {
    if (host == name || host == name + with_port) return true;
  }
  return false;
}

}  // namespace

int run_view_command(const ViewCommandOptions& options) {
  ViewRunInfo info;
  try {
    info = check_view_run(options.run_dir);
  } catch (const ViewRunError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  const fs::path bundle = bundle_dir();
  std::error_code ec;
  if (bundle.empty() || !fs::is_regular_file(bundle / "index.html", ec)) {
    std::fprintf(stderr,
                 "error: the viewer's page is not built (no '%s'): build talus with Node.js "
                 "installed (scripts/install-deps.sh, then make), or set TALUS_VIEWER_DIR to a "
                 "built viewer folder\n",
                 (bundle / "index.html").string().c_str());
    return 1;
  }
  const fs::path run_dir = fs::absolute(options.run_dir);

  // Signals are taken by a thread of ours (sigwait), so that the server threads, which inherit
  // this mask, never run a handler; the thread stops the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop_signals, sig);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  httplib::Server server;
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, which lets a second server take
  // a port already in use instead of failing.
  server.set_socket_options([](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  int port = options.port;
  server.set_pre_routing_handler([&port](const httplib::Request& req, httplib::Response& res) {
    const std::string host = req.get_header_value("Host");
    if (host_is_local(host, port)) return httplib::Server::HandlerResponse::Unhandled;
    res.status = 403;
    res.set_content(
        fmt::format("refused: Host '{}' is not this server (127.0.0.1:{})\n", host, port),
        "text/plain");
    return httplib::Server::HandlerResponse::Handled;
  });
  server.Get(R"(/run/(.*))", [&](const httplib::Request& req, httplib::Response& res) {
    send_file(run_dir, req.matches[1], res);
  });
  server.Get(R"(/(.*))", [&](const httplib::Request& req, httplib::Response& res) {
    const std::string path = req.matches[1];
    send_file(bundle, path.empty() ? "index.html" : path, res);
  });

  if (port == 0) {
    port = server.bind_to_any_port("127.0.0.1");
    if (port < 0) {
      std::fprintf(stderr, "error: no free port on 127.0.0.1\n");
      return 2;
    }
  } else if (!server.bind_to_port("127.0.0.1", port)) {
    std::fprintf(stderr,
                 "error: port %d on 127.0.0.1 is in use (or not allowed): pick another with "
                 "--port, or leave it out and let the system choose\n",
                 port);
    return 2;
  }
  std::printf("talus view: %s (%s, %zu frames%s) at http://127.0.0.1:%d/  (Ctrl-C stops)\n",
              run_dir.string().c_str(), info.tier.c_str(), info.frame_count,
              info.case_count > 0 ? fmt::format(", {} cases", info.case_count).c_str() : "", port);
  std::fflush(stdout);

  std::atomic<int> stopped_by{0};
  std::thread watcher([&] {
    int sig = 0;
    while (sigwait(&stop_signals, &sig) != 0) {
    }
    stopped_by.store(sig);
    server.stop();
  });
  const bool served = server.listen_after_bind();
  if (stopped_by.load() == 0) {
    // The server ended by itself (a socket error): wake the watcher so it can be joined.
    pthread_kill(watcher.native_handle(), SIGTERM);
  }
  watcher.join();
  if (!served && stopped_by.load() == 0) {
    std::fprintf(stderr, "error: the server on port %d stopped unexpectedly\n", port);
    return 1;
  }
  std::printf("talus view: stopped\n");
  return 0;
}

}  // namespace talus
