"""Importers: result files of the public reference projects -> runs in a RoleScope store.

- ``value_stability``: Stick to Your Role! (flowersteam/value_stability) ``results.json`` files.
"""
