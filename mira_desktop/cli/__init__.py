"""The headless command line: the same services and database as the window."""
