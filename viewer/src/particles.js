// The particle layer: one draw call for all particles, updated in place every frame.
//
// Two ways to draw them, chosen with the page's ?particles= parameter:
//  - "impostors" (default): one point sprite per particle, shaded as a sphere in the fragment
//    shader. The frame's float32 positions and speeds are handed to WebGL as they are (no copy,
//    no per-particle JS work) and colours are looked up on the GPU. With the skipping of hidden
//    particles (buried.js) this plays a bed of 50,000 particles at 38-47 frames/s on a 2-core
//    software renderer (numbers in viewer/README.md).
//  - "spheres": a THREE.InstancedMesh of low-poly spheres (?detail=0: 20 triangles, 1: 80),
//    real geometry that intersects correctly, but about a hundred times slower on a software
//    renderer (instancing there is slow); fine on a GPU.

import * as THREE from 'three';
import { framePositions } from './format.js';
import { lut, mapColours, LUT_SIZE } from './colours.js';
import { BuriedFilter } from './buried.js';

/** Colour mapping of a frame: by 'speed' (m/s) or 'height' (z, m), over [lo, hi]. */
export class ColourMapping {
  constructor(by, lo, hi) {
    this.by = by;
    this.lo = lo;
    this.hi = hi;
  }
}

/** The colour map as a 256 x 1 texture of sRGB values, read by the vertex shader. */
function lutTexture(name) {
  const table = lut(name);
  const data = new Uint8Array(LUT_SIZE * 4);
  const c = new THREE.Color();
  for (let i = 0; i < LUT_SIZE; ++i) {
    c.setRGB(table[3 * i], table[3 * i + 1], table[3 * i + 2]).getRGB(c, THREE.SRGBColorSpace);
    data[4 * i] = Math.round(c.r * 255);
    data[4 * i + 1] = Math.round(c.g * 255);
    data[4 * i + 2] = Math.round(c.b * 255);
    data[4 * i + 3] = 255;
  }
  const tex = new THREE.DataTexture(data, LUT_SIZE, 1, THREE.RGBAFormat);
  tex.magFilter = THREE.LinearFilter;
  tex.minFilter = THREE.LinearFilter;
  tex.needsUpdate = true;
  return tex;
}

// Half cells of bed kept in front of the particles skipped (buried.js). While playing, 2 (one
// cell, two particle diameters) keeps a random bed of 50,000 particles above 30 frames/s on a
// 2-core software renderer; a still picture gets 3, which closes most of the gaps through
// which the background would show, for about 40% more particles drawn (viewer/README.md).
const SHELL_PLAYING = 2;
const SHELL_STILL = 3;

const impostorVertex = /* glsl */ `
  attribute float speed;
  attribute float radius;
  uniform float pointScale;   // pixels per metre at unit distance: viewport height / (2 tan(fov/2))
  uniform float bySpeed;      // 1: colour by speed, 0: by height (z)
  uniform vec2 range;         // the colour map's [lo, hi]
  uniform sampler2D colourMap;
  varying vec3 vColour;
  void main() {
    vec4 mv = modelViewMatrix * vec4(position, 1.0);
    gl_Position = projectionMatrix * mv;
    gl_PointSize = max(2.0 * radius * pointScale / -mv.z, 1.0);
    float v = mix(position.z, speed, bySpeed);
    float t = clamp((v - range.x) / max(range.y - range.x, 1e-12), 0.0, 1.0);
    vColour = texture2D(colourMap, vec2(t * (255.0 / 256.0) + 0.5 / 256.0, 0.5)).rgb;
  }
`;

const impostorFragment = /* glsl */ `
  uniform vec3 lightDir;      // towards the light, in view space
  varying vec3 vColour;       // sRGB: no per-pixel colour-space conversion (pow is slow in software GL)
  void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) discard;
    // The sphere's normal at this pixel, in view space (gl_PointCoord's y points down).
    vec3 n = vec3(p.x, -p.y, sqrt(1.0 - r2));
    float light = 0.35 + 0.75 * max(dot(n, lightDir), 0.0);
    // Scaling a linear colour by k scales its sRGB encoding by about k^(1/2.2) ~ sqrt(k).
    gl_FragColor = vec4(vColour * sqrt(light), 1.0);
  }
`;

class ImpostorParticles {
  constructor(count, radii, cull) {
    this.count = count;
    const g = new THREE.BufferGeometry();
    // With culling, an index lists the particles to draw (see buried.js); it changes per frame,
    // and when the camera moves (what is hidden depends on where it looks from).
    this.buried = cull ? new BuriedFilter(radii) : null;
    if (this.buried) {
      this.index = new THREE.BufferAttribute(this.buried.indices, 1).setUsage(THREE.DynamicDrawUsage);
      g.setIndex(this.index);
    }
    this.drawn = count;
    this.culled = false; // whether the index lists the particles to draw for this frame
    this.shell = SHELL_STILL;
    this.geometry = g;
    // The position and speed arrays are replaced by each frame's own views (see update).
    this.position = new THREE.BufferAttribute(new Float32Array(3 * count), 3).setUsage(THREE.DynamicDrawUsage);
    this.speed = new THREE.BufferAttribute(new Float32Array(count), 1).setUsage(THREE.DynamicDrawUsage);
    g.setAttribute('position', this.position);
    g.setAttribute('speed', this.speed);
    g.setAttribute('radius', new THREE.BufferAttribute(radii, 1));
    this.scratch = new Float32Array(3 * count); // dequantised positions
    this.material = new THREE.ShaderMaterial({
      vertexShader: impostorVertex,
      fragmentShader: impostorFragment,
      uniforms: {
        pointScale: { value: 1 },
        bySpeed: { value: 1 },
        range: { value: new THREE.Vector2(0, 1) },
        colourMap: { value: lutTexture('speed') },
        lightDir: { value: new THREE.Vector3(0, 0, 1) },
      },
    });
    this.maps = { speed: this.material.uniforms.colourMap.value, height: lutTexture('height') };
    this.object = new THREE.Points(g, this.material);
    this.object.frustumCulled = false; // particles move; a stale bounding sphere would cull them
  }

