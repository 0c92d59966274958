"""Making exported files safe to open: the one place for CSV cells and download file names.

- ``csv_cell``: a text cell starting with ``= + - @`` (or tab / carriage return) is read as a
  formula by spreadsheet programs (CSV injection); it gets a leading apostrophe, which they show as
  text. Numbers are left alone, so ``-0.5`` stays a number.
- ``safe_frame``: the same for every text cell, index and header of a DataFrame written as CSV.
- ``attachment``: a Content-Disposition value whose file name holds only ``[A-Za-z0-9._-]``;
  ``streamed_download``: a streamed download response with that header, never cached.
"""

from __future__ import annotations

import re

from django.http import StreamingHttpResponse
from django.utils.http import content_disposition_header

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_row(row: dict) -> dict:
    return {k: csv_cell(v) for k, v in row.items()}


def safe_frame(frame):
    """A copy of ``frame`` whose text cells, index labels and column labels are ``csv_cell``-safe."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype.kind not in "biufcmM":  # text (object or string dtype), not numbers or dates
            out[column] = out[column].map(csv_cell)
    out.index = out.index.map(csv_cell)
    out.columns = out.columns.map(csv_cell)
    return out


def safe_filename(name: str, default: str = "download") -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._") or default
    return name[:150]


def attachment(name: str, inline: bool = False) -> str:
    """The Content-Disposition header value for a download named ``name`` (sanitised)."""
    return content_disposition_header(not inline, safe_filename(name))


def streamed_download(lines, filename: str, content_type: str) -> StreamingHttpResponse:
    """A download streamed from ``lines`` (an iterable of text), saved as ``filename``, never cached."""
    response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = attachment(filename)
    response["Cache-Control"] = "no-store"
    return response
