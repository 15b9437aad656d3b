"""Which coh runs here: its version (`coh --version`), and its build, compiled (mypyc) or pure
Python (`python -m coh_core.build_info` says).

The compiled build (`COH_COMPILE=1 pip install .`, see hatch_build.py) ships some modules as
extension modules beside their sources; Python imports the extension when both are there.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

__version__ = "0.1.0"  # coh's one version number: pyproject.toml reads it from here (coh_core.__version__)

PACKAGE = Path(__file__).resolve().parent
COMPILED = "compiled (mypyc)"
PURE = "pure Python"
# coh's name on the package index (`coh` there is another project's); installed from a checkout
# with `pip install .`, it is the distribution whose metadata has coh's version.
DISTRIBUTION = "coh-engine"


def install_hint(extra: str) -> str:
    """How to install one of coh's optional extras (`sim`, `web`...)."""
    installed = f"pip install '{DISTRIBUTION}[{extra}]'"
    return f"pip install '.[{extra}]' in coh's checkout (where coh is installed: {installed})"


def version_line() -> str:
    """What `coh --version` says: the installed distribution's version, else (run from a checkout
    that was never installed) the package's own, with where it runs from."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"coh, version {version(DISTRIBUTION)}"
    except PackageNotFoundError:
        return f"coh, version {__version__} (not installed: run from {PACKAGE.parent})"


def _module_name(path: Path) -> str | None:
    """The dotted module a file of this package is imported as, if it is an extension for this Python."""
    for suffix in EXTENSION_SUFFIXES:
        if path.name.endswith(suffix):
            relative = path.relative_to(PACKAGE.parent).as_posix()[: -len(suffix)]
            return relative.replace("/", ".")
    return None


def compiled_modules() -> list[str]:
    """The modules of this package that this Python imports compiled (found on disk, none imported)."""
    names = (_module_name(path) for path in sorted(PACKAGE.rglob("*")) if path.is_file())
    return [name for name in names if name is not None]


def build_kind() -> str:
    """`compiled (mypyc)` when any module of this package is compiled, else `pure Python`."""
    return COMPILED if compiled_modules() else PURE


def main() -> None:
    modules = compiled_modules()
    print(f"coh at {PACKAGE}: {build_kind()}")
    for name in modules:
        print(f"  {name}")


if __name__ == "__main__":
    main()
