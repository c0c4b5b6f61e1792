"""Importers: turn an external source's published data into KernelIndex data files."""
