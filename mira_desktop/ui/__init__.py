"""The desktop window: the only package (with app.py) that imports PySide6."""
