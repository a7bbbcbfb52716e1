"""mp4 files from rendered frames, written by imageio with the ffmpeg binary that the
``imageio-ffmpeg`` wheel ships (extra ``render``: ``pip install ncpgym[render]``)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

__all__ = ["VideoWriter", "read_frame_count"]


def _imageio():
    try:
        import imageio.v2 as iio
        import imageio_ffmpeg  # noqa: F401  (the ffmpeg binary)
    except ImportError as e:
        raise ImportError(
            "writing videos needs imageio and imageio-ffmpeg: pip install 'ncpgym[render]'"
        ) from e
    return iio


class VideoWriter:
    """Appends (H, W, 3) uint8 frames to an H.264 mp4 at ``fps``; frames of odd size are
    padded by one black row / column (the yuv420p pixel format needs even sizes)."""

    def __init__(self, path: str | os.PathLike, fps: float):
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps!r}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fps = float(fps)
        self.frames = 0
        self._shape: tuple[int, ...] | None = None
        self._w = _imageio().get_writer(
            str(self.path),
            fps=self.fps,
            codec="libx264",
            pixelformat="yuv420p",
            macro_block_size=1,
            quality=7,
        )

    def append(self, frame: np.ndarray) -> None:
        """Append one frame, (H, W, 3) uint8, the size of the first."""
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"frame: expected (H, W, 3) uint8, got {frame.dtype} {frame.shape}")
        if self._shape is None:
            self._shape = frame.shape
        elif frame.shape != self._shape:
            raise ValueError(f"frame: every frame must have shape {self._shape}, got {frame.shape}")
        h, w = frame.shape[:2]
        if h % 2 or w % 2:
            frame = np.pad(frame, ((0, h % 2), (0, w % 2), (0, 0)))
        self._w.append_data(frame)
        self.frames += 1

    def close(self) -> None:
        """Finish the file (flushes ffmpeg)."""
        if self._w is not None:
            self._w.close()
            self._w = None

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_frame_count(path: str | os.PathLike) -> int:
    """Frames in a video file, by decoding every one of them."""
    reader = _imageio().get_reader(str(path))
    try:
        return sum(1 for _ in reader)
    finally:
        reader.close()
