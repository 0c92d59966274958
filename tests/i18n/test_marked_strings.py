"""No user-visible English left unmarked (issue 25): every template of the project, and the messages
the views send, go through gettext.

Templates: the text between tags and the attributes people read (title, placeholder, aria-label,
alt, value of a button-like input) outside ``{% translate %}`` / ``{% blocktranslate %}``, outside
``<script>``, ``<style>``, ``<code>``, ``<kbd>`` and template comments, must hold no word: what is left
is symbols, keys and the short ``NOT_LANGUAGE`` allow-list. Python: a ``messages.<level>()`` call or a
form's ``ValidationError`` whose message is a plain string literal or an f-string (never translated).
"""

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.template.base import Lexer, TokenType

ROOT = Path(settings.BASE_DIR)
SKIP_DIRS = {".venv", "tests", "var", "node_modules", "bench"}
# Words that are not English to translate: proper nouns, formats, units and the platform's acronyms.
NOT_LANGUAGE = {"UTC", "CSV", "JSONL", "JSON", "LaTeX", "API", "SPEC", "Prolific", "QA", "Enter", "Esc", "ID", "s"}
READ_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "aria-description"}
NO_TEXT_ELEMENTS = {"script", "style", "code", "kbd", "pre"}
HOLE = "\ue000"  # stands for a template variable or tag in the text handed to the HTML parser


def template_files():
    return sorted(
        p for p in ROOT.rglob("*.html") if "templates" in p.parts and not SKIP_DIRS & set(p.relative_to(ROOT).parts)
    )


def language_in(text):
    """The words of ``text`` that are language (two letters or more, not allow-listed)."""
    words = re.findall(r"[^\W\d_]{2,}", text.replace(HOLE, " "))
    return [w for w in words if w not in NOT_LANGUAGE]


def template_text(source):
    """The template as the HTML parser should see it: translated parts, variables and tags become
    ``HOLE``; template comments and ``{% comment %}`` blocks vanish."""
    out, skipping = [], None
    for token in Lexer(source).tokenize():
        if token.token_type == TokenType.BLOCK:
            name = token.contents.split()[0] if token.contents.split() else ""
            if skipping:
                if name == skipping:
                    skipping = None
                    out.append(HOLE)
                continue
            if name in ("blocktranslate", "blocktrans"):
                skipping = "endblocktranslate" if name == "blocktranslate" else "endblocktrans"
            elif name == "comment":
                skipping = "endcomment"
            out.append(HOLE)
        elif skipping:
            continue
        elif token.token_type == TokenType.TEXT:
            out.append(token.contents)
        elif token.token_type == TokenType.VAR:
            out.append(HOLE)
    return "".join(out)


class Unmarked(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found, self.inside = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in ("br", "hr", "img", "input", "meta", "link"):
            self.inside.append(tag)
        readable = set(READ_ATTRIBUTES)
        if tag == "input" and dict(attrs).get("type") in ("submit", "button", "reset"):
            readable.add("value")
        for name, value in attrs:
            if name in readable and value and language_in(value):
                self.found.append(f'{tag}[{name}="{value.replace(HOLE, "…")}"]')

    def handle_endtag(self, tag):
        if tag in self.inside:
            while self.inside and self.inside.pop() != tag:
                pass

    def handle_data(self, data):
        if NO_TEXT_ELEMENTS & set(self.inside):
            return
        if language_in(data):
            self.found.append(" ".join(data.replace(HOLE, "…").split()))


def unmarked_in(source):
    parser = Unmarked()
    parser.feed(template_text(source))
    parser.close()
    return parser.found


def test_the_check_sees_unmarked_text_and_attributes():
    assert unmarked_in("<p>Hello {{ name }}</p>") == ["Hello …"]
    assert unmarked_in('<a title="Remove it" href="{% url "x" %}">×</a>') == ['a[title="Remove it"]']
    assert unmarked_in('<input type="submit" value="Start">') == ['input[value="Start"]']
    assert unmarked_in('{% load i18n %}<p>{% translate "Hello" %} {{ name }}</p>') == []
    assert unmarked_in("{% blocktranslate %}Hello <b>{{ x }}</b>{% endblocktranslate %}") == []
    assert unmarked_in("<kbd>S</kbd> · <code>manage.py build</code> 1 / 2 → UTC") == []
    assert unmarked_in("{# a note #}{% comment %}Not shown{% endcomment %}<script>var a = 'b c';</script>") == []


def _param(path):
    return pytest.param(path, id=str(path.relative_to(ROOT)))


@pytest.mark.parametrize("path", [_param(p) for p in template_files()])
def test_no_unmarked_text_in_template(path):
    found = unmarked_in(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)}: mark these with {{% translate %}}: {found}"


def _literal(node):
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def unmarked_messages(tree):
    """Lines of ``messages.success(request, "...")`` (or f"...") and ``ValidationError("...")``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "messages"
            and func.attr in ("debug", "info", "success", "warning", "error", "add_message")
        ):
            text = node.args[-1] if func.attr != "add_message" else (node.args[2] if len(node.args) > 2 else None)
            if text is not None and _literal(text):
                yield node.lineno
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "ValidationError" and node.args and _literal(node.args[0]):
            yield node.lineno


def view_modules():
    apps = ("core", "annotation", "models_runner", "frames", "evaluation")
    for app in apps:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts and (
                "views" in path.parts or path.stem in ("views", "admin", "forms", "live")
            ):
                yield path


def test_the_check_sees_unmarked_messages():
    tree = ast.parse('messages.success(request, f"built {n} folds")\nmessages.error(request, _("x"))\n')
    assert list(unmarked_messages(tree)) == [1]


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, id=str(p.relative_to(ROOT))) for p in view_modules()],
)
def test_view_messages_are_marked(path):
    lines = list(unmarked_messages(ast.parse(path.read_text(encoding="utf-8"))))
    assert not lines, f"{path.relative_to(ROOT)}: messages not marked for translation at lines {lines}"
