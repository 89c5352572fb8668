"""What a run records for `talus view` (docs/viewer.md), read back by talus.view (an independent
reader of the format), and `talus view` itself: it serves the run and the page on 127.0.0.1 only,
refuses paths out of the run, refuses runs it cannot show and ports in use (exit 2), writes
nothing into the run, and stops cleanly on Ctrl-C."""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
from pathlib import Path

import numpy as np
import pytest

import talus as talus_package
from talus import view

CLI = os.environ.get("TALUS_CLI", "build/bin/talus")
SOURCE = Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))

# One shipped scenario per recording path: particles, shaping, SCM, robots on SCM, robots on the
# wrench tier, and the wrench tier's runs of several cases.
SHIPPED = {
    "particles": "scenarios/particles/pile.toml",
    "shaping": "scenarios/shaping/trench_letter_A.toml",
    "scm_blade": "scenarios/scm/blade.toml",
    "robots_scm": "scenarios/robots/wheel_rig_scm.toml",
    "robots_wrench": "scenarios/robots/foot_drop_wrench.toml",
    "wrench_cases": "scenarios/wrench/quadruped.toml",
}


def talus(*args, **kwargs):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=600,
                          **kwargs)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("view_runs")
    done = {}
    for key, scenario in SHIPPED.items():
        result = talus("run", SOURCE / scenario, "--out", out / key, "-q")
        assert result.returncode == 0, result.stderr
        done[key] = out / key
    return done


def listing(folder: Path):
    return sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*"))


