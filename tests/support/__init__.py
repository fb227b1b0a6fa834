"""Shared test helpers: the loopback HTTP server, canned replies and fixtures."""
