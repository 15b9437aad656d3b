"""Wheel build hook: with COH_COMPILE=1, the engine's hot modules are also compiled ahead of time (mypyc).

`pip install .` builds the pure-Python wheel and needs no compiler; `COH_COMPILE=1 pip install .`
asks for the compiled one, which needs a C compiler and Python's headers. The modules compiled are
the `compile` globs of `[tool.hatch.build.targets.wheel.hooks.custom]` in pyproject.toml, minus its
`exclude`; their sources still ship beside the compiled files (Python imports the compiled one). The
compiler works in a temporary directory: nothing is written into the checkout, so an editable install
of the same checkout stays pure Python.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ASK = "COH_COMPILE"

# Run by the build's own interpreter in a scratch directory (setuptools must not read our
# pyproject.toml as its own project). argv: build-lib, build-temp, C-files directory, mypy's
# arguments and the files to compile.
_COMPILE = """
import sys
from mypyc.build import mypycify
from setuptools import setup

build_lib, build_temp, c_dir, *mypy_args = sys.argv[1:]
modules = mypycify(mypy_args, group_name="coh_core", target_dir=c_dir, opt_level="3")
setup(
    name="coh-compiled",
    ext_modules=modules,
    script_args=["build_ext", "--build-lib", build_lib, "--build-temp", build_temp],
)
"""


def asked() -> bool:
    """Whether this build was asked to compile (COH_COMPILE set to anything but empty or 0)."""
    return os.environ.get(ASK, "") not in ("", "0")


class CompiledBuildHook(BuildHookInterface):
    """Adds the compiled modules to the wheel when COH_COMPILE=1; does nothing otherwise."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        if not asked():
            return []
        # The runtime dependencies too: mypy type-checks the compiled modules' imports.
        return [*self.config.get("compile-requires", []), *self.metadata.core.dependencies]

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if not asked() or self.target_name != "wheel":
            return
        if version == "editable":
            raise RuntimeError(
                f"{ASK}=1 builds a wheel (`{ASK}=1 pip install .`); an editable install is always "
                f"pure Python: leave out -e, or unset {ASK}"
            )
        self._scratch = Path(tempfile.mkdtemp(prefix="coh-mypyc-"))
        build_lib = self._scratch / "lib"
        command = [
            sys.executable,
            "-c",
            _COMPILE,
            str(build_lib),
            str(self._scratch / "temp"),
            str(self._scratch / "c"),
            "--config-file",
            str(Path(self.root) / "pyproject.toml"),
            *(str(path) for path in self.compiled_sources()),
        ]
        done = subprocess.run(command, cwd=self._scratch, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the compiled build (mypyc) failed:\n{done.stdout}\n{done.stderr}")
        for built in sorted(build_lib.rglob("*")):
            if built.is_file():
                build_data["force_include"][str(built)] = built.relative_to(build_lib).as_posix()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True  # the wheel is for this interpreter and platform only

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        scratch = getattr(self, "_scratch", None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    def compiled_sources(self) -> list[Path]:
        """The modules to compile: the `compile` globs minus the `exclude` ones, in a stable order."""
        root = Path(self.root)
        chosen = {path for pattern in self.config.get("compile", []) for path in root.glob(pattern)}
        left_out = {path for pattern in self.config.get("exclude", []) for path in root.glob(pattern)}
        if not chosen - left_out:
            raise RuntimeError("the compiled build has nothing to compile: see `compile` in pyproject.toml")
        return sorted(chosen - left_out)
