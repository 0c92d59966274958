"""The statistics of the platform, at the bottom of the house: pure numbers from plain data.

No Django and no app: every app may import it, it imports none (``bin/check-architecture``).

- ``labels``: the label vocabularies and the value of each label;
- ``intervals``: the one level, the one z, the normal and Wilson intervals, SPEC 16's floor and clip;
- ``design``: the active design (SPEC 12): which triplets humans label;
- ``active``: the active estimate and its variance (SPEC 12);
- ``ppi``: the classical and prediction-powered estimates of one mean (SPEC 10);
- ``betting``: the betting confidence sequence (SPEC 16);
- ``bootstrap``: the report's seeded bootstrap intervals;
- ``significance``: the Mann-Whitney U test of the factors (SPEC 6), Holm's correction, delta.
"""
