"""Bridges between widgets and services: the only ui code that imports qasync."""
