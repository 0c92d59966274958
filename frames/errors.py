"""The frame proxy's errors users may read."""

from core.errors import UserFacingError


class FrameJobError(UserFacingError, ValueError):
    """A frame job or command that cannot go on (no such lexicon or corpus, an LLM that keeps failing):
    its message is shown as is (the job's result, the command's error, a 400 on a page)."""

    def as_dict(self):
        return {"message": str(self)}
