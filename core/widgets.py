"""Small HTML pieces every app's admin pages show for a job."""

from django.utils.html import format_html


def progress_bar(job):
    """A job's progress as a bar and "done / total" (admin list and detail pages)."""
    return format_html(
        '<div style="width:160px;background:#e6e9ee;border-radius:4px"><div style="width:{}%;background:#2457c5;'
        'height:10px;border-radius:4px"></div></div> {}',
        job.percent,
        job.progress_text,
    )
