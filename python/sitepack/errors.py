"""Exceptions of the sitepack reader. Every message starts with (or names) the file."""


class SitepackError(Exception):
    """Base class. ``path``: the file concerned."""

    def __init__(self, path, message):
        super().__init__(message)
        self.path = path


class FormatError(SitepackError, ValueError):
    """The file is not a valid merged sitepack file: not HDF5, not sitepack's, damaged or truncated, or a
    dataset with the wrong type, shape or layout. The message is the one `sitepack check` prints; a file HDF5
    cannot open or read the headers of ends with DAMAGED_HINT, as every sitepack command's message does.
    ``error_class``: the class name the commands print ("unknown_format")."""

    error_class = "unknown_format"


# The end of the message for a damaged or truncated file: the same text as the C commands' (h5util.h).
DAMAGED_HINT = "(the file is damaged or truncated)"


class FormatVersionError(FormatError):
    """The file's ``format_version`` is not one this package reads (``sitepack.FORMAT_VERSIONS``)."""


class SiteIndexError(SitepackError, IndexError):
    """A site index outside ``[0, len(ds))`` (negative indices count from the end, as in a list)."""


class MissingTableError(SitepackError, LookupError):
    """The file has no such table or column (e.g. ``/bonds`` in a file that predates bonds)."""
