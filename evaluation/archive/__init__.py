"""Study archives (SPEC 14): the pure format (``format.py``: members, manifest, checks, id remapping)
and its database shells (``collect.py``: which rows make a study, export; ``restore.py``: import;
``insert.py``: the rows written; their statement in ``evaluation/sql.py``)."""