@pytest.mark.parametrize("key", list(SHIPPED))
def test_every_tier_records_frames_that_read_back(runs, key):
    run = view.load(runs[key])
    m = run.manifest
    assert len(run) >= 50
    assert np.all(np.diff(run.times_s) > 0)
    lo, hi = np.array(m["bounds_m"]["lo"]), np.array(m["bounds_m"]["hi"])
    assert np.all(lo < hi)
    for k in (0, len(run) // 2, len(run) - 1):
        f = run.frame(k)
        assert f.time_s == run.times_s[k]
        assert f.poses.shape == (len(m["bodies"]), 7)
        assert np.allclose(np.linalg.norm(f.poses[:, 3:], axis=1), 1.0, atol=1e-5)
        if m["particles"]:
            assert f.positions_m.shape == (m["particles"]["count"], 3)
            r = m["particles"]["radius_m"]
            assert np.all(f.positions_m >= lo - 1e-6) and np.all(f.positions_m <= hi + r + 1e-6)
            assert np.all(f.speeds_m_per_s >= 0)
        if m["heightmap"]:
            assert f.heights_m.shape == (m["heightmap"]["ny"], m["heightmap"]["nx"])
            assert np.all(np.isfinite(f.heights_m))
    for plot in m["plots"]:
        assert (runs[key] / plot).is_file(), plot


def test_a_particle_run_shows_the_grains_falling(runs):
    run = view.load(runs["particles"])
    first, last = run.frame(0), run.frame(len(run) - 1)
    assert last.positions_m[:, 2].mean() < first.positions_m[:, 2].mean() - 0.01


def test_the_rig_wheel_turns_and_ruts_the_soil(runs):
    run = view.load(runs["robots_scm"])
    names = [b["name"] for b in run.manifest["bodies"]]
    first, last = run.frame(0), run.frame(len(run) - 1)
    assert last.heights_m.min() < first.heights_m.min() - 0.005  # a rut
    assert not np.allclose(first.poses, last.poses)
    assert len(names) == len(set(names))


def test_the_blade_pushes_a_hill_up_in_the_soil(runs):
    run = view.load(runs["scm_blade"])
    first, last = run.frame(0), run.frame(len(run) - 1)
    assert last.heights_m.max() > first.heights_m.max() + 0.02
    assert last.poses[0, 0] > first.poses[0, 0] + 0.1  # the blade moved along +x


def test_a_run_of_cases_lists_each_case(runs):
    run = view.load(runs["wrench_cases"])
    cases = run.cases()
    assert [c["name"] for c in run.manifest["cases"]] == ["push_front", "trot",
                                                           "slope_drop_pebbles", "slope_drop_sand"]
    assert run.manifest["frames"] == cases[0].manifest["frames"]
    for case in cases:
        assert len(case) >= 50
        case.frame(len(case) - 1)


def write_scenario(tmp_path, view_table):
    text = (SOURCE / SHIPPED["shaping"]).read_text()
    path = tmp_path / "letter.toml"
    path.write_text(text.replace('"../../', f'"{SOURCE}/') + "\n" + view_table)
    return path


def test_the_view_table_sets_the_frames_and_refuses_unknown_keys(tmp_path):
    few = write_scenario(tmp_path, "[view]\nframes = 5\nquantised = true\n")
    assert talus("run", few, "--out", tmp_path / "few", "-q").returncode == 0
    assert 5 <= len(view.load(tmp_path / "few")) <= 7
    none = write_scenario(tmp_path, "[view]\nframes = 0\n")
    assert talus("run", none, "--out", tmp_path / "none", "-q").returncode == 0
    assert not (tmp_path / "none" / "view").exists()
    bad = write_scenario(tmp_path, "[view]\nframe = 5\n")
    result = talus("check", bad)
    assert result.returncode == 2
    assert re.search(r"letter\.toml:\d+:\d+: view\.frame: unknown key", result.stderr), result.stderr


@pytest.fixture
def bundle(tmp_path):
    page = tmp_path / "bundle"
    page.mkdir()
    (page / "index.html").write_text("<!doctype html><title>talus view</title>")
    (page / "viewer.js").write_text("// the page")
    return page


class Served:
    """`talus view` on a run, its address read from its first line."""

    def __init__(self, run_dir, bundle, *extra):
        env = dict(os.environ, TALUS_VIEWER_DIR=str(bundle))
        self.proc = subprocess.Popen([CLI, "view", str(run_dir), *extra], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line + self.proc.stderr.read()
        self.port = int(match.group(1))

    def get(self, path, host=None):
        """Sends `path` exactly as written (no client-side normalisation of '..'); `host` replaces
        the Host header http.client sends (127.0.0.1:port)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request("GET", path, headers={"Host": host} if host else {})
        response = connection.getresponse()
        return response.status, response.read()

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=10)
        return self.proc.returncode, out, err


def test_talus_view_serves_the_page_and_the_run_and_nothing_else(runs, bundle, tmp_path):
    run_dir = runs["particles"]
    (tmp_path / "secret.txt").write_text("not the run's")
    before = listing(run_dir)
    served = Served(run_dir, bundle)
    try:
        assert served.get("/") == (200, (bundle / "index.html").read_bytes())
        assert served.get("/viewer.js") == (200, b"// the page")
        status, body = served.get("/run/view/manifest.json")
        assert status == 200 and body == (run_dir / "view/manifest.json").read_bytes()
        status, body = served.get("/run/view/frames/000003.tvf")
        assert status == 200 and view.parse_frame(body).index == 3
        assert served.get("/run/view/frames/999999.tvf")[0] == 404
        for escape in ("/run/../secret.txt", "/run/view/../../secret.txt", "/run/%2e%2e/secret.txt",
                       "/../secret.txt", "/run//etc/passwd", "/run/view%5c..%5c..%5csecret.txt"):
            status, body = served.get(escape)
            assert status in (400, 403, 404) and b"not the run's" not in body, escape
        # A page of another site that points its name at 127.0.0.1 (DNS rebinding) is refused:
        # its requests name that site in Host.
        for host in ("evil.example", f"evil.example:{served.port}", "127.0.0.1.evil.example"):
            status, body = served.get("/run/view/manifest.json", host=host)
            assert status == 403 and b"is not this server" in body, host
        assert served.get("/", host=f"localhost:{served.port}")[0] == 200
        # The server is on the loopback address only.
        outside = [a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
                   if not a[4][0].startswith("127.")]
        for address in outside[:1]:
            with pytest.raises(OSError):
                socket.create_connection((address, served.port), timeout=2).close()
    finally:
        code, out, err = served.stop()
    assert code == 0, err
    assert "stopped" in out
    assert listing(run_dir) == before


def test_talus_view_refuses_a_link_out_of_the_run(runs, bundle, tmp_path):
    run_dir = tmp_path / "linked"
    subprocess.run(["cp", "-r", str(runs["shaping"]), str(run_dir)], check=True)
    (tmp_path / "secret.txt").write_text("not the run's")
    (run_dir / "out.txt").symlink_to(tmp_path / "secret.txt")
    served = Served(run_dir, bundle)
    try:
        status, body = served.get("/run/out.txt")
        assert status == 403 and b"not the run's" not in body
    finally:
        served.stop()


def test_talus_view_refuses_what_it_cannot_show_with_exit_2(runs, bundle, tmp_path):
    env = dict(os.environ, TALUS_VIEWER_DIR=str(bundle))
    result = talus("view", tmp_path, env=env)
    assert result.returncode == 2 and "has no view/manifest.json" in result.stderr
    result = talus("view", runs["particles"] / "summary.json", env=env)
    assert result.returncode == 2 and "not a folder" in result.stderr

    cut = tmp_path / "cut"
    subprocess.run(["cp", "-r", str(runs["shaping"]), str(cut)], check=True)
    frame = cut / "view/frames/000007.tvf"
    frame.write_bytes(frame.read_bytes()[:100])
    before = listing(cut)
    result = talus("view", cut, env=env)
    assert result.returncode == 2
    assert "000007.tvf" in result.stderr and "truncated: 100 bytes" in result.stderr
    assert listing(cut) == before

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = talus("view", runs["shaping"], "--port", taken.getsockname()[1], env=env)
    assert result.returncode == 2 and "is in use" in result.stderr


def test_run_video_writes_an_mp4_of_every_frame_listed_as_talus_output(tmp_path):
    few = write_scenario(tmp_path, "[view]\nframes = 12\n")
    out = tmp_path / "letter"
    assert talus_package.check_scenario(few)["view"]
    result = talus("run", few, "--out", out, "--video", "-q")
    assert result.returncode == 0, result.stderr
    assert f"wrote {out / 'video.mp4'}" in result.stdout
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
                            "-show_entries", "stream=codec_name,width,height,nb_read_frames",
                            "-of", "csv=p=0", str(out / "video.mp4")],
                           capture_output=True, text=True, check=True)
    codec, width, height, frames = probe.stdout.strip().split(",")
    assert (codec, width, height) == ("h264", "1280", "720")
    assert int(frames) == len(view.load(out))
    manifest = json.loads((out / ".talus-output").read_text())
    assert "video.mp4" in manifest["entries"]
    assert not [p for p in out.iterdir() if ".tmp-" in p.name]
    # The folder is still wholly talus's: it can be replaced.
    assert talus("run", few, "--out", out, "--replace", "-q").returncode == 0
    assert not (out / "video.mp4").exists()


def test_run_video_refuses_without_ffmpeg_or_without_frames(tmp_path):
    few = write_scenario(tmp_path, "[view]\nframes = 3\n")
    bare = tmp_path / "bin"
    bare.mkdir()
    result = talus("run", few, "--out", tmp_path / "a", "--video",
                   env=dict(os.environ, PATH=str(bare)))
    assert result.returncode == 2 and "needs the ffmpeg program" in result.stderr
    assert not (tmp_path / "a").exists()  # refused before the run
    # A run that records no frames is refused before it starts (it used to run to the end and
    # then exit 2): [view] frames = 0, and a kind of run that never records any (an SCM rig).
    none = write_scenario(tmp_path, "[view]\nframes = 0\n")
    rig = SOURCE / "scenarios/scm/plate_sinkage.toml"
    for scenario, out in ((none, tmp_path / "b"), (rig, tmp_path / "c")):
        result = talus("run", scenario, "--out", out, "--video", "-q")
        assert result.returncode == 2, result.stderr
        assert "records no view frames" in result.stderr and str(scenario) in result.stderr
        assert not out.exists()
        assert not talus_package.check_scenario(scenario)["view"]
