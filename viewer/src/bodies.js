// Rigid bodies (wheels, tools, feet, robot links) from the manifest's shapes, moved each frame
// to the poses of the frame file.

import * as THREE from 'three';

// three.js builds cylinders and capsules along +y; the format's axis is the body's z.
const Y_TO_Z = new THREE.Matrix4().makeRotationX(Math.PI / 2);

function geometryOf(shape) {
  switch (shape.kind) {
    case 'box':
      return new THREE.BoxGeometry(...shape.size_m);
    case 'sphere':
      return new THREE.SphereGeometry(shape.radius_m, 32, 16);
    case 'cylinder':
      return new THREE.CylinderGeometry(shape.radius_m, shape.radius_m, shape.length_m, 32).applyMatrix4(Y_TO_Z);
    case 'capsule':
      // CapsuleGeometry's length is the straight part between the caps, as in the format.
      return new THREE.CapsuleGeometry(shape.radius_m, shape.length_m, 8, 32).applyMatrix4(Y_TO_Z);
    case 'plane':
      // PlaneGeometry lies in its own xy plane, facing +z: the body frame's z = 0 plane.
      return new THREE.PlaneGeometry(shape.size_m[0], shape.size_m[1]);
    case 'mesh': {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.Float32BufferAttribute(shape.vertices_m, 3));
      g.setIndex(shape.triangles);
      // Meshes from CAD have sharp edges: un-share the vertices so the normals are per face.
      const flat = g.toNonIndexed();
      flat.computeVertexNormals();
      return flat;
    }
    default:
      throw new Error(`unknown shape kind ${shape.kind}`); // parseManifest refuses these first
  }
}

export class Bodies {
  /** @param bodies the manifest's bodies array */
  constructor(bodies) {
    this.object = new THREE.Group();
    this.meshes = bodies.map((b) => {
      const colour = new THREE.Color().setRGB(b.colour[0], b.colour[1], b.colour[2], THREE.SRGBColorSpace);
      const thin = b.shape.kind === 'plane' || b.shape.kind === 'mesh';
      const material = new THREE.MeshLambertMaterial({
        color: colour,
        // Planes have no back faces of their own, and meshes may be open or wound either way.
        side: thin ? THREE.DoubleSide : THREE.FrontSide,
      });
      const mesh = new THREE.Mesh(geometryOf(b.shape), material);
      mesh.name = b.name;
      mesh.visible = false; // until a frame gives its pose
      this.object.add(mesh);
      return mesh;
    });
  }

  /** poses: Float32Array of 7 per body: x, y, z, then the quaternion in w, x, y, z order. */
  update(poses) {
    for (let i = 0; i < this.meshes.length; ++i) {
      const p = 7 * i;
      const m = this.meshes[i];
      m.position.set(poses[p], poses[p + 1], poses[p + 2]);
      // three.js's Quaternion.set takes (x, y, z, w); the file stores w first. Normalised
      // again because float32 rounding leaves it slightly off unit length.
      m.quaternion.set(poses[p + 4], poses[p + 5], poses[p + 6], poses[p + 3]).normalize();
      m.visible = true;
    }
  }
}
