"""The site's URLs plus the toy check's pages (``tests/frames/test_third_check.py``), as a kind's pages are
added by ``frames.urls.check_urls``."""

from config.urls import urlpatterns as site
from frames import human_checks
from frames.urls import check_urls

urlpatterns = [*site, *check_urls(human_checks.get("toy"))]
