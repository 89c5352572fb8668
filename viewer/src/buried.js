// Skipping particles buried deep inside a bed, which no camera outside the bed can see.
//
// On a software renderer every point costs time whether it is seen or not, and a bed of 50,000
// particles is mostly interior. Each frame, particles are binned into a grid of cells two
// diameters wide; a cell is "dense" when it holds at least half the particles of a random
// packing, and a particle is skipped when its cell and all 26 cells around it are dense, i.e.
// when at least two particle layers cover it in every direction. Through the rare gaps in those
// layers one then sees a particle further back instead of a buried one: the same colours, in
// practice. Off by default on GPUs (?cull=1 turns it on, ?cull=0 off).

const MAX_CELLS = 1 << 22; // 4M cells (about 20 MB of scratch); a larger grid draws everything
const PACKING = 0.55;      // solid fraction of a loose random packing of spheres

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
    this.cellOf = new Int32Array(n);
    this.indices = new Uint32Array(n);
    this.counts = new Uint16Array(0);
    this.a = new Uint8Array(0);
    this.b = new Uint8Array(0);
  }

  /**
   * Writes the indices of the particles to draw (positions: xyz triples) to this.indices and
   * returns how many there are.
   */
  filter(positions) {
    const n = this.count;
    let x0 = Infinity, y0 = Infinity, z0 = Infinity;
    let x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let i = 0; i < 3 * n; i += 3) {
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
    if (!(cells > 0 && cells <= MAX_CELLS) || nx < 3 || ny < 3 || nz < 3) return this.all();
    if (this.counts.length < cells) {
      this.counts = new Uint16Array(cells);
      this.a = new Uint8Array(cells);
      this.b = new Uint8Array(cells);
    }
    const counts = this.counts;
    counts.fill(0, 0, cells);
    const inv = 1 / c;
    const cellOf = this.cellOf;
    for (let i = 0; i < n; ++i) {
      const ix = ((positions[3 * i] - x0) * inv) | 0;
      const iy = ((positions[3 * i + 1] - y0) * inv) | 0;
      const iz = ((positions[3 * i + 2] - z0) * inv) | 0;
      const k = (iz * ny + iy) * nx + ix;
      cellOf[i] = k;
      if (counts[k] < 65535) counts[k]++;
    }
    // deep = dense in the 3 x 3 x 3 block around: a minimum filter, one axis at a time.
    const { a, b, threshold } = this;
    for (let k = 0; k < cells; ++k) a[k] = counts[k] >= threshold ? 1 : 0;
    erode(a, b, cells, 1, nx);           // along x into b
    erode(b, a, cells, nx, ny);          // along y into a
    erode(a, b, cells, nx * ny, nz);     // along z into b
    let m = 0;
    const out = this.indices;
    for (let i = 0; i < n; ++i) if (b[cellOf[i]] === 0) out[m++] = i;
    return m;
  }

  all() {
    const out = this.indices;
    for (let i = 0; i < this.count; ++i) out[i] = i;
    return this.count;
  }
}

/**
 * out[k] = src[k-s] & src[k] & src[k+s] along the axis of stride s and length len; 0 at the
 * axis's ends (a cell on the grid's edge has nothing around it on one side).
 */
function erode(src, out, cells, s, len) {
  for (let k = 0; k < cells; ++k) {
    const i = Math.floor(k / s) % len;
    out[k] = i > 0 && i < len - 1 ? src[k - s] & src[k] & src[k + s] : 0;
  }
}
