"""A MuJoCo free camera's pinhole projection, written for the render tests (the pictures
are checked against where this geometry puts things, not against the renderer's own
numbers), and the pixels a picture shows of one placed body."""

import numpy as np


def pinhole(p, lookat, distance, azimuth, elevation, width, height, fovy=45.0):
    """(row, column) of world point p in a MuJoCo free camera's picture: the camera sits
    `distance` behind `lookat` along the view direction (azimuth about z from +x,
    elevation above the horizon), fovy is MuJoCo's default 45 degrees."""
    az, el = np.radians(azimuth), np.radians(elevation)
    ahead = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    right = np.cross(ahead, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, ahead)
    v = np.asarray(p, float) - (np.asarray(lookat, float) - distance * ahead)
    scale = (height / 2) / np.tan(np.radians(fovy / 2)) / (v @ ahead)
    return height / 2 - scale * (v @ up), width / 2 + scale * (v @ right)


def extent_errors(mask, proj):
    """Differences (top, bottom, left, right), in pixels, between the extent of a picture's
    pixels `mask` (H, W bool) and that of projected points `proj` (K, 2 rows and columns)."""
    rows, cols = np.nonzero(mask)
    proj = np.asarray(proj, float)
    return np.array([rows.min() - proj[:, 0].min(), rows.max() - proj[:, 0].max(),
                     cols.min() - proj[:, 1].min(), cols.max() - proj[:, 1].max()])


def mocap_pixels(env, at):
    """(frame as ints, mask): world 0 of ``env`` drawn with its mocap body 0 at ``at``, and the
    pixels that body covers (against the frame with it sunk 5 m out of sight). The body is
    left at ``at``."""
    b = env.unwrapped.batch
    b.mocap_pos[0, 0] = at
    frame = env.render().astype(int)
    b.mocap_pos[0, 0, 2] = -5.0
    bare = env.render().astype(int)
    b.mocap_pos[0, 0] = at
    return frame, np.abs(frame - bare).max(axis=2) > 30
