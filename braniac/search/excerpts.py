"""Long answers in the working memory: the part that matches the question, not the first lines.

An archived exchange holds the person's words and the assistant's answer, and the answer to a
coding or planning question runs to hundreds of words (a plan, code, a list). Put in whole, a
few of them fill a small context; cut at a fixed length, they keep their opening and lose what
was asked about. So an excerpt keeps the person's words whole (they are what the memory is
about) and, of a long answer, the window of lines richest in the question's terms that the
person's words lack, its code fences closed, with "…" where lines were left out; an answer
whose best window adds less than two of the question's own words (a word a query added counts
half) is left out: one word in common is no sign that the window answers anything, unless the
question has no other word the person's words lack, and an "**AI:** …" standing for nothing
costs a small context three words an exchange (BEAM dev: +0.4 / +0.9 / +0.2 at 300 / 750 / 1500
words, no chat down). The note itself is untouched: its path is in the excerpt, for whoever
needs the whole answer. (BEAM dev, answers cut to 60 words: +6.5 / +8.1 / +9.4 at
300 / 750 / 1500 words; to 30 words and only for what the person's words lack: +4.1 / +3.3 /
+2.5 more; LoCoMo has no long answers and is unchanged; two words, not one: +1.0 / +1.0 / +1.0.)
"""
from __future__ import annotations

import math
import re

from .passages import content_terms

ANSWER_WORDS = 30          # the words of a long answer an excerpt keeps
LONG_ANSWER = 60           # an answer longer than this is cut to its best window
_FIELD = re.compile(r"^\*\*[^*\n]+?:\*\*")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'`(*])")
ELLIPSIS = "> …"
NEW_WEIGHT = 2.0           # the least query weight a window adds for the answer to be shown (a prompt word: 1)


def trim_answer(text: str, weights: dict[str, float]) -> str:
    """An archived event's text with a long AI answer cut to its best window (see above);
    any other text as it is."""
    if not text.startswith("### "):
        return text
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("**AI:**")), None)
    if start is None:
        return text
    end = next((i for i in range(start + 1, len(lines)) if _FIELD.match(lines[i])), len(lines))
    inline = lines[start][len("**AI:**"):].strip()
    body = [inline] if inline else [_unquote(line) for line in lines[start + 1:end]]
    while body and not body[-1].strip():
        body.pop()
    if sum(len(line.split()) for line in body) <= LONG_ANSWER:
        return text
    head = lines[:start]
    said = set(content_terms("\n".join(head)))
    new = {t: w for t, w in weights.items() if t not in said}
    window = _best_window(_units(body, ANSWER_WORDS), new, ANSWER_WORDS)
    if window == [ELLIPSIS] and any(_FIELD.match(line) for line in head):   # nothing of it answers: the path leads to it
        return "\n".join([*head, *lines[end:]]).rstrip("\n")
    return "\n".join([*head, "**AI:**", *window, *lines[end:]]).rstrip("\n")


def _unquote(line: str) -> str:
    return re.sub(r"^[ \t]*> ?", "", line)


def _units(body: list[str], keep: int) -> list[tuple[str, bool]]:
    """The answer as (line, inside a code fence before it) units, a line longer than the window
    cut into sentences (and a sentence longer than that into pieces)."""
    units: list[tuple[str, bool]] = []
    fenced = False
    for line in body:
        pieces = [line]
        if len(line.split()) > keep and not fenced:
            pieces = []
            for sentence in _SENTENCE.split(line.strip().strip('"')):
                words = sentence.split()
                pieces += [" ".join(words[i:i + keep]) for i in range(0, len(words), keep)]
        for piece in pieces:
            units.append((piece, fenced))
        if _FENCE.match(line):
            fenced = not fenced
    return units


def _open_after(units: list[tuple[str, bool]], j: int) -> bool:
    """Is a code fence open after the first j units?"""
    if j < len(units):
        return units[j][1]
    last, fenced = units[-1]
    return fenced != bool(_FENCE.match(last))


def _best_window(units: list[tuple[str, bool]], weights: dict[str, float], keep: int) -> list[str]:
    """The run of consecutive units of at most `keep` words holding the most query weight (its
    terms counted once), the earliest of equals; quoted, with its fences closed and the lines
    left out marked."""
    sizes = [len(u.split()) for u, _ in units]
    terms = [set(content_terms(u)) & weights.keys() for u, _ in units]
    best, best_span = -1.0, (0, 1)
    for i in range(len(units)):
        if not units[i][0].strip():
            continue
        found: set[str] = set()
        used = 0
        for j in range(i, len(units)):
            if used + sizes[j] > keep and j > i:
                break
            used += sizes[j]
            found |= terms[j]
            score = math.fsum(weights[t] for t in found)   # exact: the same whatever the set's order
            if score > best:
                best, best_span = score, (i, j + 1)
    asked = sum(w for w in weights.values() if w >= 1.0)      # the prompt's own words among them
    if best < min(NEW_WEIGHT, max(1.0, asked)):               # a one-word question needs its one word
        return [ELLIPSIS]
    i, j = best_span
    out = [ELLIPSIS] if i > 0 else []
    if units[i][1]:
        out.append("> ```")
    out += [f"> {u}" if u else ">" for u, _ in units[i:j]]
    if _open_after(units, j):
        out.append("> ```")
    if j < len(units):
        out.append(ELLIPSIS)
    return out
