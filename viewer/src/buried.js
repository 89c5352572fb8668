// Skipping particles that the camera cannot see: buried deep inside a bed, or behind it.
//
// On a software renderer every point costs time whether it is seen or not (the impostor shader
// discards the corners of its square, so the depth test runs only after the shader), and a bed
// of 50,000 particles is mostly hidden. Each frame:
//
// 1. Particles are binned into a grid of cells two diameters wide; a cell is "dense" when it
//    holds at least half the particles of a random packing.
// 2. The cells that are not dense and can be reached from outside the grid through other such
//    cells (crossing cell faces, as a line of sight does) are "open": the outside and the gaps
//    and dents of the bed's surface. Sparse cells that the outside cannot reach are "closed"
//    like dense ones. A random packing has many of those (a cell holds about 8 particles and a
//    few hold fewer than half that); a rule that looked only at each cell's own density would
//    draw everything around each of them, about two thirds of a random bed's interior.
// 3. On a grid of half cells, a particle is drawn when an open half cell lies within `shell`
//    steps of its own towards the camera: per axis, a step counts when it goes towards the
//    camera, or either way when the camera is level with that half cell along the axis.
//
// So any line of sight from the camera to a skipped particle enters a closed cell first, and
// that cell is dense (a sparse cell next to an open one would be open too), and it then crosses
// `shell` half cells of closed cells, all drawn, before reaching the particle: `shell` particle
// diameters of bed. Through the rare gaps in them one sees a particle further back, or the
// background, instead of a hidden one. Seen from above, the bottom of the bed and the sides
// facing away are skipped as well as the interior; the choice is redone when the camera moves
// to another half cell (sameView). Off by default on GPUs (?cull=1 turns it on, ?cull=0 off).

const MAX_CELLS = 1 << 20; // 1M cells (8M half cells, about 20 MB of scratch); more draws everything
const PACKING = 0.55;      // solid fraction of a loose random packing of spheres

// Cell states (one byte per cell).
const OPEN = 0;     // reachable from outside through cells that are not dense
const CLOSED = 1;   // dense, or a sparse pocket the outside cannot reach
const SPARSE = 2;   // not dense, not yet known to be open (only during fillOpen)

export class BuriedFilter {
  /** @param radii Float32Array of the particle radii [m] */
  constructor(radii) {
    const n = radii.length;
    let rMax = 0;
    let rSum = 0;
    for (let i = 0; i < n; ++i) {
      rMax = Math.max(rMax, radii[i]);
      rSum += radii[i];
    }
    const rMean = n > 0 ? rSum / n : rMax;
    this.count = n;
    this.cell = 4 * rMax;
    const full = (PACKING * this.cell ** 3) / ((4 / 3) * Math.PI * rMean ** 3);
    this.threshold = Math.max(2, Math.floor(0.5 * full));
    this.indices = new Uint32Array(n);
    this.counts = new Uint16Array(0);  // per cell
    this.state = new Uint8Array(0);    // per cell
    this.queue = new Int32Array(0);    // per cell (fillOpen)
    this.half = new Uint8Array(0);     // per half cell, two buffers for erode
    this.halfOut = new Uint8Array(0);
    this.grid = null;                  // of the last filter(), and the half cell of its camera
    this.eye = null;
  }

  /**
   * Writes the indices of the particles to draw (positions: xyz triples) to this.indices and
   * returns how many there are. `eye`: the camera's position ({x, y, z}, in the particles'
   * frame), or null for a camera anywhere outside the bed; `shell`: the half cells of bed kept
   * in front of what is skipped (1 or more; more hides the gaps in the bed better and draws
   * more particles; particles.js picks it).
   */
  filter(positions, eye = null, shell = 3) {
    const grid = this.gridAround(positions);
    this.grid = grid;
    if (grid === null) return this.all();
    this.eye = eyeHalfCell(grid, eye);
    this.reserve(grid);
    this.bin(positions, grid);
    const cells = grid.nx * grid.ny * grid.nz;
    const { counts, state, threshold } = this;
    for (let k = 0; k < cells; ++k) state[k] = counts[k] >= threshold ? CLOSED : SPARSE;
    fillOpen(state, this.queue, grid.nx, grid.ny, grid.nz);
    const hidden = this.hiddenHalfCells(grid, shell);
    return this.select(positions, grid, hidden);
  }

