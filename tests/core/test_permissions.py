"""Role x endpoint x method matrix for the annotation app's pages and REST API."""
import pytest

from annotation.triplet_builder import assign_fold, create_folds

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "annotator", "researcher", "admin"]
METHODS = ["get", "post", "put", "patch", "delete"]


@pytest.fixture
def world(tiny_corpus, make_user):
    folds = create_folds(tiny_corpus, k=2, seed=0, overlap=0)
    users = {"annotator": make_user("ann", "annotator"), "researcher": make_user("res", "researcher"),
             "admin": make_user("adm", "admin")}
    assign_fold(folds[0], users["annotator"])
    item = folds[0].items.first()
    return {"users": users, "fold": folds[0], "item": item, "corpus": tiny_corpus}


def endpoints(w):
    f, i, c = w["fold"].pk, w["item"].pk, w["corpus"].pk
    ann, res, adm = {"annotator"}, {"researcher", "admin"}, {"admin"}
    # path, kind (page|api), {method: roles allowed}
    return [
        ("/", "page", {"get": ann | res}),
        (f"/annotate/{f}/", "page", {"get": ann}),
        (f"/annotate/{f}/item/{i}/", "page", {"get": ann}),
        (f"/annotate/{f}/previous/", "page", {"get": ann}),
        (f"/annotate/{f}/judge/", "page", {"post": ann}),
        ("/folds/", "page", {"get": adm}),
        (f"/folds/{c}/action/", "page", {"post": adm}),
        ("/downloads/labels/", "page", {"get": res}),
        ("/downloads/triplet-map/", "page", {"get": res}),
        ("/api/corpora/", "api", {"get": res}),
        (f"/api/corpora/{c}/", "api", {"get": res}),
        ("/api/systems/", "api", {"get": res}),
        ("/api/labels/", "api", {"get": res}),
        ("/api/jobs/", "api", {"get": res}),
        ("/api/imports/", "api", {"post": adm}),
        ("/api/my/folds/", "api", {"get": ann}),
        (f"/api/my/folds/{f}/next/", "api", {"get": ann}),
        (f"/api/my/folds/{f}/items/{i}/", "api", {"get": ann}),
        (f"/api/my/folds/{f}/judge/", "api", {"post": ann}),
    ]


def cases():
    # expanded lazily in the test: endpoints need the fixture's ids
    return [(role, method) for role in ROLES for method in METHODS]


@pytest.mark.parametrize("role, method", cases())
def test_matrix(world, client, role, method):
    if role != "anonymous":
        client.force_login(world["users"][role])
    failures = []
    for path, kind, allowed in endpoints(world):
        resp = getattr(client, method)(path, data={} if method != "get" else None, content_type="application/json") \
            if method in ("put", "patch", "delete") else getattr(client, method)(path)
        code = resp.status_code
        roles_allowed = set().union(*allowed.values())
        if role == "anonymous":
            ok = (code in (302,) and "/login/" in resp["Location"]) if kind == "page" else code in (401, 403)
            expect = "redirect to login" if kind == "page" else "401/403"
        elif role not in roles_allowed:
            # the folds page (GET) for a researcher is 403; fold-specific pages are 403 for non-annotators
            ok, expect = code == 403, "403"
        elif method not in allowed or role not in allowed[method]:
            ok, expect = code in (403, 405), "405 (or 403)"
        else:
            ok, expect = code not in (401, 403, 404, 405, 500), "allowed"
        if not ok:
            failures.append(f"{method.upper()} {path} as {role}: got {code}, expected {expect}")
    assert not failures, "\n".join(failures)


def test_other_annotator_gets_404_for_fold_they_do_not_have(world, client, make_user):
    client.force_login(make_user("stranger", "annotator"))
    f, i = world["fold"].pk, world["item"].pk
    for path in (f"/annotate/{f}/", f"/annotate/{f}/item/{i}/", f"/api/my/folds/{f}/next/", f"/api/my/folds/{f}/items/{i}/"):
        assert client.get(path).status_code == 404, path
    assert client.post(f"/annotate/{f}/judge/", {"item": i, "value": "correct"}).status_code == 404
