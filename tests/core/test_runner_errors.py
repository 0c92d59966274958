"""One base class for the errors whose message says it all: a job that raises one fails with that
message alone (and its ``as_dict`` in the result); any other error keeps its traceback for admins."""

import pytest

from core.errors import UserFacingError
from core.models import Job
from core.runner import BrokerUnavailable, create_job, run_job

pytestmark = pytest.mark.django_db


def test_the_user_facing_errors_share_one_base():
    from annotation.interchange import InterchangeError
    from evaluation.jobs import ReportInputError
    from models_runner.backends.base import BackendError
    from models_runner.chat import ChatError
    from models_runner.inference import RunError
    from models_runner.judging import JudgeError
    from models_runner.loading import ModelNotFound

    for cls in (
        InterchangeError,
        ReportInputError,
        BackendError,
        ChatError,
        RunError,
        JudgeError,
        ModelNotFound,
        BrokerUnavailable,
    ):
        assert issubclass(cls, UserFacingError), cls
    # ... and stay what callers catch them as.
    assert issubclass(InterchangeError, ValueError) and issubclass(ModelNotFound, FileNotFoundError)
    assert issubclass(ChatError, RuntimeError) and BrokerUnavailable.status_code == 503
    assert not any(hasattr(cls, "user_facing") for cls in (InterchangeError, ReportInputError, ChatError))


def fail_with(exc):
    def body(job, progress):
        raise exc

    return run_job(create_job("test-kind").pk, body)


def test_a_user_facing_error_fails_the_job_with_its_message_only():
    from annotation.interchange import InterchangeError

    job = fail_with(InterchangeError("missing required field", "labels.jsonl", 3, field="label"))
    assert job.status == Job.FAILED
    assert job.error == "labels.jsonl:3: field 'label': missing required field"
    assert job.result["error"]["line"] == 3 and job.result["error"]["field"] == "label"

    class Plain(UserFacingError):
        pass

    job = fail_with(Plain("bad input"))
    assert (job.error, job.result) == ("bad input", {"error": {}})


def test_any_other_error_keeps_its_traceback():
    job = fail_with(KeyError("surprise"))
    assert job.status == Job.FAILED and "Traceback" in job.error and job.error.startswith("'surprise'")
    assert job.public_error == "'surprise'"
