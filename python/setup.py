"""Build hook of `pip install ./python`: the metadata is pyproject.toml's; this adds the optional C extension
sitepack._fast (sitepack/_fast.c, docs/python.md "The compiled reader").

The extension needs a C compiler, Python.h (Debian: python3-dev) and numpy's C headers at build time, i.e.
numpy importable by the Python that builds: Debian's venv line `pip install --no-build-isolation --no-deps`
(docs/python.md "Install"). Without numpy in the build environment (pip's default build isolation), or with
SITEPACK_PURE_PYTHON=1, it is left out; when it fails to compile (no compiler, no Python.h) setuptools
warns and installs the package without it (optional=True). Either way the package reads in pure Python with
the same results."""
import os

from setuptools import Extension, setup


def ext_modules():
    if os.environ.get("SITEPACK_PURE_PYTHON", "") not in ("", "0"):
        return []
    try:
        import numpy
    except ImportError:
        return []
    return [Extension("sitepack._fast", ["sitepack/_fast.c"], include_dirs=[numpy.get_include()],
                      extra_compile_args=["-std=c11", "-ffp-contract=off"], libraries=["m"], optional=True)]


setup(ext_modules=ext_modules())
