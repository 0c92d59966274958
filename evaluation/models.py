"""The evaluation app's tables: ``LiveState``, the latest live confidence sequences of a corpus that
the background job stores (SPEC 16); and ``StudyArchive``, which gives study archives (SPEC 14) their
place in the Django admin: a proxy of the corpus (no table of its own)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models import Corpus


class StudyArchive(Corpus):
    """A corpus seen as a study that can be exported to, or imported from, one zip archive."""

    class Meta:
        proxy = True
        verbose_name = _("study archive")
        verbose_name_plural = _("study archives")


class LiveState(models.Model):
    """The latest confidence sequences of one corpus (SPEC 16), written by the background job only
    (``evaluation.live_state``): per judge (``""``: none) the rows of ``anytime.sequence_rows`` and the
    capital of every grid value to carry forward (``anytime.state_bytes``). The live page and the close
    rule read it; no request computes it."""

    corpus = models.OneToOneField(Corpus, on_delete=models.CASCADE, related_name="live_state", verbose_name=_("corpus"))
    # judge name -> {"rows", "n_labels", "computed_at", "active", "fixed": {aggregate: the fixed intervals}}
    results = models.JSONField(default=dict, verbose_name=_("stored sequences"))
    state = models.BinaryField(default=b"", verbose_name=_("carried capital"))  # every judge's (npz)
    pending = models.BooleanField(default=False, verbose_name=_("job waiting"))  # sent, not started yet
    # the judges a researcher asked for, besides the default one
    judges = models.JSONField(default=list, verbose_name=_("judges"))
    # the human aggregates (SPEC 17) a researcher asked for on the live page, besides the default one
    aggregates = models.JSONField(default=list, verbose_name=_("Labels of one answer"))
    computed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("computed at"))

    class Meta:
        verbose_name = _("live conclusions")
        verbose_name_plural = _("live conclusions")

    def __str__(self):
        return f"live conclusions of {self.corpus_id}"
