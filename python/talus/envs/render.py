"""Pictures of the trench environments (render_mode="rgb_array"): the binary map drawn as sand,
hill-shaded so that dug cells read as a trench, the goal outlined in red and the blade drawn as a
blue square. Vectorised numpy; one call per frame, never per cell."""

from __future__ import annotations

import numpy as np

SAND = np.array([222, 196, 140], dtype=np.float64)
TRENCH = np.array([150, 112, 68], dtype=np.float64)
GOAL_EDGE = np.array([200, 30, 30], dtype=np.uint8)
BLADE = np.array([40, 80, 200], dtype=np.uint8)


def render_binary_trench(dug, goal, blade, cell_px=32):
    """H x W x 3 uint8 picture (H = rows * cell_px, W = cols * cell_px) of a binary trench map:
    `dug` and `goal` (rows, cols) 0/1 arrays, `blade` the (row, col) of the blade."""
    dug = np.asarray(dug, dtype=np.float64)
    goal = np.asarray(goal, dtype=bool)
    block = np.ones((cell_px, cell_px))
    height = np.kron(1.0 - dug, block)  # 1 = untouched surface, 0 = trench floor
    depth = 1.0 - height
    colour = SAND[None, None, :] * height[..., None] + TRENCH[None, None, :] * depth[..., None]
    # Light from the upper left: a step down (the trench's near wall) is in shadow, a step up (its
    # far wall) is lit.
    step = max(1, cell_px // 8)
    shifted = np.pad(height, ((step, 0), (step, 0)), mode="edge")[:-step, :-step]
    shade = np.clip(1.0 + 0.45 * (height - shifted), 0.5, 1.3)
    image = np.clip(colour * shade[..., None], 0, 255).astype(np.uint8)
    _outline(image, goal, cell_px)
    r, c = blade
    inset = cell_px // 4
    image[r * cell_px + inset:(r + 1) * cell_px - inset,
          c * cell_px + inset:(c + 1) * cell_px - inset] = BLADE
    return image


def _outline(image, goal, cell_px):
    """Red lines along the goal's boundary: the goal's pixels within a line width of a pixel
    outside it (or of the map's edge)."""
    width = max(1, cell_px // 16)
    inside = np.kron(goal, np.ones((cell_px, cell_px), dtype=bool))
    padded = np.pad(inside, width, constant_values=False)
    h, w = inside.shape
    edge = np.zeros_like(inside)
    for shift in range(1, width + 1):
        for dy, dx in ((-shift, 0), (shift, 0), (0, -shift), (0, shift)):
            edge |= inside & ~padded[width + dy:width + dy + h, width + dx:width + dx + w]
    image[edge] = GOAL_EDGE
