"""Run by ctest (Python.InstalledPackageFindsTheInstalledLibrary) with PYTHONPATH on the install
tree's site-packages and no ESTUARY_LIBRARY: the package must find the installed libestuary (and
it its installed shaders), draw a frame and close with no validation message."""
import pathlib
import sys

import numpy as np

import estuary

prefix = pathlib.Path(sys.argv[1]).resolve()
library = pathlib.Path(estuary.library_path).resolve()
print(f"package {pathlib.Path(estuary.__file__).parent}, library {library}")
assert prefix in library.parents, f"{library} is not the install tree's ({prefix})"
assert prefix in pathlib.Path(estuary.__file__).resolve().parents
with estuary.Viewer(display="headless", cuda="off", width=64, height=48, validation=True) as v:
    print("data from", v.info["data_dir"])
    assert prefix in pathlib.Path(v.info["data_dir"]).resolve().parents
    field = v.image((8, 8))
    v.field_view(field, colorbar=False)
    with v.frame() as frame:
        frame.show(field, np.ones((8, 8), np.float32))
    assert tuple(v.pixels()[24, 32][:3]) != (0, 0, 0)
    assert v.close() == 0
print("ok")
