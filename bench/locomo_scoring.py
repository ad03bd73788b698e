"""The LoCoMo counting rule (../shared/bench/README.md, protocol step 4), shared by the harness,
its re-scorer and its test.

A context is cut into spans: paragraphs, and each list item on its own line. An evidence turn
counts as retrieved when one span cites it (its dia_id, or a braniac event id that the
provenance map resolves to it) and that same span holds at least half of the turn's distinct
content words (lowercase \\w+ tokens of 3+ characters that are not stop words).
"""
from __future__ import annotations

import re

# The classic English stop-word list (NLTK's), so the rule does not depend on braniac's own.
STOP_WORDS = frozenset("""
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him
his himself she she's her hers herself it it's its itself they them their theirs themselves what which who
whom this that that'll these those am is are was were be been being have has had having do does did doing
a an the and but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here there when
where why how all any both each few more most other some such no nor not only own same so than too very s t
can will just don don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't
doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't
shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
""".split())

DIA_ID = re.compile(r"\bD\d+:\d+\b")
EVENT_ID = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b")


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) >= 3 and w not in STOP_WORDS}


def spans(context: str) -> list[str]:
    """Paragraphs; inside a paragraph, every list item stands alone (one claim per bullet)."""
    out = []
    for paragraph in re.split(r"\n\s*\n", context):
        lines = paragraph.split("\n")
        current: list[str] = []
        for line in lines:
            if re.match(r"^\s*[-*+] ", line):
                if current:
                    out.append("\n".join(current))
                current = [line]
            else:
                current.append(line)
        if current:
            out.append("\n".join(current))
    return [s for s in out if s.strip()]


def cited(span: str, provenance: dict[str, str]) -> set[str]:
    found = set(DIA_ID.findall(span))
    found |= {provenance[e] for e in EVENT_ID.findall(span) if e in provenance}
    return found


def covered(context: str, evidence: list[str], turns: dict[str, str], provenance: dict[str, str]) -> list[str]:
    hits = []
    pieces = [(span, cited(span, provenance), content_words(span)) for span in spans(context)]
    for dia_id in evidence:
        need = content_words(turns.get(dia_id, ""))
        for _span, ids, words in pieces:
            if dia_id in ids and (not need or len(need & words) * 2 >= len(need)):
                hits.append(dia_id)
                break
    return hits


def cap_words(text: str, budget: int) -> str:
    """The first `budget` words of text, keeping its line structure."""
    out, used = [], 0
    for line in text.split("\n"):
        words = line.split()
        if used + len(words) <= budget:
            out.append(line)
            used += len(words)
            continue
        room = budget - used
        if room > 0:
            out.append(" ".join(words[:room]))
        break
    return "\n".join(out)


def summarize(rows: list[dict]) -> dict:
    """frac / all / any (percent) and mean words, overall and per category."""
    def block(items: list[dict]) -> dict:
        if not items:
            return {"frac": 0.0, "all": 0.0, "any": 0.0, "words": 0.0, "n": 0}
        fracs = [len(r["covered"]) / len(r["evidence"]) for r in items]
        return {"frac": round(100 * sum(fracs) / len(items), 1),
                "all": round(100 * sum(f == 1 for f in fracs) / len(items), 1),
                "any": round(100 * sum(f > 0 for f in fracs) / len(items), 1),
                "words": round(sum(r["words"] for r in items) / len(items), 1), "n": len(items)}
    result = {"overall": block(rows)}
    for category in ("1", "2", "3", "4"):
        result[category] = block([r for r in rows if str(r["category"]) == category])
    return result
