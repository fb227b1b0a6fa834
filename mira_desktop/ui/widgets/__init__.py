"""Small reusable widgets of the window (the context meter ring)."""
