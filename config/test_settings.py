"""Settings for the test suite: the real settings, with a throwaway key and fast password hashing."""

import os
import tempfile

os.environ.setdefault("QAEVAL_TESTING", "1")
os.environ.setdefault("QAEVAL_VAR_DIR", tempfile.mkdtemp(prefix="qaeval-test-var-"))

from .settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
AXES_ENABLED = os.environ.get("AXES_ENABLED", "0") == "1"

# In-process tests run inside a transaction on one connection: progress goes through it. Worker
# processes started by the integrity tests set QAEVAL_JOBS_CONNECTION=1 to keep the second one.
if os.environ.get("QAEVAL_JOBS_CONNECTION") != "1":
    DATABASES.pop("jobs", None)  # noqa: F405
    # ... and no heartbeat thread: its own connection would fight the test's transaction on SQLite.
    JOB_HEARTBEAT_SECONDS = 0
