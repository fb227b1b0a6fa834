"""Persistence: the only package that speaks SQL (the standard library's sqlite3,
through the thin :class:`connection.Database`)."""
