"""The outcomes of the frame proxy for one question, spelled once (pure: no Django).

``no_trigger`` (no candidate pair in the question), ``unknown_frame`` (the chosen frame is not in
the lexicon), ``bad_output`` (a reply that cannot be read), ``done`` (a frame and its FEs), and
``error`` (the LLM call failed; the question is tried again on the next run).

>>> OUTCOMES
('no_trigger', 'unknown_frame', 'bad_output', 'done')
>>> ALL_OUTCOMES[-1]
'error'
"""


def gettext_noop(text):
    """Marks a word for the catalogues (``makemessages`` collects this name) without importing Django."""
    return text


NO_TRIGGER = "no_trigger"
UNKNOWN_FRAME = "unknown_frame"
BAD_OUTPUT = "bad_output"
DONE = "done"
ERROR = "error"

#: What the proxy decides for a question it could ask the LLM about.
OUTCOMES = (NO_TRIGGER, UNKNOWN_FRAME, BAD_OUTPUT, DONE)
#: Every outcome a stored frame annotation can have.
ALL_OUTCOMES = (*OUTCOMES, ERROR)
#: Each outcome in words, for readers of the report page.
OUTCOME_TEXT = {  # English here (downloads, logs); pages translate them (gettext on the same words)
    NO_TRIGGER: gettext_noop("no trigger (no candidate word in the question)"),
    UNKNOWN_FRAME: gettext_noop("unknown frame (not in the lexicon)"),
    BAD_OUTPUT: gettext_noop("bad output (a reply that cannot be read)"),
    DONE: gettext_noop("frame and frame elements predicted"),
    ERROR: gettext_noop("error (the call failed; tried again on the next run)"),
}