  /**
   * Whether filter() would skip the same particles with the camera at `eye` as its last call
   * did (true while the camera stays in the same half cell, or beyond the same end of the grid).
   */
  sameView(eye) {
    if (this.grid === null) return true;
    const e = eyeHalfCell(this.grid, eye);
    return e[0] === this.eye[0] && e[1] === this.eye[1] && e[2] === this.eye[2];
  }

  /** The grid of cells over the particles' bounding box, or null when culling cannot help. */
  gridAround(positions) {
    let x0 = Infinity, y0 = Infinity, z0 = Infinity;
    let x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let i = 0; i < 3 * this.count; i += 3) {
      const x = positions[i], y = positions[i + 1], z = positions[i + 2];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (z < z0) z0 = z;
      if (z > z1) z1 = z;
    }
    const c = this.cell;
    const nx = Math.floor((x1 - x0) / c) + 1;
    const ny = Math.floor((y1 - y0) / c) + 1;
    const nz = Math.floor((z1 - z0) / c) + 1;
    const cells = nx * ny * nz;
    // A grid under 3 cells thick has no interior cell.
    if (!(cells > 0 && cells <= MAX_CELLS) || nx < 3 || ny < 3 || nz < 3) return null;
    return { x0, y0, z0, nx, ny, nz, half: c / 2 };
  }

  /** Grows the scratch arrays to the grid's size. */
  reserve({ nx, ny, nz }) {
    const cells = nx * ny * nz;
    if (this.counts.length >= cells) return;
    this.counts = new Uint16Array(cells);
    this.state = new Uint8Array(cells);
    this.queue = new Int32Array(cells);
    this.half = new Uint8Array(8 * cells);
    this.halfOut = new Uint8Array(8 * cells);
  }

  /** Counts the particles of each cell. */
  bin(positions, { x0, y0, z0, nx, ny, nz }) {
    const counts = this.counts;
    counts.fill(0, 0, nx * ny * nz);
    const inv = 1 / this.cell;
    for (let i = 0; i < this.count; ++i) {
      const ix = ((positions[3 * i] - x0) * inv) | 0;
      const iy = ((positions[3 * i + 1] - y0) * inv) | 0;
      const iz = ((positions[3 * i + 2] - z0) * inv) | 0;
      const k = (iz * ny + iy) * nx + ix;
      if (counts[k] < 65535) counts[k]++;
    }
  }

  /**
   * Per half cell: 1 when no open half cell lies within `shell` steps of it towards the camera
   * (a minimum filter of the cells' states, `shell` times, one axis at a time).
   */
  hiddenHalfCells({ nx, ny, nz }, shell) {
    const hx = 2 * nx, hy = 2 * ny, hz = 2 * nz;
    let a = this.half;
    let b = this.halfOut;
    const state = this.state;
    // Each cell's state, in its eight half cells.
    for (let z = 0, k = 0; z < hz; ++z) {
      for (let y = 0; y < hy; ++y) {
        const row = ((z >> 1) * ny + (y >> 1)) * nx;
        for (let x = 0; x < hx; ++x, ++k) a[k] = state[row + (x >> 1)];
      }
    }
    const cells = hx * hy * hz;
    const strides = [1, hx, hx * hy];
    const lengths = [hx, hy, hz];
    for (let r = 0; r < shell; ++r) {
      for (let axis = 0; axis < 3; ++axis) {
        erode(a, b, cells, strides[axis], lengths[axis], this.eye[axis]);
        [a, b] = [b, a];
      }
    }
    return a;
  }

  /** Writes the particles whose half cell is not hidden to this.indices; returns how many. */
  select(positions, { x0, y0, z0, nx, ny, half }, hidden) {
    const hx = 2 * nx, hy = 2 * ny;
    const inv = 1 / half;
    const out = this.indices;
    let m = 0;
    for (let i = 0; i < this.count; ++i) {
      const ix = ((positions[3 * i] - x0) * inv) | 0;
      const iy = ((positions[3 * i + 1] - y0) * inv) | 0;
      const iz = ((positions[3 * i + 2] - z0) * inv) | 0;
      if (hidden[(iz * hy + iy) * hx + ix] === 0) out[m++] = i;
    }
    return m;
  }

  all() {
    const out = this.indices;
    for (let i = 0; i < this.count; ++i) out[i] = i;
    return this.count;
  }
}

