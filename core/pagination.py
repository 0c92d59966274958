"""API pagination that refuses what it cannot honour: ``limit``/``offset`` must be plain ASCII
integers, ``limit`` at most ``max_limit`` and ``offset`` within 32 bits; anything else is a 400."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

MAX_OFFSET = 2**31 - 1


class StrictLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 1000

    def _read(self, request, name, default, *, upper):
        raw = request.query_params.get(name)
        if raw is None or raw == "":
            return default
        if not (raw.isascii() and raw.isdigit()) or int(raw) > upper:
            raise ValidationError({name: f"must be an integer from 0 to {upper}"})
        return int(raw)

    def get_limit(self, request):
        limit = self._read(request, self.limit_query_param, self.default_limit, upper=self.max_limit)
        return limit or self.default_limit

    def get_offset(self, request):
        return self._read(request, self.offset_query_param, 0, upper=MAX_OFFSET)
