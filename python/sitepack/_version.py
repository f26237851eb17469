"""The package version: the C tool's (CMakeLists.txt project VERSION; `sitepack --version`)."""
__version__ = "0.1.0"
