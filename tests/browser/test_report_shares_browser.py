"""Table 4's shares carry their 95% interval on the report page like every other score (issue 32,
friction 6): report.json records a Wilson interval per share, the page shows it under the share, at
1366 and 390 px, inside the card. Screenshots under /tmp/frictions-shots (QAEVAL_SHOTS)."""

import json
import os
import re
from pathlib import Path

import pytest

from evaluation.jobs import report_dir
from stats.intervals import wilson
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("QAEVAL_SHOTS", "/tmp/frictions-shots"))


def test_table4_shares_have_their_interval(page, live_server, make_user, tmp_path, settings, monkeypatch):
    from tests.evaluation.test_report_latex import in_app_job

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.MEDIA_ROOT = tmp_path / "media"
    job = in_app_job(tmp_path, figures=False)
    table4 = json.loads((report_dir(job.pk) / "report.json").read_text())["frames"]["table4"]
    for row in table4.values():
        for share in ("full", "partial", "erroneous"):
            low, high = wilson(row["counts"][share], row["n"])
            assert row[f"{share}_ci"] == pytest.approx([100 * low, 100 * high])
            assert row[f"{share}_ci"][0] <= row[share] <= row[f"{share}_ci"][1]
    make_user("res", "researcher")
    login(page, live_server, "res")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
        page.goto(f"{live_server.url}/research/reports/{job.pk}/")
        table = page.locator("#table4-frame-checks")
        cells = table.locator("td[data-share]")
        assert cells.count() == 6
        for i in range(cells.count()):
            cell = cells.nth(i)
            ci = cell.locator("small.ci")
            assert ci.is_visible()
            assert ci.text_content().startswith("95% CI ")
            assert re.fullmatch(r"\d+ % – \d+ %", ci.locator(".nowrap").inner_text()), ci.inner_text()
            box = cell.bounding_box()
            assert box["x"] + box["width"] <= width
        rows = {r.locator("th").inner_text(): r for r in table.locator("tbody tr").all()}
        frame = table4["frame"]
        full = rows["Frame Prediction"].locator("td[data-share=full]")
        low, high = frame["full_ci"]
        assert full.locator(".nowrap").inner_text() == f"{round(low)} % – {round(high)} %"
        assert "Wilson" in page.inner_text("#frame-results")
        box = page.evaluate(
            "() => { const b = document.querySelector('#table4-frame-checks').parentElement;"
            " return [b.scrollWidth, b.clientWidth]; }"
        )
        assert box[0] <= box[1] + 1, box
        page.locator("#frame-results").screenshot(path=str(SHOTS / f"report-table4-{width}.png"))
