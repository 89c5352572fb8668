// The heightmap as a lit surface. Heights change every frame (ruts, berms, trenches), so the
// z of every node, its normal and its colour are rewritten in place; the normals are what make
// a rut a few millimetres deep visible under the light, so they are recomputed each frame.

import * as THREE from 'three';
import { lut, mapColours } from './colours.js';

export class Terrain {
  /** @param hm the manifest's heightmap object {nx, ny, cell_m, origin_m} */
  constructor(hm) {
    const { nx, ny, cell_m: dx } = hm;
    const [x0, y0] = hm.origin_m;
    this.nx = nx;
    this.ny = ny;
    this.dx = dx;
    const nodes = nx * ny;
    const pos = new Float32Array(3 * nodes);
    for (let iy = 0; iy < ny; ++iy) {
      for (let ix = 0; ix < nx; ++ix) {
        const i = iy * nx + ix;
        pos[3 * i] = x0 + ix * dx;
        pos[3 * i + 1] = y0 + iy * dx;
      }
    }
    // Two triangles per cell, counter-clockwise seen from above (+z), so the lit side is up.
    const index = nodes > 65535 ? new Uint32Array(6 * (nx - 1) * (ny - 1)) : new Uint16Array(6 * (nx - 1) * (ny - 1));
    let k = 0;
    for (let iy = 0; iy + 1 < ny; ++iy) {
      for (let ix = 0; ix + 1 < nx; ++ix) {
        const a = iy * nx + ix;
        const b = a + 1;
        const c = a + nx;
        const d = c + 1;
        index[k++] = a; index[k++] = b; index[k++] = d;
        index[k++] = a; index[k++] = d; index[k++] = c;
      }
    }
    const g = new THREE.BufferGeometry();
    g.setIndex(new THREE.BufferAttribute(index, 1));
    this.position = new THREE.BufferAttribute(pos, 3).setUsage(THREE.DynamicDrawUsage);
    this.normal = new THREE.BufferAttribute(new Float32Array(3 * nodes), 3).setUsage(THREE.DynamicDrawUsage);
    this.colour = new THREE.BufferAttribute(new Float32Array(3 * nodes), 3).setUsage(THREE.DynamicDrawUsage);
    g.setAttribute('position', this.position);
    g.setAttribute('normal', this.normal);
    g.setAttribute('color', this.colour);
    this.geometry = g;
    const material = new THREE.MeshLambertMaterial({ vertexColors: true, side: THREE.DoubleSide });
    this.object = new THREE.Mesh(g, material);
    this.object.frustumCulled = false;
    this.table = lut('height');
    // The colour range grows with the heights seen so far and never shrinks, so that colours
    // of the same height stay the same while playing (a per-frame range would flicker).
    this.lo = Infinity;
    this.hi = -Infinity;
  }

  update(heights) {
    const { nx, ny, dx } = this;
    const pos = this.position.array;
    const nrm = this.normal.array;
    let lo = this.lo;
    let hi = this.hi;
    for (let i = 0, n = nx * ny; i < n; ++i) {
      const z = heights[i];
      pos[3 * i + 2] = z;
      if (z < lo) lo = z;
      if (z > hi) hi = z;
    }
    this.lo = lo;
    this.hi = hi;
    // Normal from central differences (one-sided at the edges): n ~ (-dz/dx, -dz/dy, 1).
    for (let iy = 0; iy < ny; ++iy) {
      const ym = iy > 0 ? iy - 1 : iy;
      const yp = iy + 1 < ny ? iy + 1 : iy;
      for (let ix = 0; ix < nx; ++ix) {
        const xm = ix > 0 ? ix - 1 : ix;
        const xp = ix + 1 < nx ? ix + 1 : ix;
        const gx = (heights[iy * nx + xp] - heights[iy * nx + xm]) / ((xp - xm) * dx);
        const gy = (heights[yp * nx + ix] - heights[ym * nx + ix]) / ((yp - ym) * dx);
        const inv = 1 / Math.sqrt(gx * gx + gy * gy + 1);
        const i = 3 * (iy * nx + ix);
        nrm[i] = -gx * inv;
        nrm[i + 1] = -gy * inv;
        nrm[i + 2] = inv;
      }
    }
    const [clo, chi] = this.range();
    mapColours(heights, nx * ny, 1, 0, clo, chi, this.table, this.colour.array);
    this.position.needsUpdate = true;
    this.normal.needsUpdate = true;
    this.colour.needsUpdate = true;
  }

  /** The colour range [m]; at least 1 mm wide so a flat surface is not a division by zero. */
  range() {
    if (!(this.hi >= this.lo)) return [0, 0.001];
    const mid = 0.5 * (this.lo + this.hi);
    const half = Math.max(0.5 * (this.hi - this.lo), 0.0005);
    return [mid - half, mid + half];
  }
}
