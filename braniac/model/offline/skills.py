"""Skills the offline engine keeps: an answer with numbered steps to a question that asks how
to do something becomes a note named by that task ("How to configure Sentry with Netlify
Analytics"), one claim per step."""
from __future__ import annotations

import re

from ...infra import textutil
from ...infra.markdown_prose import without_code
from ..types import Candidate, EventRecord
from .sentences import ABBREVIATIONS, sentences, split_speaker

_HOW_TO = re.compile(r"\bhow (?:do|can|could|should|would) (?:i|we|you)\s+(.+)$|\bhow to\s+(.+)$", re.I)
# a numbered step, also as a heading ("### 2. **Prioritize Writing**"); numbered steps only
_STEP = re.compile(r"^\s*(?:#{1,6}\s*)?(?:(\d+)[.)]|step (\d+):?)\s+(.+)$", re.I)
_EMPHASIS = re.compile(r"(\*\*|__|\*)(?=\S)(.+?)(?<=\S)\1")


def skills(events: list[EventRecord]) -> list[Candidate]:
    found = []
    for event in events:
        _, question = split_speaker(event.user)
        task = skill_task(question)
        if task and len(steps(event)) >= 2:
            found.append(Candidate("skills", [], f"How to {task}", [event.id]))
    return found


# A skill is named by the task its question asks how to do, as a person would title the note:
# "How to configure Sentry with Netlify Analytics", not the rest of the message after it
# (", considering I've never…", " - can you help me with that") nor a task that names nothing
# ("How to start", "How to fix it").
MAX_TASK_WORDS = 12
_TASK_ENDS = re.compile(r"[?!;(=]|:(?:\s|$)|\.(?:\s|$)|\s[-–—]+\s|\s(?:and|or)\s+(?=(?:what|how|which|where|why|should|"
                        r"can|could|would|do|does|is|are)\b)|,\s*(?=(?:"
                        r"(?:and|or) (?:what|how|which|where|why|i|i'm|i've|can|could|should|would|also|maybe|then|if)|"
                        r"but|so|considering|especially|given|since|because|while|as|can|could|should|would|will|maybe|"
                        r"which|where|without|what|how|if|like|for instance|for example|such as|specifically|including|"
                        r"here|here's|i|i'm|i've|i'd|please)\b)", re.I)
# where a long task can be cut and still say what it is: before a second clause or a condition
# (not the "and" of a list: "the SSS, SAS, and ASA criteria")
_TASK_BREAKS = re.compile(r"(?<!,)\s(?:and|or)\s|\s(?:but|so|while|because|since|without|even|if|when|after|"
                          r"before|considering|especially|given|like|to ensure|to make sure)\s", re.I)
_CUT_AFTER = ABBREVIATIONS | {"etc"}   # no title ends on "… my manager Dr"
_PHRASE_OPENERS = frozenset("in on at by for with about from to of as during through into over under".split())
_SPAN = re.compile(r"`[^`\n]+`")
_POINTING = frozenset("this that it them these those one".split())


def skill_task(question: str) -> str | None:
    """The task a how-to question asks about, cut where the sentence goes on to something
    else, at most MAX_TASK_WORDS words; None when it names too little to title a note."""
    for sentence in sentences(without_code(question, inline=False)):
        match = _HOW_TO.search(sentence)
        if not match:
            continue
        asked = re.split(r"`{3,}", match.group(1) or match.group(2))[0]   # code cut off inline is no title
        spans = _SPAN.findall(asked)   # a `code span` is cut whole or not at all ("fix `TypeError: x`")
        task = _TASK_ENDS.split(_SPAN.sub("\x00", asked), maxsplit=1)[0]
        for span in spans[:task.count("\x00")]:
            task = task.replace("\x00", span, 1)
        if task.count("`") % 2:
            task = task[:task.rfind("`")]
        task = task.strip().rstrip(".,")
        words = task.split()
        if len(words) > MAX_TASK_WORDS:
            head = " ".join(words[:MAX_TASK_WORDS + 1])
            cuts = [m.start() for m in _TASK_BREAKS.finditer(head) if len(head[:m.start()].split()) >= 3]
            if cuts:
                words = head[:cuts[-1]].split()
            else:   # before its last phrase, not inside it: "… by June 10", not "… by June 10 as Danielle"
                words = words[:MAX_TASK_WORDS]
                last = max((i for i, w in enumerate(words) if i >= 3 and w.lower() in _PHRASE_OPENERS), default=0)
                words = words[:last] if last else words
        while words and (not textutil.content_words(words[-1]) and not re.search(r"\d", words[-1])
                         or words[-1].lower().rstrip(".") in _CUT_AFTER):
            words.pop()   # not "… my essay on", "… my manager Dr", "… in Python vs"
        task = " ".join(words).rstrip(",")
        # the verb's object names a thing: not "fix it", "do that effectively", "make sure I'm ready"
        named = [w for w in textutil.content_words(task.split(" ", 1)[-1]) if w.lower() not in textutil.GENERIC_WORDS
                 and w.lower() not in _POINTING and not w.lower().endswith("ly")]
        if named and " " in task:
            return task
    return None


def steps(event: EventRecord) -> list[str]:
    """The numbered steps of an event: the assistant's, or else the person's own."""
    return numbered_steps(event.ai) or numbered_steps(event.user)


def numbered_steps(text: str) -> list[str]:
    """The first numbered list of a message (1, 2, 3… in order), also when its steps are headings
    ("### 2. **Prioritize Writing**"). A list that starts again at 1 at the steps' own level (the
    "Example Plan" that repeats the steps) is not read, and neither are a step's own sub-steps
    or sub-headings. A step is its own line: the details under it stay in the archived event the
    step cites (measured: with them, the skill notes crowd the person's own facts out of a small
    context, BEAM dev -1.0 at 300 words)."""
    found: list[str] = []
    level: tuple[int, int] | None = None   # (heading depth, indent) of the steps
    for line in without_code(text, inline=False).split("\n"):
        step = _STEP.match(line)
        depth = len(line.lstrip()) - len(line.lstrip().lstrip("#"))
        here = (depth, len(line) - len(line.lstrip()))
        if step:
            number = int(step.group(1) or step.group(2))
            if level is None and number == 1 or level == here and number == len(found) + 1:
                level = level or here
                found.append(" ".join(_EMPHASIS.sub(r"\2", step.group(3)).split()).rstrip(":"))
            elif level == here and number == 1:
                break   # the list again: a recap
        elif found and depth and (not level[0] or depth <= level[0]):
            break       # the next section (a heading no deeper than the steps')
    return found
