"""The prose inside a person's Markdown: where a sentence starts when list marks and bold labels
come first, and the message without its code. Names and topics are read from prose; a word
that opens a sentence, a list item or a heading is capitalized for that reason alone."""
from __future__ import annotations

import re
from collections.abc import Iterator

_MARKUP_BEFORE = re.compile(r"(?:[*_#>|`+-]+|\d+[.)])[ \t]*$")   # "- ", "**", "1. ", "> ", "## "


TITLES = frozenset("Dr Mr Mrs Ms Prof".split())   # written before a name, with a full stop that ends no sentence
_TITLE_BEFORE = re.compile(rf"(?<![\w.])(?:{'|'.join(sorted(TITLES))})\.$")


def opens_sentence(text: str, start: int) -> bool:
    """Whether `text[start]` begins a sentence: at the very start, after a line break, after
    .!?:; and a space, or after an opening quote or parenthesis; Markdown in between ("- ",
    "1. **", "**Goal:** ") still opens one. It looks back only over the spaces and a few marks
    before `start`, so going through all of a long text stays linear."""
    gap = start
    while gap > 0 and text[gap - 1].isspace():
        gap -= 1
    spaces = text[gap:start]
    marked = False
    for _ in range(3):   # a list mark, then bold: "1. **Users**"
        if gap == 0 or "\n" in spaces:
            break
        mark = _MARKUP_BEFORE.search(text, max(0, gap - 8), gap)
        if not mark or (mark.group(0)[0] in "-+" and mark.start() and not text[mark.start() - 1].isspace()):
            break   # no Markdown, or a hyphen inside a word
        if mark.group(0)[0].isdigit() and not _at_line_start(text, mark.start()):
            break   # "at gate 12. Rain…": a number that ends a sentence, not a list's "12. "
        gap, marked = mark.start(), True
        while gap > 0 and text[gap - 1] in " \t\n":
            gap -= 1
        spaces = text[gap:start]
    if gap == 0:
        return start == 0 or "\n" in spaces or marked
    if text[gap - 1] == "." and _TITLE_BEFORE.search(text, max(0, gap - 6), gap):
        return False   # "Dr. Brown says…": a title's full stop ends no sentence
    return "\n" in spaces or (text[gap - 1] in ".!?:;" and bool(spaces)) or text[gap - 1] in "\"“("


def _at_line_start(text: str, i: int) -> bool:
    """Do only spaces or tabs (a few) stand between text[i] and the start of its line?"""
    j = i
    while j > 0 and i - j < 8 and text[j - 1] in " \t":
        j -= 1
    return j == 0 or text[j - 1] == "\n"


