"""Episode videos from the learning environments' rgb_array frames (talus.envs.RecordVideo,
talus.video.Mp4Writer): one MP4 per recorded episode with one frame per reset and step, never
over an existing file, and no partial file when encoding fails."""

import subprocess

import numpy as np
import pytest

import talus.envs
from talus.video import Mp4Writer


def frame_count(path):
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
                            "-show_entries", "stream=nb_read_frames,width,height", "-of",
                            "csv=p=0", str(path)], capture_output=True, text=True, check=True)
    width, height, frames = probe.stdout.strip().split(",")
    return int(width), int(height), int(frames)


def test_record_video_writes_each_triggered_episode(tmp_path):
    env = talus.envs.make("ShapingTrench-v0", render_mode="rgb_array", max_episode_steps=6)
    env = talus.envs.RecordVideo(env, tmp_path / "videos", episode_trigger=lambda k: k != 1,
                                 name_prefix="trench")
    steps = []
    for episode in range(3):
        env.reset(seed=episode)
        n = 0
        while True:
            n += 1
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                break
        steps.append(n)
    env.close()
    names = sorted(p.name for p in (tmp_path / "videos").iterdir())
    assert names == ["trench-episode-0.mp4", "trench-episode-2.mp4"]
    height, width = env.render().shape[:2]
    for episode in (0, 2):
        w, h, frames = frame_count(tmp_path / "videos" / f"trench-episode-{episode}.mp4")
        assert frames == steps[episode] + 1  # the reset and every step
        assert (w, h) == (width - width % 2, height - height % 2)


def test_record_video_needs_rgb_array_frames(tmp_path):
    with pytest.raises(ValueError, match="render_mode='rgb_array'"):
        talus.envs.RecordVideo(talus.envs.make("ShapingTrench-v0"), tmp_path)


def test_mp4_writer_never_overwrites_and_leaves_nothing_on_failure(tmp_path):
    mine = tmp_path / "mine.mp4"
    mine.write_text("a user's file")
    with pytest.raises(FileExistsError):
        Mp4Writer(mine)
    assert mine.read_text() == "a user's file"

    with pytest.raises(ValueError, match="uint8"):
        with Mp4Writer(tmp_path / "bad.mp4") as video:
            video.add(np.zeros((8, 8, 3), np.uint8))
            video.add(np.zeros((8, 8, 3), np.float32))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.mp4"]

    with Mp4Writer(tmp_path / "ramp.mp4", fps=5) as video:
        for k in range(7):
            video.add(np.full((33, 47, 3), 30 * k, np.uint8))
    assert frame_count(tmp_path / "ramp.mp4") == (46, 32, 7)
