"""Python: a closed mesh as a shape (signed distance, lowest point), and open meshes refused."""

import os
import pathlib

import numpy as np
import pytest

import talus

SOURCE_DIR = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DATA = SOURCE_DIR / "tests" / "data"


def test_mesh_shape_from_a_file():
    cube = talus.MeshShape(DATA / "cube.stl", sdf_cell_m=0.01, scale=0.1)
    assert cube.source.endswith("cube.stl")
    talus.validate_shape(cube)
    assert talus.signed_distance(cube, np.array([0.05, 0.05, 0.05])) == pytest.approx(-0.05, abs=1e-6)
    X = talus.make_pose(np.array([1.0, 2.0, 0.0]))
    assert talus.lowest_point_z(cube, X, 1.05, 2.05) == pytest.approx(0.0, abs=1e-3)


def test_open_mesh_is_refused_with_its_boundary_edges():
    with pytest.raises(ValueError, match="4 boundary edges"):
        talus.MeshShape(DATA / "open_box.obj", sdf_cell_m=0.1)