_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(?<![\w`])`([^`\n]{1,80})`(?![\w`])")
_PLAIN_WORD = re.compile(r"[A-Za-z][a-z]+")
# a sentence: a capital, then words without code's marks, then . ? or ! ("Can you review it?")
_PROSE_LINE = re.compile(r"^[ \t]*[A-Z][^{}()\[\];=<>`#]*\s[^{}()\[\];=<>`#]*[.?!]\s*$")


def without_code(text: str, *, inline: bool = True) -> str:
    """The prose of a message: fenced code blocks and `inline code` taken out. Names in code
    ("Flask(__name__)", "return True") say nothing of what a person talks about. A fence closes
    on a bare line of the same marks, at least as many; one that never closes (a message cut
    short) runs on until a line of prose, so a stray fence does not swallow the rest. An inline span that is one plain
    word (`Django`, `pytest`) stays, as the word; backticks inside words ("don`t") are no code.
    With inline=False every inline span stays as written: words of a sentence a person reads
    ("the `transactions` query"), where a block of code is not."""
    if "`" not in text and "~~~" not in text:
        return text
    prose = "\n".join(line for line, in_code in _lines(text) if not in_code)
    if not inline:
        return prose
    return _INLINE_CODE.sub(lambda m: m.group(1) if _PLAIN_WORD.fullmatch(m.group(1)) else " ", prose)


def fenced_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the fenced code blocks of a text, their fences included."""
    if "```" not in text and "~~~" not in text:
        return []
    spans: list[tuple[int, int]] = []
    start = 0
    for line, in_code in _lines(text):
        end = start + len(line) + 1
        if in_code:
            if spans and spans[-1][1] == start:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        start = end
    return spans


# what is no prose of a note beside its fenced blocks: `inline code`, an HTML comment (not a
# wikilink's `<!--uuid:…-->`, which is part of the link), an Obsidian %%comment%%
_NOT_PROSE = re.compile(r"`[^`\n]+`|<!--(?!uuid:).*?-->|%%.*?%%", re.S)


def code_and_comments(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of what a person wrote as code or as a comment: links there are
    text as written, never re-aimed when a note moves nor reported as broken."""
    if not any(mark in text for mark in ("`", "~~~", "<!--", "%%")):
        return []
    return fenced_spans(text) + [m.span() for m in _NOT_PROSE.finditer(text)]


def code_words(text: str) -> set[str]:
    """The words a message's code is written in: the language of a fenced block ("```css"), and
    the identifiers and commands of its code lines ("git push", "uuid4()", "csrf_token"). Not
    what the code quotes ('Maria', "Europe/Lisbon"): names in strings are data. Not a fenced
    line that reads as prose (a letter pasted to be proofread), nor a one-word inline span
    (`paris`, a branch)."""
    if "`" not in text and "~~~" not in text:
        return set()
    found: set[str] = set()
    prose: list[str] = []
    for line, in_code in _lines(text):
        if not in_code:
            prose.append(line)
        elif (fence := _FENCE_OPEN.match(line)) is not None:
            found |= _identifiers(line[fence.end():].strip().split(" ")[0])
        elif _CODE_LINE.search(line):
            found |= _identifiers(_STRING.sub(" ", line))
    for span in _INLINE_CODE.findall("\n".join(prose)):
        if not _PLAIN_WORD.fullmatch(span.strip()):
            found |= _identifiers(_STRING.sub(" ", span))
    return found


def _identifiers(code: str) -> set[str]:
    """Lowercase names in code, whole and without their digits: "html5" and "html", "uuid4" and "uuid"."""
    lowered = code.lower()
    return set(_CODE_WORD.findall(lowered)) | set(_LETTERS.findall(lowered))


def code_languages(text: str) -> set[str]:
    """The languages a message's fenced code blocks say they are in ("```css", "~~~ bash")."""
    if "`" not in text and "~~~" not in text:
        return set()
    return {m.group(1).lower() for line, in_code in _lines(text) if in_code
            for m in [_FENCE_LANGUAGE.match(line)] if m}


_FENCE_LANGUAGE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[ \t]*([A-Za-z][\w+#.-]*)")
_CODE_WORD = re.compile(r"[a-z][a-z0-9]*")
_LETTERS = re.compile(r"[a-z]+")
_STRING = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`")
# a line of code: code's marks, or a command ("git push origin main", "npm install")
_CODE_LINE = re.compile(r"[(){}\[\]=;<>$]|^\s*[a-z][\w.-]*\s+[-a-z]")


def _lines(text: str) -> Iterator[tuple[str, bool]]:
    """Each line of a message, and whether it is inside a fenced code block (its fences too)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        opened = _FENCE_OPEN.match(lines[i])
        if not opened:
            yield lines[i], False
            i += 1
            continue
        mark = opened.group(1)
        close = re.compile(rf"^[ \t]*{re.escape(mark[0])}{{{len(mark)},}}[ \t]*\r?$")   # (a CRLF file's too)
        end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), None)
        if end is None:   # never closed: the code runs on until a line of prose
            end = next((j - 1 for j in range(i + 1, len(lines)) if _PROSE_LINE.match(lines[j])), len(lines))
        for j in range(i, min(end + 1, len(lines))):
            yield lines[j], True
        i = end + 1