/**
 * Marks OPEN the SPARSE cells that the outside of the grid reaches through SPARSE cells sharing a
 * face (a breadth-first flood from the grid's faces); the SPARSE cells left are pockets enclosed
 * by dense cells and become CLOSED.
 */
function fillOpen(state, queue, nx, ny, nz) {
  let tail = 0;
  const open = (k) => {
    if (state[k] === SPARSE) {
      state[k] = OPEN;
      queue[tail++] = k;
    }
  };
  // Seeds: the sparse cells on the grid's six faces.
  for (let z = 0; z < nz; ++z) {
    for (let y = 0; y < ny; ++y) {
      const row = (z * ny + y) * nx;
      if (z === 0 || z === nz - 1 || y === 0 || y === ny - 1) {
        for (let x = 0; x < nx; ++x) open(row + x);
      } else {
        open(row);
        open(row + nx - 1);
      }
    }
  }
  const sy = nx;
  const sz = nx * ny;
  for (let head = 0; head < tail; ++head) {
    const k = queue[head];
    const x = k % nx;
    const y = Math.floor(k / sy) % ny;
    const z = Math.floor(k / sz);
    if (x > 0) open(k - 1);
    if (x < nx - 1) open(k + 1);
    if (y > 0) open(k - sy);
    if (y < ny - 1) open(k + sy);
    if (z > 0) open(k - sz);
    if (z < nz - 1) open(k + sz);
  }
  const cells = nx * ny * nz;
  for (let k = 0; k < cells; ++k) if (state[k] === SPARSE) state[k] = CLOSED;
}

/**
 * The half cell the camera at `eye` is in, per axis, clamped to one beyond the grid's ends
 * (-1 or the count: every half cell is then on the same side of it); NaN for no camera.
 */
function eyeHalfCell({ x0, y0, z0, nx, ny, nz, half }, eye) {
  if (eye === null) return [NaN, NaN, NaN];
  const at = (e, lo, n) => Math.min(n, Math.max(-1, Math.floor((e - lo) / half)));
  return [at(eye.x, x0, 2 * nx), at(eye.y, y0, 2 * ny), at(eye.z, z0, 2 * nz)];
}

/**
 * One step of the minimum filter along an axis of stride s and length len (cells: the whole
 * grid's size): out = src & its neighbours along the axis that lie towards the camera, whose
 * half cell on this axis is e. For i < e a line of sight to the camera leaves half cell i
 * towards i + 1, never i - 1; for i > e the other way round; for i = e (or no camera, e NaN)
 * either way. Beyond the grid's ends is the outside, open.
 */
function erode(src, out, cells, s, len, e) {
  for (let line = 0; line < cells; line += s * len) {
    for (let i = 0; i < len; ++i) {
      const start = line + i * s;
      const end = start + s;
      const low = !(i < e);  // AND the neighbour at i - 1
      const high = !(i > e); // AND the neighbour at i + 1
      if ((low && i === 0) || (high && i === len - 1)) {
        out.fill(0, start, end);
      } else if (low && high) {
        for (let k = start; k < end; ++k) out[k] = src[k - s] & src[k] & src[k + s];
      } else if (low) {
        for (let k = start; k < end; ++k) out[k] = src[k - s] & src[k];
      } else {
        for (let k = start; k < end; ++k) out[k] = src[k] & src[k + s];
      }
    }
  }
}
