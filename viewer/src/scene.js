// The three.js scene of a run: renderer, camera framed on the manifest's bounds, lights, and
// the particle, terrain and body layers. It knows nothing of fetching or of the timeline:
// showFrame(frame) puts a parsed frame on screen, render() draws.

import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { createParticles, SpeedScale, ColourMapping } from './particles.js';
import { Terrain } from './terrain.js';
import { Bodies } from './bodies.js';
import { ColourBar } from './colours.js';

// Light from the south-west, fairly low (40 degrees up), so ruts and berms cast shading.
const SUN_DIRECTION = new THREE.Vector3(-0.6, -0.45, 0.65).normalize();

export class ViewScene {
  /**
   * @param manifest checked manifest
   * @param radii    Float32Array of particle radii, or null without particles
   * @param canvasParent element the canvas goes into (its size is the canvas's size)
   * @param legendParent element the colour bars go into
   * @param options  { mode: 'impostors' | 'spheres', detail, antialias, cull, scale }
   */
  constructor(manifest, radii, canvasParent, legendParent, options) {
    this.manifest = manifest;
    this.renderer = new THREE.WebGLRenderer({ antialias: options.antialias, powerPreference: 'high-performance' });
    this.renderer.setPixelRatio(options.scale);
    this.renderer.setClearColor(0x9eabb8);  // light enough for the dark end of the speed map
    canvasParent.append(this.renderer.domElement);
    this.canvasParent = canvasParent;

    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.01, 100);
    this.camera.up.set(0, 0, 1); // z is up in talus; must be set before OrbitControls is made
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.frameBounds(manifest.bounds_m);

    // HemisphereLight's "up" is its position: sky from +z, ground bounce from below.
    const sky = new THREE.HemisphereLight(0xdfe8f5, 0x4a4036, 1.2);
    sky.position.set(0, 0, 1);
    this.scene.add(sky);
    const sun = new THREE.DirectionalLight(0xffffff, 2.2);
    sun.position.copy(SUN_DIRECTION); // a DirectionalLight shines from its position to its target (the origin)
    this.scene.add(sun);

    this.particles = null;
    this.terrain = null;
    this.bodies = null;
    this.legends = {};
    if (manifest.particles) {
      this.particles = createParticles(manifest.particles.count, radii, options);
      this.scene.add(this.particles.object);
      this.speedScale = new SpeedScale();
      this.legends.particles = new ColourBar(legendParent);
    }
    if (manifest.heightmap) {
      this.terrain = new Terrain(manifest.heightmap);
      this.scene.add(this.terrain.object);
      this.legends.terrain = new ColourBar(legendParent);
    }
    if (manifest.bodies.length > 0) {
      this.bodies = new Bodies(manifest.bodies);
      this.scene.add(this.bodies.object);
    }
    this.colourBy = 'speed';
    this.mapping = new ColourMapping('speed', 0, 1);
    this.viewportHeight = 1;
    this.resize();
  }

  /** Places the camera to see the whole box, from the south-east and above, looking at its centre. */
  frameBounds(bounds) {
    const lo = new THREE.Vector3(...bounds.lo);
    const hi = new THREE.Vector3(...bounds.hi);
    const centre = lo.clone().add(hi).multiplyScalar(0.5);
    const radius = Math.max(hi.distanceTo(lo) / 2, 1e-3);
    const fov = THREE.MathUtils.degToRad(this.camera.fov);
    const distance = (radius / Math.sin(fov / 2)) * 1.05;
    const dir = new THREE.Vector3(0.55, -1.0, 0.75).normalize();
    this.camera.position.copy(centre).addScaledVector(dir, distance);
    this.camera.near = distance / 100;
    this.camera.far = distance * 10;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(centre);
    this.controls.maxDistance = distance * 5;
    this.controls.update();
  }

  /** Fits the canvas to its parent; returns true when the size changed. */
  resize() {
    const w = Math.max(1, this.canvasParent.clientWidth);
    const h = Math.max(1, this.canvasParent.clientHeight);
    const size = this.renderer.getSize(new THREE.Vector2());
    if (size.x === w && size.y === h) return false;
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.viewportHeight = h * this.renderer.getPixelRatio();
    return true;
  }

  setColourBy(by) {
    this.colourBy = by;
    this.updateMapping();
    if (this.particles) this.particles.setMapping(this.mapping);
  }

  updateMapping() {
    if (!this.particles) return;
    if (this.colourBy === 'speed') {
      this.mapping.by = 'speed';
      this.mapping.lo = 0;
      this.mapping.hi = Math.max(this.speedScale.value, 0.001); // a bed at rest: 0..1 mm/s
      this.legends.particles.set('particle speed', 'speed', this.mapping.lo, this.mapping.hi, 'm/s');
    } else {
      // Heights over the run's box: fixed, so a particle keeps its colour while it stays put.
      this.mapping.by = 'height';
      this.mapping.lo = this.manifest.bounds_m.lo[2];
      this.mapping.hi = this.manifest.bounds_m.hi[2];
      this.legends.particles.set('particle height z', 'height', this.mapping.lo, this.mapping.hi, 'm');
    }
  }

  /** Puts a parsed frame on screen (drawn by the next render). A layer the frame lacks is hidden. */
  showFrame(frame) {
    if (this.particles) {
      const has = frame.particleCount > 0;
      this.particles.object.visible = has;
      if (has) {
        this.speedScale.add(frame.speeds);
        this.updateMapping();
        this.particles.update(frame, this.mapping);
      }
    }
    if (this.terrain) {
      const has = frame.heights !== null;
      this.terrain.object.visible = has;
      if (has) {
        this.terrain.update(frame.heights);
        const [lo, hi] = this.terrain.range();
        this.legends.terrain.set('terrain height z', 'height', lo, hi, 'm');
      }
    }
    if (this.bodies) this.bodies.update(frame.poses);
  }

  /** Tells the layers whether playback is running (the particles trade detail for speed then). */
  setPlaying(playing) {
    if (this.particles) this.particles.setPlaying(playing);
  }

  render() {
    // The particle shader needs this frame's view matrix (render would update it only later).
    this.camera.updateMatrixWorld();
    if (this.particles) this.particles.beforeRender(this.camera, this.viewportHeight, SUN_DIRECTION);
    this.renderer.render(this.scene, this.camera);
  }
}
