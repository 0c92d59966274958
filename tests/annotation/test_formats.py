"""Corpus formats are named in one registry (annotation.formats) that the importer, the upload form,
the API and the import command read."""

import pytest

from annotation import formats, interchange
from annotation.interchange import InterchangeError


def test_the_registry_detects_and_reads():
    assert formats.names() == ["jsonl", "squad"]
    assert formats.detect("dev-v1.1.JSON") == "squad" and formats.detect("c.jsonl") == "jsonl"
    assert formats.detect("corpus.txt") == formats.DEFAULT_FORMAT
    assert formats.reader_for("x.json") is interchange.read_squad
    assert formats.reader_for("x.json", "jsonl") is interchange.read_corpus
    with pytest.raises(InterchangeError, match="unknown corpus format 'csv' \\(jsonl or squad\\)"):
        formats.reader_for("x.csv", "csv")


@pytest.mark.django_db
def test_form_api_and_command_offer_the_registered_formats():
    from annotation.admin import ImportForm
    from annotation.api import ImportRequest
    from annotation.management.commands.import_corpus import Command

    assert [v for v, _ in ImportForm().fields["format"].choices] == ["", *formats.names()]
    assert "JSONL or SQuAD JSON" in dict(ImportForm().fields["kind"].choices)["corpus"]
    assert list(ImportRequest().fields["format"].choices) == formats.names()
    parser = Command().create_parser("manage.py", "import_corpus")
    action = next(a for a in parser._actions if a.dest == "format")
    assert list(action.choices) == formats.names()
