"""Tests of the provider adapters against the loopback server."""
