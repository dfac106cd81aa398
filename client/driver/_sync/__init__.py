# DO NOT EDIT: generated from client/driver/_async/__init__.py by client/driver/unasync.py
"""The blocking driver, generated from ``../_async`` by ``../unasync.py``."""
