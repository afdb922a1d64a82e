"""Fetch the vendored JavaScript from npm at pinned versions and check it against pinned SHA-256 hashes.

    python scripts/vendor_assets.py           # fetch with `npm pack`, verify, write
    python scripts/vendor_assets.py --check   # verify the files on disk; no network

Every file we vendor is one row of PINS: the npm package and exact version, the file inside the package,
where it goes in this repository, and its SHA-256. Fetching downloads each package once with `npm pack` into
a temporary directory, reads the files straight out of the tarball (nothing is extracted to disk, so no
member name can write outside the destination), and refuses to write anything unless every file matches
its pin; on a mismatch it prints the expected and the actual hash and exits 1.

To upgrade: change the version in PINS, run the script, review the new files (the diff of the upstream
release, not the minified output), then copy the "actual" hashes it printed into PINS and run it again.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Pin:
    package: str  # npm package name
    version: str  # exact version, never a range
    member: str  # path inside the package (the tarball's top-level folder, usually `package/`, left out)
    destination: str  # path in this repository, relative to its root
    sha256: str


# A pin a line a part: package and version; the member of its tarball and where it goes; the member's sha256.
PINS: tuple[Pin, ...] = (
    # htmx: served to every page (static/ is packed into the wheel).
    Pin("htmx.org", "2.0.11",
        "dist/htmx.min.js", "static/vendor/htmx.min.js",
        "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"),
    Pin("htmx.org", "2.0.11",
        "LICENSE", "static/vendor/htmx.LICENSE",
        "d3d2456f76414f2456104660ebd65aff1c04cd7966b942bdabd63f3cdb316a38"),
    # htmx's server-sent events extension (0BSD, as htmx): the pages of a class in the room hear the lecturer's moves
    # through it. 2.2.4 asks for htmx ^2.0.2, which the htmx above satisfies.
    Pin("htmx-ext-sse", "2.2.4",
        "dist/sse.min.js", "static/vendor/sse-extension.min.js",
        "98a46496de0c3605fbffdce9167ba427bdd9553184f83f149c261891a92c0136"),
    Pin("htmx-ext-sse", "2.2.4",
        "LICENSE", "static/vendor/sse-extension.LICENSE",
        "a17d224ce9afdc21ec9491b76a2f5d036d19aa641ac4f85ca29c21f9f7e54fdf"),
    # axe-core: accessibility checks in the browser tests only (MPL-2.0; axe.min.js bundles MIT-licensed code).
    Pin("axe-core", "4.14.1",
        "axe.min.js", "tests/vendor/axe.min.js",
        "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"),
    Pin("axe-core", "4.14.1",
        "LICENSE", "tests/vendor/axe-core.LICENSE",
        "af175b9d96ee93c21a036152e1b905b0b95304d4ae8c2c921c7609100ba8df7e"),
    Pin("axe-core", "4.14.1",
        "LICENSE-3RD-PARTY.txt", "tests/vendor/axe-core.LICENSE-3RD-PARTY.txt",
        "4f8563870d0fca38bbc3e00b6f670cb7fa9f380ba9f26a7f7d1184a6b18b1653"),
)

MAX_MEMBER_BYTES = 16 * 1024 * 1024  # a vendored file larger than this is not what we meant to pin


class VendorError(Exception):
    """A pin that cannot be satisfied; the message says which file and why."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def packages(pins: tuple[Pin, ...] = PINS) -> dict[str, str]:
    """{package: version}, refusing a table that pins one package at two versions."""
    versions: dict[str, str] = {}
    for pin in pins:
        if versions.setdefault(pin.package, pin.version) != pin.version:
            raise VendorError(f"{pin.package} is pinned at both {versions[pin.package]} and {pin.version}; pick one")
    return versions


