"""Mira Desktop: a local-first desktop AI chat application."""

__version__ = "0.1.0"
