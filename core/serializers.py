"""The Job as the API shows it, for every app's endpoints that answer with a job."""

from rest_framework import serializers

from core import roles
from core.models import Job


class JobSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    stalled = serializers.BooleanField(read_only=True, help_text="running, but its worker stopped beating")
    state_note = serializers.CharField(read_only=True)
    error = serializers.SerializerMethodField()
    params = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = [
            "id",
            "kind",
            "status",
            "stalled",
            "state_note",
            "params",
            "result",
            "progress_done",
            "progress_total",
            "percent",
            "message",
            "error",
            "attempts",
            "resends",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_params(self, job) -> dict:
        """Admins read the parameters as stored; others without server paths (an upload's stored file)."""
        request = self.context.get("request")
        return job.params if request is not None and roles.is_admin(request.user) else job.public_params

    def get_error(self, job) -> str:
        """Admins read the whole error (traceback included); others its first line, without paths."""
        request = self.context.get("request")
        return job.error if request is not None and roles.is_admin(request.user) else job.public_error
