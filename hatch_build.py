"""Hatchling build hook: compile the Cython kernels (reportgen/divergence/_kernels.pyx, the
JSON byte scan reportgen/formats/_scan.pyx and the canonical-JSON check
reportgen/archive/_canonical.pyx).

A wheel gets the compiled module under reportgen/divergence/ and a platform tag; an editable
install compiles it in place, next to the .pyx, where the source tree is imported from. A
missing compiler fails the build with the compiler's own message: the divergence metrics have
no slower fallback to hide behind.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

EXTENSIONS = {
    "reportgen.divergence._kernels": "reportgen/divergence/_kernels.pyx",
    "reportgen.formats._scan": "reportgen/formats/_scan.pyx",
    "reportgen.archive._canonical": "reportgen/archive/_canonical.pyx",
}


def compile_extensions(root: Path, build_dir: Path) -> dict[str, Path]:
    """Cythonize and compile every extension into ``build_dir``; return module -> file."""
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    extensions = [
        Extension(name, [str(root / source)], extra_compile_args=["-O3"])
        for name, source in EXTENSIONS.items()
    ]
    modules = cythonize(
        extensions,
        compiler_directives={"language_level": "3"},
        build_dir=str(build_dir / "cython"),
        quiet=True,
    )
    dist = Distribution({"name": "reportgen-kernels", "ext_modules": modules})
    command = build_ext(dist)
    command.build_lib = str(build_dir / "lib")
    command.build_temp = str(build_dir / "temp")
    command.ensure_finalized()
    command.run()
    return {name: build_dir / "lib" / command.get_ext_filename(name) for name in EXTENSIONS}


class KernelBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Compile the kernels for wheels (shipped inside) and editable installs (in place)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        self._build_dir = build_dir = Path(tempfile.mkdtemp(prefix="reportgen-build-"))
        built = compile_extensions(root, build_dir)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for name, path in built.items():
            relative = name.replace(".", "/").rsplit("/", 1)[0] + "/" + path.name
            if version == "editable":
                target = root / relative
                target.write_bytes(path.read_bytes())
            else:
                build_data["force_include"][str(path)] = relative
        print(f"reportgen: compiled {', '.join(built)} for {sys.implementation.cache_tag}")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the compile folder once the wheel holds what it needs."""
        build_dir = getattr(self, "_build_dir", None)
        if build_dir is not None:
            shutil.rmtree(build_dir, ignore_errors=True)
