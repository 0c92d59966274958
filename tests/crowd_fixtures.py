"""The crowd-study kit moved to ``bench/kit/crowd.py`` (benchmarks import no ``tests.*``; issue 31).
This name stays for the tests written before the move, on branches not yet merged; import
``bench.kit.crowd`` in new tests."""

from bench.kit.crowd import *  # noqa: F403
from bench.kit.crowd import arrive_over_http, build_study, start_gunicorn, stop_gunicorn  # noqa: F401
from bench.kit.servers import free_port  # noqa: F401
