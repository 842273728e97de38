"""The ctypes structures against the C header: every size and field offset as a C compiler sees
include/estuary/estuary.h. A field added, removed or reordered on one side fails here."""
import ctypes
import pathlib
import re
import shutil
import subprocess

import pytest

from estuary import _capi

HEADER_DIR = pathlib.Path(__file__).resolve().parents[2] / "include"


def test_every_structure_matches_the_header(tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None or not (HEADER_DIR / "estuary" / "estuary.h").exists():
        pytest.skip("needs a C compiler and the source tree's include/estuary/estuary.h")
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
    subprocess.run([compiler, "-std=c99", f"-I{HEADER_DIR}", str(source), "-o",
                    str(tmp_path / "abi")], check=True)
    seen = subprocess.run([str(tmp_path / "abi")], check=True, capture_output=True,
                          text=True).stdout.split("\n")[:-1]
    assert seen == expected


def test_the_api_version_is_the_headers():
    if not (HEADER_DIR / "estuary" / "estuary.h").exists():
        pytest.skip("needs the source tree's include/estuary/estuary.h")
    text = (HEADER_DIR / "estuary" / "estuary.h").read_text()
    found = re.search(r"#define ESTUARY_API_VERSION ESTUARY_MAKE_VERSION\((\d+), (\d+), (\d+)\)",
                      text)
    major, minor, patch = (int(g) for g in found.groups())
    assert _capi.API_VERSION == (major << 22) | (minor << 12) | patch
