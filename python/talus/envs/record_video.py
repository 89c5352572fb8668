"""RecordVideo: an environment wrapper that writes episodes to MP4 files, as Gymnasium's
``gymnasium.wrappers.RecordVideo`` does (same arguments, fewer options): the environment must
have been made with ``render_mode="rgb_array"``; each recorded episode's frames (after reset and
after every step) go to ``{video_folder}/{name_prefix}-episode-{k}.mp4``, encoded by ffmpeg
(talus.video). Existing files are never overwritten."""

from __future__ import annotations

from pathlib import Path

from talus.video import Mp4Writer


class RecordVideo:
    def __init__(self, env, video_folder, episode_trigger=None, name_prefix="rl-video", fps=None):
        if getattr(env, "render_mode", None) != "rgb_array":
            raise ValueError("RecordVideo needs an environment made with render_mode='rgb_array', "
                             f"got render_mode={getattr(env, 'render_mode', None)!r}")
        self.env = env
        self.video_folder = Path(video_folder)
        self.video_folder.mkdir(parents=True, exist_ok=True)
        self.episode_trigger = episode_trigger or (lambda episode: True)
        self.name_prefix = name_prefix
        self.fps = fps or env.metadata.get("render_fps", 30)
        self.episode = -1
        self._video = None
        self.written = []  # paths of the finished videos

    def __getattr__(self, name):  # spaces, metadata, spec, ... of the wrapped environment
        return getattr(self.env, name)

    def _capture(self):
        if self._video is not None:
            self._video.add(self.env.render())

    def _finish(self):
        if self._video is not None:
            self._video.close()
            if self._video.frames:
                self.written.append(self._video.path)
            self._video = None

    def reset(self, **kwargs):
        self._finish()
        observation, info = self.env.reset(**kwargs)
        self.episode += 1
        if self.episode_trigger(self.episode):
            path = self.video_folder / f"{self.name_prefix}-episode-{self.episode}.mp4"
            self._video = Mp4Writer(path, fps=self.fps)
            self._capture()
        return observation, info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._capture()
        if terminated or truncated:
            self._finish()
        return observation, reward, terminated, truncated, info

    def render(self):
        return self.env.render()

    def close(self):
        self._finish()
        self.env.close()
