"""English date formats of the pages (Django's localization; FORMAT_MODULE_PATH): the platform has
always shown ISO-like dates in English; French keeps Django's own (``04/12/2026 13:05``).
Downloads never use these (docs/i18n.md)."""

SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
