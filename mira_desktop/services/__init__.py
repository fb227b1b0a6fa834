"""The application: async, Qt-free services given their collaborators by app.py."""