  update(frame, mapping) {
    const positions = framePositions(frame, this.scratch);
    this.position.array = positions;
    this.position.needsUpdate = true;
    this.culled = false; // the particles to draw are chosen at the next render (see cull)
    this.speed.array = frame.speeds;
    this.speed.needsUpdate = true;
    this.setMapping(mapping);
  }

  setMapping(mapping) {
    const u = this.material.uniforms;
    u.bySpeed.value = mapping.by === 'speed' ? 1 : 0;
    u.range.value.set(mapping.lo, mapping.hi);
    u.colourMap.value = this.maps[mapping.by];
  }

  /** Playback draws a thinner shell of the bed than a still picture (SHELL_PLAYING). */
  setPlaying(playing) {
    const shell = playing ? SHELL_PLAYING : SHELL_STILL;
    if (shell === this.shell) return;
    this.shell = shell;
    this.culled = false;
  }

  /** Called before each render: the sprite size, the light and the culling follow the camera. */
  beforeRender(camera, viewportHeight, worldLightDir) {
    const u = this.material.uniforms;
    u.pointScale.value = viewportHeight / (2 * Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2));
    u.lightDir.value.copy(worldLightDir).transformDirection(camera.matrixWorldInverse);
    if (this.buried) this.cull(camera.position);
  }

  /**
   * Lists the particles to draw for the camera at `eye` (world coordinates, which are the
   * particles' own; buried.js): once per frame shown, and again when the camera has moved far
   * enough to see other particles (buried.sameView).
   */
  cull(eye) {
    if (this.culled && this.buried.sameView(eye)) return;
    this.culled = true;
    this.drawn = this.buried.filter(this.position.array, eye, this.shell);
    this.geometry.setDrawRange(0, this.drawn);
    this.index.clearUpdateRanges();
    this.index.addUpdateRange(0, this.drawn); // upload only the part in use
    this.index.needsUpdate = true;
  }
}

class SphereParticles {
  constructor(count, radii, detail) {
    this.count = count;
    const geometry = new THREE.IcosahedronGeometry(1, detail);
    const material = new THREE.MeshLambertMaterial({ color: 0xffffff });
    this.object = new THREE.InstancedMesh(geometry, material, count);
    this.object.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    this.object.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(3 * count), 3);
    this.object.instanceColor.setUsage(THREE.DynamicDrawUsage);
    this.object.frustumCulled = false;
    // The scale part of each matrix never changes: write it once, then only the translation.
    const m = this.object.instanceMatrix.array;
    for (let i = 0; i < count; ++i) {
      const r = radii[i];
      m.set([r, 0, 0, 0, 0, r, 0, 0, 0, 0, r, 0, 0, 0, 0, 1], 16 * i);
    }
    this.scratch = new Float32Array(3 * count);
    this.drawn = count;
    this.tables = { speed: lut('speed'), height: lut('height') };
    this.frame = null;
  }

  update(frame, mapping) {
    const p = framePositions(frame, this.scratch);
    const m = this.object.instanceMatrix.array;
    for (let i = 0, n = this.count; i < n; ++i) {
      m[16 * i + 12] = p[3 * i];
      m[16 * i + 13] = p[3 * i + 1];
      m[16 * i + 14] = p[3 * i + 2];
    }
    this.object.instanceMatrix.needsUpdate = true;
    this.frame = frame;
    this.positions = p;
    this.setMapping(mapping);
  }

  setMapping(mapping) {
    if (!this.frame) return;
    const out = this.object.instanceColor.array;
    const table = this.tables[mapping.by];
    if (mapping.by === 'speed') {
      mapColours(this.frame.speeds, this.count, 1, 0, mapping.lo, mapping.hi, table, out);
    } else {
      mapColours(this.positions, this.count, 3, 2, mapping.lo, mapping.hi, table, out);
    }
    this.object.instanceColor.needsUpdate = true;
  }

  setPlaying() {}

  beforeRender() {}
}

/**
 * Makes the particle layer. `radii`: Float32Array of per-particle radii [m].
 * options.mode 'impostors' | 'spheres'; options.detail: icosphere subdivisions for 'spheres';
 * options.cull: skip particles buried inside the bed (impostors only; buried.js).
 */
export function createParticles(count, radii, { mode = 'impostors', detail = 0, cull = false } = {}) {
  return mode === 'spheres' ? new SphereParticles(count, radii, detail) : new ImpostorParticles(count, radii, cull);
}

/**
 * A speed scale for the colour bar that does not flicker: the largest 98th percentile of the
 * speeds seen so far (from a strided sample of at most 2,048 particles, so it costs little).
 */
export class SpeedScale {
  constructor() {
    this.value = 0;
    this.sample = new Float32Array(2048);
  }

  add(speeds) {
    const n = speeds.length;
    if (n === 0) return this.value;
    const m = Math.min(n, this.sample.length);
    const stride = n / m;
    for (let i = 0; i < m; ++i) this.sample[i] = speeds[Math.floor(i * stride)];
    const s = this.sample.subarray(0, m).sort();
    const p98 = s[Math.min(m - 1, Math.floor(0.98 * m))];
    if (Number.isFinite(p98) && p98 > this.value) this.value = p98;
    return this.value;
  }
}
