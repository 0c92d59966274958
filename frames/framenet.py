"""FrameNet lexicons read from the NLTK ``framenet_v17`` directory layout. Pure: no database.

Layout read (namespace ``http://framenet.icsi.berkeley.edu``)::

    <dir>/frameIndex.xml   <frame ID=".." name=".."/> for every frame
    <dir>/luIndex.xml      <lu ID=".." name="attack.v" frameName="Attack" .../> (optional)
    <dir>/frame/<Name>.xml <frame name ID><definition/><FE name coreType ID><definition/></FE>
                           <lexUnit name="attack.v" POS="V" ID=".."/></frame>

Definitions in FrameNet are escaped markup (``&lt;def-root&gt;...``); they are reduced to plain
text (tags dropped, whitespace collapsed). Lexical units come from the frame files and, for any
missing there, from ``luIndex.xml``.

``load_lexicon(path)`` returns a :class:`Lexicon`; every problem raises :class:`LexiconError`
naming the file.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

NS = "http://framenet.icsi.berkeley.edu"
_Q = f"{{{NS}}}"

# FrameNet POS codes (LU name suffix or POS attribute) -> the words of Question.lu_pos.
POS_NAMES = {
    "n": "noun",
    "v": "verb",
    "a": "adjective",
    "adv": "adverb",
    "prep": "preposition",
    "num": "number",
    "art": "article",
    "c": "conjunction",
    "scon": "conjunction",
    "intj": "interjection",
    "pron": "pronoun",
    "idio": "idiom",
    "avp": "adverb",
}

SHIPPED_LEXICON = Path(__file__).resolve().parent / "data" / "framenet_mini"
# French lexical units in the same layout (ASFALDA style), written for the project: data/framenet_fr_mini/README.md
SHIPPED_LEXICON_FR = Path(__file__).resolve().parent / "data" / "framenet_fr_mini"


class LexiconError(ValueError):
    pass


@dataclass(frozen=True)
class FrameElement:
    name: str
    core_type: str = ""
    definition: str = ""
    fn_id: int | None = None


@dataclass(frozen=True)
class LexicalUnit:
    name: str  # e.g. "attack.v"
    pos: str = ""  # FrameNet code, lower case: "v", "n", "a", ...
    fn_id: int | None = None

    @property
    def word(self):
        return lu_word(self.name)

    @property
    def pos_name(self):
        return pos_name(self.pos or lu_pos_code(self.name))


@dataclass
class Frame:
    name: str
    fn_id: int | None = None
    definition: str = ""
    elements: list[FrameElement] = field(default_factory=list)
    lexical_units: list[LexicalUnit] = field(default_factory=list)

    def element(self, name):
        """The FE called ``name`` (case, spaces and underscores ignored), or None."""
        key = fe_key(name)
        return next((fe for fe in self.elements if fe_key(fe.name) == key), None)


@dataclass
class Lexicon:
    name: str
    frames: dict[str, Frame] = field(default_factory=dict)
    source_path: str = ""

    def frame(self, name):
        """The frame called ``name``, matched exactly, then ignoring case, spaces and underscores."""
        if name in self.frames:
            return self.frames[name]
        key = fe_key(name)
        return next((f for f in self.frames.values() if fe_key(f.name) == key), None)

    @property
    def n_lexical_units(self):
        return sum(len(f.lexical_units) for f in self.frames.values())


def fe_key(name):
    return re.sub(r"[\s_\-]+", "", str(name)).casefold()


def lu_pos_code(lu_name):
    head, dot, pos = lu_name.rpartition(".")
    return pos.lower() if dot and head and pos.isalpha() else ""


def lu_word(lu_name):
    """The word of an LU: its name without the ``.pos`` suffix; parentheses dropped, spaces collapsed.

    ``attack.v`` -> ``attack``; ``give up.v`` -> ``give up``; ``take (over).v`` -> ``take over``.
    """
    head = lu_name[: -len(lu_pos_code(lu_name)) - 1] if lu_pos_code(lu_name) else lu_name
    head = head.replace("(", " ").replace(")", " ").replace("_", " ")
    return " ".join(head.split())


def pos_name(code):
    code = (code or "").lower()
    return POS_NAMES.get(code, code)


def plain_text(markup):
    """FrameNet definition markup (escaped or not) -> plain text."""
    if not markup:
        return ""
    text = html.unescape(markup)
    text = re.sub(r"<[^>]+>", " ", text)
    text = html.unescape(text)
    return " ".join(text.split())


def _parse(path):
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise LexiconError(f"{path}: malformed XML: {exc}") from None
    except OSError as exc:
        raise LexiconError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _children(element, tag):
    return element.findall(_Q + tag) + element.findall(tag)


def _text(element, tag):
    found = element.find(_Q + tag)
    if found is None:
        found = element.find(tag)
    return plain_text(found.text if found is not None else "")


def _tag(element):
    return element.tag.split("}", 1)[-1]


def resolve_dir(path):
    """The directory holding ``frameIndex.xml``: ``path`` itself or ``path/framenet_v17``."""
    path = Path(path)
    for candidate in (path, path / "framenet_v17"):
        if (candidate / "frameIndex.xml").is_file():
            return candidate
    raise LexiconError(f"{path}: no frameIndex.xml here (expected the NLTK framenet_v17 directory layout)")


def _named_children(root, tag, where):
    """(name, element) of the ``tag`` children, the first of each name; a nameless one is an error
    (``where`` says which)."""
    seen = set()
    for child in _children(root, tag):
        child_name = child.get("name")
        if not child_name:
            raise LexiconError(f"{where} has no name attribute")
        if child_name not in seen:
            seen.add(child_name)
            yield child_name, child


def parse_frame_file(path):
    root = _parse(path)
    if _tag(root) != "frame":
        raise LexiconError(f"{path}: root element is <{_tag(root)}>, expected <frame>")
    name = root.get("name")
    if not name:
        raise LexiconError(f"{path}: <frame> has no name attribute")
    frame = Frame(name=name, fn_id=_int(root.get("ID")), definition=_text(root, "definition"))
    for fe_name, fe in _named_children(root, "FE", f"{path}: an <FE> of frame {name}"):
        frame.elements.append(
            FrameElement(
                name=fe_name,
                core_type=fe.get("coreType", ""),
                definition=_text(fe, "definition"),
                fn_id=_int(fe.get("ID")),
            )
        )
    for lu_name, lu in _named_children(root, "lexUnit", f"{path}: a <lexUnit> of frame {name}"):
        frame.lexical_units.append(
            LexicalUnit(name=lu_name, pos=(lu.get("POS") or lu_pos_code(lu_name)).lower(), fn_id=_int(lu.get("ID")))
        )
    return frame


def load_lexicon(path, name=None):
    """Read a FrameNet directory (``frameIndex.xml``, ``frame/*.xml``, optional ``luIndex.xml``)."""
    directory = resolve_dir(path)
    index_path = directory / "frameIndex.xml"
    index = _parse(index_path)
    entries = [(e.get("name"), e.get("ID")) for e in _children(index, "frame")]
    if not entries:
        raise LexiconError(f"{index_path}: lists no <frame> elements")
    lexicon = Lexicon(name=name or directory.name, source_path=str(directory))
    for frame_name, _fn_id in entries:
        if not frame_name:
            raise LexiconError(f"{index_path}: a <frame> entry has no name attribute")
        frame_path = directory / "frame" / f"{frame_name}.xml"
        if not frame_path.is_file():
            raise LexiconError(f"{frame_path}: missing (listed in {index_path})")
        frame = parse_frame_file(frame_path)
        if frame.name != frame_name:
            raise LexiconError(f"{frame_path}: names frame {frame.name!r}, but {index_path} lists {frame_name!r}")
        lexicon.frames[frame.name] = frame

    lu_index = directory / "luIndex.xml"
    if lu_index.is_file():
        for lu in _children(_parse(lu_index), "lu"):
            frame = lexicon.frames.get(lu.get("frameName") or "")
            lu_name = lu.get("name")
            if frame is None or not lu_name or any(x.name == lu_name for x in frame.lexical_units):
                continue
            frame.lexical_units.append(
                LexicalUnit(name=lu_name, pos=(lu.get("POS") or lu_pos_code(lu_name)).lower(), fn_id=_int(lu.get("ID")))
            )
    return lexicon
