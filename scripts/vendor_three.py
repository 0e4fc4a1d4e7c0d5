"""Vendor three.js for the browser page: the npm package `three` at one pinned version, checked.

    python scripts/vendor_three.py                # VERSION below
    python scripts/vendor_three.py --version 0.188.0

Downloads the package's tarball from the npm registry, checks it against the SHA-512 integrity the
registry's metadata gives for that version, and copies into tabletop/web/vendor/three/ only what the
page imports: the module build (build/three.module.js and build/three.core.js, which it imports; this
version ships no minified build), the glTF loader and the orbit controls from examples/jsm with every
module they import, relatively, and three's LICENSE, with a VERSION file (the version, the tarball's
address and its integrity). The examples import three by its bare name ('three'), which a browser
resolves only through an import map, an inline script the page's content security policy forbids: the
copies import it by its relative address instead (the one change made to three's files).

Run it to update three (then commit tabletop/web/vendor/three/ and check the page in a browser);
nothing is downloaded at run time. Needs the network; the standard library only.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import posixpath
import re
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path

VERSION = "0.187.0"
REGISTRY = "https://registry.npmjs.org"
ROOT = Path(__file__).resolve().parents[1]
DEST = ROOT / "tabletop" / "web" / "vendor" / "three"
ENTRIES = ["build/three.module.js", "examples/jsm/loaders/GLTFLoader.js", "examples/jsm/controls/OrbitControls.js"]
BARE = "build/three.module.js"          # what `from 'three'` means
IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*)(['"])([^'"]+)\2""")


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read()


def checked_tarball(version: str) -> tuple[bytes, dict]:
    """The package's tarball and its metadata's `dist`, the tarball checked against its integrity."""
    meta = json.loads(fetch(f"{REGISTRY}/three/{version}"))
    dist = meta["dist"]
    algorithm, _, expected = dist["integrity"].partition("-")
    if algorithm != "sha512":
        sys.exit(f"three {version}: the registry gives a {algorithm} integrity, not sha512")
    data = fetch(dist["tarball"])
    got = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if got != expected:
        sys.exit(f"three {version}: the tarball's SHA-512 is not the registry's integrity: not copied")
    return data, dist


def relative(source: str, target: str) -> str:
    """The address of package file `target` as module `source` imports it."""
    rel = posixpath.relpath(target, posixpath.dirname(source))
    return rel if rel.startswith(".") else f"./{rel}"


def collect(files: dict[str, bytes]) -> dict[str, str]:
    """The entries and every module they import (relative addresses followed, 'three' taken as
    BARE), each with its bare imports rewritten to relative addresses."""
    out: dict[str, str] = {}
    todo = list(ENTRIES)
    while todo:
        path = todo.pop()
        if path in out:
            continue
        text = files[path].decode("utf-8")

        def rewrite(match: re.Match, path=path) -> str:
            lead, quote, spec = match.groups()
            if spec == "three":
                target = BARE
            elif spec.startswith("."):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
            else:
                return match.group(0)         # a bare name in a comment (the examples' @three_import lines)
            todo.append(target)
            return f"{lead}{quote}{relative(path, target)}{quote}"

        lines = []
        for line in text.splitlines(keepends=True):
            stripped = line.lstrip()
            comment = stripped.startswith(("*", "//", "/*"))
            lines.append(line if comment else IMPORT.sub(rewrite, line))
        out[path] = "".join(lines)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=VERSION, help=f"the npm package's version (default {VERSION})")
    args = parser.parse_args(argv)
    data, dist = checked_tarball(args.version)
    files = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.startswith("package/"):
                files[member.name[len("package/"):]] = tar.extractfile(member).read()
    modules = collect(files)
    if DEST.exists():
        shutil.rmtree(DEST)
    for path, text in sorted(modules.items()):
        target = DEST / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (DEST / "LICENSE").write_bytes(files["LICENSE"])
    (DEST / "VERSION").write_text(f"three {args.version}\n{dist['tarball']}\n{dist['integrity']}\n"
                                  f"copied by scripts/vendor_three.py: {', '.join(sorted(modules))}, LICENSE\n")
    size = sum((DEST / p).stat().st_size for p in modules)
    print(f"three {args.version}: {len(modules)} modules ({size / 1e6:.2f} MB) and LICENSE in "
          f"{DEST.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
