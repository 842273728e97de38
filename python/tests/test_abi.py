"""The ctypes structures against the C header, and the binding's pairing with the library.

Every size and field offset as a C compiler sees include/estuary/estuary.h: a field added,
removed or reordered on one side fails here, and so does a struct of the header the binding does
not mirror. Every struct with ESTUARY_STRUCT_SIZE starts with struct_size, which Python fills.
The binding loads only a library whose version pairs with its own."""
import ctypes
import pathlib
import re
import shutil
import subprocess

import pytest

import estuary
from estuary import _capi

HEADER = pathlib.Path(__file__).resolve().parents[2] / "include" / "estuary" / "estuary.h"


def header_text():
    if not HEADER.exists():
        pytest.skip("needs the source tree's include/estuary/estuary.h")
    return HEADER.read_text()


def test_every_structure_matches_the_header(tmp_path):
    header_text()
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("needs a C compiler")
    lines = ["#include <estuary/estuary.h>", "#include <stddef.h>", "#include <stdio.h>",
             "int main(void) {"]
    expected = []
    for name, struct in _capi.STRUCTS.items():
        lines.append(f'    printf("{name} %zu\\n", sizeof({name}));')
        expected.append(f"{name} {ctypes.sizeof(struct)}")
        for field, _ in struct._fields_:
            lines.append(f'    printf("{name}.{field} %zu\\n", offsetof({name}, {field}));')
            expected.append(f"{name}.{field} {getattr(struct, field).offset}")
    lines += ["    return 0;", "}"]
    source = tmp_path / "abi.c"
    source.write_text("\n".join(lines) + "\n")
    subprocess.run([compiler, "-std=c99", "-Wall", "-Werror", f"-I{HEADER.parent.parent}",
                    str(source), "-o", str(tmp_path / "abi")], check=True)
    seen = subprocess.run([str(tmp_path / "abi")], check=True, capture_output=True,
                          text=True).stdout.split("\n")[:-1]
    assert seen == expected


def test_every_struct_of_the_header_is_mirrored_and_sized_ones_start_with_their_size():
    text = header_text()
    declared = set(re.findall(r"typedef struct (estuary_\w+) \{", text))
    sized = set(re.findall(r"ESTUARY_STRUCT_SIZE\((estuary_\w+)\);", text))
    assert declared == set(_capi.STRUCTS), "structs of estuary.h without a ctypes mirror, or back"
    assert sized and sized <= declared
    for name, struct in _capi.STRUCTS.items():
        starts_sized = struct._fields_[0] == ("struct_size", ctypes.c_uint32)
        assert starts_sized == (name in sized), name
        assert issubclass(struct, _capi.Sized) == (name in sized), name
        if name in sized:
            made = struct()  # as every description, output and pick buffer is made
            assert made.struct_size == ctypes.sizeof(struct) > 4, name


def test_integer_fields_refuse_values_their_c_type_cannot_hold():
    desc = _capi.ImageDesc()
    with pytest.raises(estuary.InvalidArgument, match=r"estuary_image_desc.width 4294967312 does "
                                                      r"not fit the C API's uint32_t: 0 to "
                                                      r"4294967295"):
        desc.width = 2**32 + 16
    with pytest.raises(ValueError, match=r"estuary_buffer_desc.size -1 .*uint64_t"):
        _capi.BufferDesc().size = -1
    with pytest.raises(ValueError, match=r"estuary_viewer_desc.cuda_device 2147483648 .*int32_t"):
        _capi.ViewerDesc().cuda_device = 2**31
    desc.width, desc.height = 2**32 - 1, 0
    assert (desc.width, desc.height) == (2**32 - 1, 0), "the ends of the range go through"


def test_the_api_version_is_the_headers():
    found = re.search(r"#define ESTUARY_API_VERSION ESTUARY_MAKE_VERSION\((\d+), (\d+), (\d+)\)",
                      header_text())
    major, minor, patch = (int(g) for g in found.groups())
    assert _capi.API_VERSION == (major << 22) | (minor << 12) | patch


def version(major, minor, patch=0):
    return (major << 22) | (minor << 12) | patch


@pytest.mark.parametrize("library, binding, pairs", [
    (version(0, 3, 0), version(0, 3, 0), True),
    (version(0, 3, 7), version(0, 3, 0), True),    # a later patch serves an older binding
    (version(0, 3, 0), version(0, 3, 1), False),   # but not a newer one: functions it lacks
    (version(0, 2, 0), version(0, 3, 0), False),   # below 1.0 a minor version breaks
    (version(0, 4, 0), version(0, 3, 0), False),
    (version(1, 0, 0), version(0, 3, 0), False),
    (version(1, 4, 0), version(1, 2, 0), True),    # from 1.0 only the major version breaks
    (version(2, 0, 0), version(1, 9, 0), False)])
def test_the_pairing_rule(library, binding, pairs):
    assert _capi.pairs(library, binding) is pairs


def test_a_library_of_another_version_is_refused_naming_both(monkeypatch):
    real = _capi.API_VERSION
    assert _capi.load().estuary_version() == real  # the matching pairing loads
    monkeypatch.setattr(_capi, "API_VERSION", version(0, 4, 1))
    with pytest.raises(ImportError, match=rf"is libestuary {_capi.version_text(real)}, but this "
                                          r"estuary package is the binding of 0\.4\.1 \(below "
                                          r"1\.0, major and minor versions equal\)"):
        _capi.load()
    monkeypatch.setattr(_capi, "API_VERSION", version(1, 3, 0))
    with pytest.raises(ImportError, match=r"binding of 1\.3\.0 \(major versions equal\)"):
        _capi.load()


def test_a_viewer_is_made_with_the_bindings_version():
    """estuary_create_viewer checks the version the binding passes (the C side of the pairing)."""
    desc = _capi.ViewerDesc()
    desc.api_version = version(0, 2, 0)
    desc.display, desc.cuda = _capi.DISPLAY["headless"], _capi.CUDA_MODE["off"]
    handle = ctypes.c_void_p()
    status = estuary._library.lib.estuary_create_viewer(ctypes.byref(desc), ctypes.byref(handle))
    assert status == _capi.ERROR_INVALID_ARGUMENT and not handle.value
    assert b"0.2" in estuary._library.lib.estuary_last_error()