def check(root: Path = REPO_ROOT, pins: tuple[Pin, ...] = PINS) -> list[str]:
    """Problems with the vendored files under `root` (missing, or not matching the pinned hash); [] if none."""
    problems = []
    for pin in pins:
        path = root / pin.destination
        if not path.is_file():
            problems.append(f"{pin.destination}: missing (run python scripts/vendor_assets.py)")
            continue
        actual = sha256(path.read_bytes())
        if actual != pin.sha256:
            problems.append(
                f"{pin.destination}: sha256 mismatch for {pin.package}@{pin.version} {pin.member}\n"
                f"  expected {pin.sha256}\n  actual   {actual}"
            )
    return problems


def npm_pack(package: str, version: str, directory: Path) -> Path:
    """Download `package@version` from the configured npm registry into `directory`; the tarball's path."""
    npm = shutil.which("npm")
    if npm is None:
        raise VendorError("npm is not on PATH; install Node.js to fetch the vendored assets")
    spec = f"{package}@{version}"
    result = subprocess.run(
        [npm, "pack", spec, "--json", "--ignore-scripts", "--pack-destination", str(directory)],
        cwd=directory, capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        raise VendorError(f"npm pack {spec} failed:\n{result.stderr.strip()}")
    try:
        (info,) = json.loads(result.stdout)
    except ValueError as error:
        raise VendorError(f"npm pack {spec} printed something other than one package's JSON: {error}") from None
    if (info.get("name"), info.get("version")) != (package, version):
        raise VendorError(f"npm pack {spec} returned {info.get('name')}@{info.get('version')}")
    tarball = directory / Path(info["filename"]).name
    if not tarball.is_file():
        raise VendorError(f"npm pack {spec} did not write {tarball.name}")
    return tarball


def read_member(tarball: Path, member: str) -> bytes:
    """The bytes of `member` (path inside the package) from an npm tarball, read without extracting anything.

    npm tarballs hold one top-level folder (`package/`); the member is looked up below it. Only a regular
    file is accepted: a link, device or duplicate entry is refused rather than followed.
    """
    with tarfile.open(tarball, "r:gz") as archive:
        matches = [
            info for info in archive.getmembers()
            if info.name.split("/", 1)[1:] == [member]
        ]
        if not matches:
            raise VendorError(f"{tarball.name} has no {member}")
        if len(matches) > 1:
            raise VendorError(f"{tarball.name} has {len(matches)} entries named {member}")
        (info,) = matches
        if not info.isfile():
            raise VendorError(f"{tarball.name}: {member} is not a regular file")
        if info.size > MAX_MEMBER_BYTES:
            raise VendorError(f"{tarball.name}: {member} is {info.size} bytes, more than {MAX_MEMBER_BYTES}")
        stream = archive.extractfile(info)
        assert stream is not None  # a regular file always has a stream
        return stream.read()


def verified(pin: Pin, data: bytes) -> bytes:
    """`data` if it matches the pin, else VendorError with the expected and the actual hash."""
    actual = sha256(data)
    if actual != pin.sha256:
        raise VendorError(
            f"{pin.package}@{pin.version} {pin.member}: sha256 mismatch, refusing to write {pin.destination}\n"
            f"  expected {pin.sha256}\n  actual   {actual}"
        )
    return data


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def fetch(root: Path = REPO_ROOT, pins: tuple[Pin, ...] = PINS) -> list[str]:
    """Fetch, verify, then write every pinned file; nothing is written unless all of them verify."""
    contents: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="webnb-vendor-") as directory:
        for package, version in packages(pins).items():
            tarball = npm_pack(package, version, Path(directory))
            for pin in pins:
                if pin.package == package:
                    contents[pin.destination] = verified(pin, read_member(tarball, pin.member))
    for destination, data in contents.items():
        write_atomically(root / destination, data)
    return list(contents)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="verify the vendored files against the pinned hashes without fetching")
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = check()
            if problems:
                print("Vendored files do not match the pins in scripts/vendor_assets.py:", file=sys.stderr)
                print("\n".join(problems), file=sys.stderr)
                return 1
            print(f"{len(PINS)} vendored files match their pinned sha256")
            return 0
        for destination in fetch():
            print(f"wrote {destination}")
        return 0
    except VendorError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
