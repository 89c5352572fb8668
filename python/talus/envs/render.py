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


PILE = np.array([246, 232, 196], dtype=np.float64)


def shade_heightmap(height_m, sand_height_m, trench_depth_m, cell_size_m, cell_px):
    """H x W x 3 uint8 picture of a heightmap [m] (rows drawn top to bottom as given): coloured by
    height against the flat bed (trenches brown, piles pale) and hill-shaded, light from the upper
    left; cell_px pixels per cell."""
    h = np.asarray(height_m, dtype=np.float64)
    relief = (h - sand_height_m) / trench_depth_m  # -1 on the trench floor
    dug = np.clip(-relief, 0.0, 1.0)[..., None]
    piled = np.clip(relief / 2.0, 0.0, 1.0)[..., None]
    colour = (SAND * (1.0 - dug) + TRENCH * dug) * (1.0 - piled) + PILE * piled
    # A surface faces the upper-left light where it rises towards the lower right (rows grow
    # downwards): shade by the slope along columns plus along rows, in height per cell.
    d_row, d_col = np.gradient(h / cell_size_m)
    shade = np.clip(1.0 + 1.5 * (d_col + d_row), 0.45, 1.35)[..., None]
    block = np.ones((cell_px, cell_px, 1))
    return np.clip(np.kron(colour * shade, block), 0, 255).astype(np.uint8)


def render_stroke_bed(sand, goal, bed, stroke=None, cell_px=8):
    """H x W x 3 uint8 picture (cells * cell_px square) of a ShapingStrokes-v0 bed: `sand` and
    `goal` heightmaps [m] indexed [j, i] (drawn with y up) shaded by shade_heightmap; the goal's
    trenches (deeper than half the trench depth) outlined in red; `stroke` (x0, y0, x1, y1) in bed
    cells, the last stroke, drawn as a blue line ending at the blade."""
    h = np.asarray(sand, dtype=np.float64)[::-1]
    goal = np.asarray(goal, dtype=np.float64)[::-1]
    image = shade_heightmap(h, bed.sand_height_m, bed.trench_depth_m, bed.cell_size_m, cell_px)
    _outline(image, goal < bed.sand_height_m - 0.5 * bed.trench_depth_m, cell_px)
    if stroke is not None:
        _draw_stroke(image, stroke, h.shape[0], cell_px)
    return image


