"""sitepack: read merged sitepack files (docs/format.md) as datasets of binding sites.

    import sitepack
    ds = sitepack.open("out/demo.h5")
    site = ds[0]; site.positions, site.elements, site.ligand["comp_id"]

Python on numpy and h5py: the file is validated once and mapped once (numpy views at the datasets'
file offsets); ``ds[i]`` and ``ds.get_sites_flat(idx)`` copy rows from the map without an HDF5 call, in C
when the optional extension sitepack._fast is built (``sitepack.COMPILED``), else in pure Python with the
same results. Graph samples (atom features, bond, interaction and radius edges): ``sitepack.graph`` (numpy).
PyTorch adapters: ``sitepack.torch`` (imports torch). Documentation: docs/python.md.
"""

import pkgutil

# a build tree's sitepack/ directory on sys.path (CMake builds _fast there: build/python/sitepack) joins this
# package, so PYTHONPATH=build/python:python imports the source tree's modules and the build's extension
__path__ = pkgutil.extend_path(__path__, __name__)

from ._layout import FORMAT_NAME, FORMAT_VERSIONS
from ._schema import ATOM_FLAGS, INTERACTION_TYPES, LIGAND_FLAGS, RESIDUE_KINDS, SITE_FLAGS
from ._version import __version__
from .dataset import Dataset, Site
from .dataset import _fast

#: True when the compiled reader (sitepack._fast) serves ds[i] and get_sites_flat by default (built, imported,
#: SITEPACK_PURE_PYTHON not set); False: the pure-Python path, same results (docs/python.md)
COMPILED = _fast is not None
del _fast
from .errors import FormatError, FormatVersionError, MissingTableError, SiteIndexError, SitepackError
from . import graph


def open(path):
    """Open the merged sitepack file at @p path (str or os.PathLike) read-only and return a Dataset.

    Validates the layout first (root attributes format = "sitepack" and a known format_version; every
    dataset of docs/format.md present with its exact dtype and shape, contiguous, unfiltered, allocated,
    inside the file; the CSR pointers and site indices consistent), then maps the file once.
    Raises FileNotFoundError, FormatError (with `sitepack check`'s message), FormatVersionError."""
    return Dataset(path)


__all__ = ["open", "Dataset", "Site", "SitepackError", "FormatError", "FormatVersionError", "SiteIndexError",
           "MissingTableError", "COMPILED", "FORMAT_NAME", "FORMAT_VERSIONS", "LIGAND_FLAGS", "SITE_FLAGS", "ATOM_FLAGS",
           "RESIDUE_KINDS", "INTERACTION_TYPES", "graph", "__version__"]
