"""A PEP 517 build backend for the pure-Python estuary package, with no requirements: a wheel is
a zip of the package, its METADATA, WHEEL and RECORD. Written here because setuptools would have
to be downloaded into pip's isolated build environment, and installs must work offline."""

import base64
import hashlib
import io
import pathlib
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
NAME, VERSION = "estuary", "0.3.5"
TAG = "py3-none-any"


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: Watch CUDA or NumPy arrays live with estuary\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\n")


def _sources():
    return sorted(p for p in (ROOT / NAME).rglob("*.py") if "__pycache__" not in p.parts)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    info = f"{NAME}-{VERSION}.dist-info"
    files = [(p.relative_to(ROOT).as_posix(), p.read_bytes()) for p in _sources()]
    files += [(f"{info}/METADATA", _metadata().encode()),
              (f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: estuary_backend\n"
                                f"Root-Is-Purelib: true\nTag: {TAG}\n".encode())]
    record = [_record_line(name, data) for name, data in files] + [f"{info}/RECORD,,"]
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    wheel = f"{NAME}-{VERSION}-{TAG}.whl"
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files:
            zf.writestr(name, data)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{VERSION}"
    name = f"{base}.tar.gz"
    with tarfile.open(pathlib.Path(sdist_directory) / name, "w:gz") as tar:
        for path in _sources() + [ROOT / "pyproject.toml"] + sorted((ROOT / "_backend").glob("*.py")):
            tar.add(path, arcname=f"{base}/{path.relative_to(ROOT).as_posix()}")
        data = _metadata().encode()
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(data)
        tar.addfile(entry, io.BytesIO(data))
    return name