def render_trench_heightmap(sand, goal, blade, bed, cell_px=8):
    """H x W x 3 uint8 picture of ShapingTrench-v0's heightmap backend: the sand [m] (ny, nx)
    indexed [j, i] drawn with y up and shaded by shade_heightmap, the goal's planning cells (the
    binary map, row 0 on top) outlined in red, the blade's planning cell marked by a blue square."""
    h = np.asarray(sand, dtype=np.float64)[::-1]
    image = shade_heightmap(h, bed.sand_height_m, bed.trench_depth_m, bed.cell_size_m, cell_px)
    goal = np.asarray(goal, dtype=bool)
    k, m = bed.cells_per_map_cell, bed.margin_cells
    on_cells = np.zeros(h.shape, dtype=bool)
    on_cells[m:m + goal.shape[0] * k, m:m + goal.shape[1] * k] = np.kron(goal, np.ones((k, k), bool))
    _outline(image, on_cells, cell_px)
    r, c = blade
    centre = ((m + (r + 0.5) * k) * cell_px, (m + (c + 0.5) * k) * cell_px)
    half = max(1, k * cell_px // 4)
    image[int(centre[0] - half):int(centre[0] + half),
          int(centre[1] - half):int(centre[1] + half)] = BLADE
    return image


def _draw_stroke(image, stroke, cells, cell_px):
    """The stroke as a blue line (a third of a cell wide) with the blade, a square of half a cell,
    at its end."""
    x0, y0, x1, y1 = (float(v) for v in stroke)
    # Bed cell (u, v) is centred at pixel ((u + 0.5) * cell_px, (cells - 0.5 - v) * cell_px).
    a = np.array([(x0 + 0.5) * cell_px, (cells - 0.5 - y0) * cell_px])
    b = np.array([(x1 + 0.5) * cell_px, (cells - 0.5 - y1) * cell_px])
    rows, cols = np.mgrid[0:image.shape[0], 0:image.shape[1]]
    p = np.stack([cols + 0.5, rows + 0.5], axis=-1)
    ab = b - a
    t = np.clip(((p - a) @ ab) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
    distance = np.linalg.norm(p - (a + t[..., None] * ab), axis=-1)
    image[distance <= max(1.0, cell_px / 6)] = BLADE
    half = max(1.0, cell_px / 4)
    image[(np.abs(p[..., 0] - b[0]) <= half) & (np.abs(p[..., 1] - b[1]) <= half)] = BLADE


FLOOR = np.array([96, 104, 118], dtype=np.float64)
GOAL_BOX = np.array([40, 170, 60], dtype=np.uint8)


def render_bulldozing(batch, i, options, px_per_m=40):
    """Bulldozing-v0's picture: the arena seen from above (the sky camera at px_per_m pixels per
    metre), particles sand-coloured by height and hill-shaded, the floor grey, the goal box
    outlined in green and the bulldozer's heading drawn as a blue line from its centre."""
    length, width = options.arena_length_m, options.arena_width_m
    w_px, h_px = int(round(length * px_per_m)), int(round(width * px_per_m))
    depth = batch.sky_image(i, w_px, h_px).astype(np.float64)
    height = np.clip(options.sky_camera_z_m - depth, 0.0, None)
    raised = np.clip(height / (4.0 * options.particle_radius_m), 0.0, 1.0)[..., None]
    tall = np.clip(height / 0.6, 0.0, 1.0)[..., None]
    colour = FLOOR * (1.0 - raised) + (SAND * (1.0 - 0.35 * tall) + PILE * 0.35 * tall) * raised
    d_row, d_col = np.gradient(height * px_per_m)
    shade = np.clip(1.0 + 0.6 * (d_col + d_row), 0.5, 1.3)[..., None]
    image = np.clip(colour * shade, 0, 255).astype(np.uint8)

    def to_px(x, y):
        return (x + length / 2) * px_per_m, (width / 2 - y) * px_per_m

    c0, r0 = to_px(options.goal_lo_m[0], options.goal_hi_m[1])
    c1, r1 = to_px(options.goal_hi_m[0], options.goal_lo_m[1])
    c0, r0, c1, r1 = (int(round(v)) for v in (c0, r0, c1, r1))
    for t in range(2):
        image[max(r0 + t, 0), c0:c1] = GOAL_BOX
        image[min(r1 - 1 - t, h_px - 1), c0:c1] = GOAL_BOX
        image[r0:r1, max(c0 + t, 0)] = GOAL_BOX
        image[r0:r1, min(c1 - 1 - t, w_px - 1)] = GOAL_BOX
    x, y, yaw = batch.pose_of(i)
    for s in np.linspace(0.0, 0.6, 40):
        c, r = to_px(x + s * np.cos(yaw), y + s * np.sin(yaw))
        rr, cc = int(r), int(c)
        image[max(rr - 1, 0):min(rr + 2, h_px), max(cc - 1, 0):min(cc + 2, w_px)] = BLADE
    return image



SKY = np.array([226, 234, 242], dtype=np.uint8)
GROUND = np.array([170, 150, 120], dtype=np.uint8)
ROBOT = np.array([30, 50, 110], dtype=np.uint8)


def render_side_view(segments_m, centre_x_m, px_per_m=160, width_px=480, height_px=240,
                     z_min_m=-0.3, ground_z=None):
    """A robot seen from the side: segments (x0, z0, x1, z1) [m] drawn 3 pixels wide over the
    ground (below z = ground_z(x) [m], default 0, with a tick every 0.5 m so that travel shows), in
    a window width_px / px_per_m metres wide centred on centre_x_m, its bottom at z_min_m."""
    image = np.empty((height_px, width_px, 3), np.uint8)
    image[:] = SKY
    x0 = centre_x_m - 0.5 * width_px / px_per_m

    def to_px(x, z):
        return (x - x0) * px_per_m, height_px - 1 - (z - z_min_m) * px_per_m

    ground = ground_z if ground_z is not None else (lambda x: 0.0)
    for col in range(width_px):
        row = int(round(to_px(0.0, ground(x0 + (col + 0.5) / px_per_m))[1]))
        image[max(row, 0):, col] = GROUND
    for k in np.arange(np.ceil(x0 / 0.5), np.floor((x0 + width_px / px_per_m) / 0.5) + 1):
        col, row = (int(round(v)) for v in to_px(0.5 * k, ground(0.5 * k)))
        if 0 <= col < width_px:
            image[max(row, 0):max(row, 0) + 8, max(col - 1, 0):col + 1] = 90
    for xa, za, xb, zb in np.asarray(segments_m, dtype=np.float64):
        for t in np.linspace(0.0, 1.0, 120):
            c, r = to_px(xa + t * (xb - xa), za + t * (zb - za))
            c, r = int(round(c)), int(round(r))
            image[max(r - 1, 0):min(r + 2, height_px), max(c - 1, 0):min(c + 2, width_px)] = ROBOT
    return image


_BOX_EDGES = ((0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5),
              (2, 6), (3, 7))


def render_excavation(batch, i, world, px_per_m=300):
    """Excavation-v0's picture: on the left the arm seen from the side (-y, a stick through its
    joints, the bucket's bounding box, the tub's walls, particles as sand-coloured dots darker
    with depth), on the right the tub from above (the sky camera, particles shaded by height,
    the bucket's outline in blue)."""
    o = world.options
    segments = []
    points = batch.arm_points(i)
    for a, b in zip(points[:-1], points[1:]):
        segments.append((a[0], a[2], b[0], b[2]))
    corners = batch.bucket_corners(i)
    for a, b in _BOX_EDGES:
        segments.append((corners[a, 0], corners[a, 2], corners[b, 0], corners[b, 2]))
    for x in (o.tub_lo_m[0], o.tub_hi_m[0]):
        segments.append((x, 0.0, x, o.tub_wall_height_m))
    width_px, height_px = int(1.3 * px_per_m), int(1.1 * px_per_m)
    centre_x, z_min = 0.45, -0.05
    side = render_side_view(segments, centre_x, px_per_m, width_px, height_px, z_min_m=z_min)
    particles = batch.particle_positions(i).astype(np.float64)
    x0 = centre_x - 0.5 * width_px / px_per_m
    order = np.argsort(-particles[:, 1])  # far (+y) first, near ones drawn over them
    cols = np.round((particles[order, 0] - x0) * px_per_m).astype(int)
    rows = np.round(height_px - 1 - (particles[order, 2] - z_min) * px_per_m).astype(int)
    near = np.clip((particles[order, 1] - o.tub_lo_m[1]) / (o.tub_hi_m[1] - o.tub_lo_m[1]), 0, 1)
    colours = (SAND * (1.0 - 0.4 * near[:, None])).astype(np.uint8)
    r_px = max(1, int(round(o.particle_radius_m * px_per_m)))
    for dr in range(-r_px + 1, r_px):
        for dc in range(-r_px + 1, r_px):
            rr, cc = rows + dr, cols + dc
            ok = (rr >= 0) & (rr < height_px) & (cc >= 0) & (cc < width_px)
            side[rr[ok], cc[ok]] = colours[ok]
    # Redraw the robot over the particles so that the bucket stays visible.
    arm_only = render_side_view(segments, centre_x, px_per_m, width_px, height_px, z_min_m=z_min)
    robot = np.all(arm_only == ROBOT, axis=-1)
    side[robot] = ROBOT

    span_x = o.tub_hi_m[0] - o.tub_lo_m[0] + 0.04
    span_y = o.tub_hi_m[1] - o.tub_lo_m[1] + 0.04
    top_h = height_px
    top_w = int(round(top_h * span_x / span_y))
    depth = batch.sky_image(i, top_w, top_h).astype(np.float64)
    height = np.clip(o.sky_camera_z_m - depth, 0.0, None)
    raised = np.clip(height / (2.0 * o.particle_radius_m), 0.0, 1.0)[..., None]
    tall = np.clip(height / 0.3, 0.0, 1.0)[..., None]
    colour = FLOOR * (1.0 - raised) + (SAND * (1.0 - 0.35 * tall) + PILE * 0.35 * tall) * raised
    d_row, d_col = np.gradient(height * top_h / span_y)
    shade = np.clip(1.0 + 0.6 * (d_col + d_row), 0.5, 1.3)[..., None]
    top = np.clip(colour * shade, 0, 255).astype(np.uint8)
    x_lo, y_hi = o.tub_lo_m[0] - 0.02, o.tub_hi_m[1] + 0.02
    for a, b in _BOX_EDGES:
        for t in np.linspace(0.0, 1.0, 60):
            p = corners[a] + t * (corners[b] - corners[a])
            c = int(round((p[0] - x_lo) / span_x * top_w))
            r = int(round((y_hi - p[1]) / span_y * top_h))
            if 0 <= r < top_h and 0 <= c < top_w:
                top[r, c] = BLADE
    gap = np.full((height_px, 6, 3), 255, np.uint8)
    return np.concatenate([side, gap, top], axis=1)
