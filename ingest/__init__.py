"""Ingestors: one module per source, each exposing ``INGESTOR`` (see :mod:`graphkit.registry`)."""
