"""core.pages: annotation's home page links to the research reports by the address evaluation registers,
never by a path it writes (issue 43: the checker reads the upper apps' mounted prefixes in templates)."""

import pytest
from django.urls import reverse

from core import pages


@pytest.mark.django_db
def test_the_research_card_links_to_the_reports_page_evaluation_registers(client, make_user):
    client.force_login(make_user("r", "researcher"))
    page = client.get(reverse("home")).content.decode()
    assert f'<a href="{reverse("reports")}">' in page
    assert pages.url("research") == reverse("reports") == "/research/"


@pytest.mark.django_db
def test_without_the_page_the_card_keeps_the_downloads_and_drops_the_link(client, make_user):
    client.force_login(make_user("r", "researcher"))
    with pages.PAGES.override(only=True):
        page = client.get(reverse("home")).content.decode()
    assert "Reports, tables and figures" not in page  # (the site menu, config's, keeps its own link)
    assert reverse("download-labels") in page
