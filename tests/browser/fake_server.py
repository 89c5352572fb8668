#!/usr/bin/python3
"""A stand-in for `talus view OUT_DIR`'s HTTP server, for testing the viewer page.

Same URL layout as the real server:
  /, /index.html and every other file of the built bundle folder, at the root;
  /run/<path>: the file OUT/<path> of the run folder; a missing file is HTTP 404.

Usage: fake_server.py --bundle DIR --run OUT [--port 0] [--host 127.0.0.1]
Prints "serving http://HOST:PORT/" on stdout once listening (port 0 picks a free one).
Python standard library only.
"""

import argparse
import http.server
import os
import posixpath
import sys
import urllib.parse

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".png": "image/png",
    ".css": "text/css; charset=utf-8",
}


def resolve(root, rel):
    """The file under root named by the URL path rel, or None if it leaves root or is not a file."""
    parts = [p for p in posixpath.normpath("/" + rel).split("/") if p]
    if any(p in ("..", ".") for p in parts):
        return None
    path = os.path.join(root, *parts)
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != real_root and not real.startswith(real_root + os.sep):
        return None
    return real if os.path.isfile(real) else None


def make_handler(bundle, run, verbose):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            if verbose:
                super().log_message(fmt, *args)

        def target(self):
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            if path.startswith("/run/"):
                return resolve(run, path[len("/run/"):])
            if path in ("/", ""):
                path = "/index.html"
            return resolve(bundle, path)

        def send(self, head_only):
            file = self.target()
            if file is None:
                body = b"not found\n"
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head_only:
                    self.wfile.write(body)
                return
            with open(file, "rb") as f:
                data = f.read()
            self.send_response(200)
            ext = os.path.splitext(file)[1]
            self.send_header("Content-Type", TYPES.get(ext, "application/octet-stream"))
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            if not head_only:
                self.wfile.write(data)

        def do_GET(self):
            self.send(False)

        def do_HEAD(self):
            self.send(True)

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle", required=True, help="the built viewer folder (index.html, viewer.js)")
    ap.add_argument("--run", required=True, help="the run folder OUT (holds view/manifest.json)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="log every request on stderr")
    args = ap.parse_args()
    handler = make_handler(os.path.abspath(args.bundle), os.path.abspath(args.run), args.verbose)
    server = http.server.ThreadingHTTPServer((args.host, args.port), handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    print(f"serving http://{host}:{port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
