"""The three roles, as Django groups, and the checks views and the API use.

- admin: staff users (Django admin) or members of the ``admin`` group; build and assign folds.
- researcher: may read every label, the triplet map and the reports; never labels.
- annotator: labels only the folds assigned to them; never sees system names.
"""

from django.contrib.auth.models import Group

ADMIN, RESEARCHER, ANNOTATOR = "admin", "researcher", "annotator"
ROLES = (ADMIN, RESEARCHER, ANNOTATOR)
# Not a role: marks the accounts a labels import created for outside annotators (inactive, no password).
IMPORTED = "imported"
# Not a role either: marks the accounts a crowd study made on consent (annotators without a password).
PARTICIPANT = "participant"


def ensure_groups():
    return {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}


def ensure_groups_named(*names):
    """The groups of ``names`` (roles or markers such as ``PARTICIPANT``), made when missing; one
    query when they all exist."""
    found = {g.name: g for g in Group.objects.filter(name__in=names)}
    return [found.get(name) or Group.objects.get_or_create(name=name)[0] for name in names]


def _groups(user):
    if not getattr(user, "is_authenticated", False):
        return set()
    cached = getattr(user, "_role_names", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        user._role_names = cached
    return cached


def is_admin(user):
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_superuser or user.is_staff or ADMIN in _groups(user))


def is_researcher(user):
    return is_admin(user) or RESEARCHER in _groups(user)


def is_annotator(user):
    return ANNOTATOR in _groups(user)


def is_participant(user):
    """True for an account a crowd study made (the ``PARTICIPANT`` marker group)."""
    return PARTICIPANT in _groups(user)


def roles_context(request):
    """The user's roles for templates, evaluated only by a template that reads them (the annotator's
    htmx fragment does not, and saves the groups query)."""
    user = request.user
    return {
        "role_admin": lambda: is_admin(user),
        "role_researcher": lambda: is_researcher(user),
        "role_annotator": lambda: is_annotator(user),
        "role_participant": lambda: is_participant(user),
    }
