"""Study archives (SPEC 14): the pure format (``format.py``: members, manifest, checks, id remapping)
and its database shell (``store.py``: which rows make a study, export, import)."""
