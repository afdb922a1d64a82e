"""Vendored JavaScript matches the pins in scripts/vendor_assets.py, and pages load scripts from this server only."""
from __future__ import annotations

import importlib.util
import io
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "vendor_assets.py"
TEMPLATES = REPO_ROOT / "templates"
STATIC = REPO_ROOT / "static"


def load_script():
    spec = importlib.util.spec_from_file_location("vendor_assets", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


vendor_assets = load_script()


def remote(url: str) -> bool:
    return url.strip().lower().startswith(("http:", "https:", "//"))


# The pins and the files on disk.


def test_vendored_files_match_their_pins():
    assert vendor_assets.check() == []


def test_check_command_exits_zero():
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert f"{len(vendor_assets.PINS)} vendored files match" in result.stdout


def test_every_vendored_file_is_pinned():
    on_disk = {
        path.relative_to(REPO_ROOT).as_posix()
        for folder in (STATIC / "vendor", REPO_ROOT / "tests" / "vendor")
        for path in folder.iterdir()
    }
    assert on_disk == {pin.destination for pin in vendor_assets.PINS}


def test_pins_are_exact_versions_with_full_hashes():
    for pin in vendor_assets.PINS:
        assert re.fullmatch(r"\d+\.\d+\.\d+", pin.version), pin
        assert re.fullmatch(r"[0-9a-f]{64}", pin.sha256), pin
    versions = vendor_assets.packages()
    assert versions["htmx.org"] == "2.0.11"
    assert versions["axe-core"].startswith("4.")


def test_vendored_htmx_is_the_pinned_version():
    assert 'version:"2.0.11"' in (STATIC / "vendor" / "htmx.min.js").read_text(encoding="utf-8")


# The checks refuse what does not match (no network: tarballs are built here).


def htmx_pins():
    return tuple(pin for pin in vendor_assets.PINS if pin.package == "htmx.org")


def test_check_reports_a_changed_file_with_both_hashes(tmp_path):
    pins = htmx_pins()
    for pin in pins:
        target = tmp_path / pin.destination
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((REPO_ROOT / pin.destination).read_bytes())
    assert vendor_assets.check(tmp_path, pins) == []

    changed = tmp_path / pins[0].destination
    changed.write_bytes(changed.read_bytes() + b"\n")
    (problem,) = vendor_assets.check(tmp_path, pins)
    assert f"expected {pins[0].sha256}" in problem
    assert f"actual   {vendor_assets.sha256(changed.read_bytes())}" in problem

    (tmp_path / pins[1].destination).unlink()
    assert any("missing" in problem for problem in vendor_assets.check(tmp_path, pins))


def npm_tarball(path: Path, entries: dict[str, bytes | None]) -> Path:
    """A tarball shaped like npm's; an entry of None is a symlink."""
    with tarfile.open(path, "w:gz") as archive:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
                archive.addfile(info)
            else:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return path


def test_read_member_takes_the_file_below_the_package_folder(tmp_path):
    tarball = npm_tarball(tmp_path / "p.tgz", {"package/dist/a.js": b"a", "package/LICENSE": b"l"})
    assert vendor_assets.read_member(tarball, "dist/a.js") == b"a"
    assert vendor_assets.read_member(tarball, "LICENSE") == b"l"


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"package/other.js": b"x"}, "has no dist/a.js"),
        ({"package/dist/a.js": None}, "not a regular file"),
        ({"package/dist/a.js": b"1", "other/dist/a.js": b"2"}, "2 entries"),
    ],
)
def test_read_member_refuses_a_missing_linked_or_ambiguous_file(tmp_path, entries, message):
    tarball = npm_tarball(tmp_path / "p.tgz", entries)
    with pytest.raises(vendor_assets.VendorError, match=message):
        vendor_assets.read_member(tarball, "dist/a.js")


def test_verified_refuses_a_mismatch_with_both_hashes():
    pin = vendor_assets.PINS[0]
    with pytest.raises(vendor_assets.VendorError, match="refusing to write") as raised:
        vendor_assets.verified(pin, b"not htmx")
    assert pin.sha256 in str(raised.value)
    assert vendor_assets.sha256(b"not htmx") in str(raised.value)


def test_one_package_cannot_be_pinned_at_two_versions():
    pin = vendor_assets.PINS[0]
    with pytest.raises(vendor_assets.VendorError, match="pinned at both"):
        vendor_assets.packages((pin, vendor_assets.Pin(pin.package, "0.0.1", "LICENSE", "x", pin.sha256)))


def test_fetch_writes_nothing_when_a_file_does_not_verify(tmp_path, monkeypatch):
    def fake_pack(package, version, directory):
        return npm_tarball(directory / "p.tgz", {"package/dist/htmx.min.js": b"tampered", "package/LICENSE": b"0BSD"})

    monkeypatch.setattr(vendor_assets, "npm_pack", fake_pack)
    with pytest.raises(vendor_assets.VendorError, match="sha256 mismatch"):
        vendor_assets.fetch(tmp_path, htmx_pins())
    assert list(tmp_path.iterdir()) == []


def test_command_refuses_a_mismatch_and_prints_both_hashes(monkeypatch, capsys):
    def tampered_pack(package, version, directory):
        members = {f"package/{pin.member}": b"tampered" for pin in vendor_assets.PINS if pin.package == package}
        return npm_tarball(directory / "p.tgz", members)

    monkeypatch.setattr(vendor_assets, "npm_pack", tampered_pack)
    assert vendor_assets.main([]) == 1
    error = capsys.readouterr().err
    assert f"expected {vendor_assets.PINS[0].sha256}" in error
    assert f"actual   {vendor_assets.sha256(b'tampered')}" in error
    assert vendor_assets.check() == []  # and the vendored files were left alone


# Pages load scripts and styles from this server only.


TEMPLATE_FILES = sorted(TEMPLATES.rglob("*.html"))


@pytest.mark.parametrize("template", TEMPLATE_FILES, ids=lambda path: path.relative_to(TEMPLATES).as_posix())
def test_template_loads_no_remote_script_or_stylesheet(template):
    soup = BeautifulSoup(template.read_text(encoding="utf-8"), "html.parser")
    urls = [tag["src"] for tag in soup.find_all("script", src=True)]
    urls += [tag["href"] for tag in soup.find_all("link", href=True)]
    assert [url for url in urls if remote(url)] == []


@pytest.mark.parametrize("stylesheet", sorted(STATIC.rglob("*.css")), ids=lambda path: path.name)
def test_stylesheet_imports_nothing_remote(stylesheet):
    urls = re.findall(r"""(?:url\(\s*|@import\s+)["']?([^"')\s;]+)""", stylesheet.read_text(encoding="utf-8"))
    assert [url for url in urls if remote(url)] == []


def test_base_loads_the_vendored_htmx():
    soup = BeautifulSoup((TEMPLATES / "base.html").read_text(encoding="utf-8"), "html.parser")
    (htmx,) = [script for script in soup.find_all("script", src=True) if "htmx" in script["src"]]
    url_for_static = r"""\{\{\s*url_for\(\s*'static'\s*,\s*filename\s*=\s*'([^']+)'\s*\)\s*\}\}"""
    static_file = re.fullmatch(url_for_static, htmx["src"])
    assert static_file is not None, f"htmx is not loaded from the static folder: {htmx['src']}"
    assert f"static/{static_file[1]}" == "static/vendor/htmx.min.js"
    assert "static/vendor/htmx.min.js" in {pin.destination for pin in vendor_assets.PINS}
