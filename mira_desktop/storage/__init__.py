"""Persistence: the only package that speaks SQL (sqlite-utils over SQLite)."""
