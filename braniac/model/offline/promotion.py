"""The offline engine's promotion (vault-format.md §10.4) without a language model.

Analyze groups the events by the people, places and things they mention and by recurring
topics; speaker-attributed lines ("Ana: I moved to Lisbon") make the speaker an entity too.
Synthesize keeps the person's own sentences as dated claims, each citing its event, so nothing
is paraphrased away. Names and topics are read from the prose, not from code ("return True"
names nothing). Questions, greetings and small talk fail the worthiness gate: they stay in
the events archive but make no claim. "How to" answers with steps become skills.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict

from ...infra import textutil
from ...infra.name_lists import is_given_name
from ...infra.markdown_prose import code_languages, code_words, without_code
from ...vault.layout import event_day
from ..types import Candidate, Claim, EventRecord, NoteDraft
from .entity_folders import entity_folder
from .sentences import sentences, split_speaker
from .skills import skills, steps
from .topics import NOUN_EVIDENCE, one_number, shared_beyond, topic_words

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|my|me|we|our)\b", re.I)
MIN_CLAIM_WORDS = 4
MAX_TOPICS = 12

_EMOTIONS = {
    "joy": {"happy", "glad", "excited", "love", "loved", "great", "awesome", "wonderful", "fun", "proud", "thrilled", "amazing"},
    "sadness": {"sad", "sorry", "lost", "miss", "missed", "cry", "cried", "grief", "lonely", "unfortunately"},
    "frustration": {"angry", "annoyed", "frustrated", "frustrating", "hate", "broken", "bug", "fails", "failed"},
    "anxiety": {"worried", "anxious", "nervous", "afraid", "scared", "stress", "stressed", "deadline"},
    "curiosity": {"curious", "wonder", "wondering", "learn", "learning", "interesting", "explore"},
}


# A short statement the person makes of themselves or of what is theirs ("My manager is Priya.",
# "I'm allergic to peanuts.", "We switched to ClickHouse."): a fact, however few its words.
_VOCATIVE = re.compile(r",\s*[A-Z][\w'’]*\s*[.!]*$")
_OWN_SUBJECT = re.compile(r"^(?:I|I['’]m|I am|I['’]ve|I have|I['’]d|we|we['’]re|we['’]ve|we are|my|our)\b", re.I)
# a time the statement opens with ("Yesterday I renewed my passport."): its subject comes after
_OPENING_TIME = re.compile(r"^(?:yesterday|today|tonight|tomorrow|this\s+(?:morning|afternoon|evening)|"
                           r"last\s+(?:night|week|weekend|month|year|\w+day)|on\s+\w+day|next\s+\w+)\s*,?\s+", re.I)


def is_claim(sentence: str) -> bool:
    """The worthiness gate: a statement with enough substance to be worth remembering. A number
    counts as a word of substance ("raised the lisinopril to 20 mg"); a short statement of the
    person's own needs two words that are not small talk ("great", "love", "think")."""
    s = sentence.strip()
    if not s or s.endswith("?"):
        return False
    said = textutil.content_words(s)
    if len(said) + len(textutil.numbers(s)) >= MIN_CLAIM_WORDS:
        return True
    if s.endswith("!"):
        return False   # "Congrats on the trophy!", "We love it, it brings us closer!": small talk
    said = textutil.content_words(_VOCATIVE.sub("", s))   # "My pleasure, Mel." is small talk
    first, *rest = s.split(maxsplit=2)
    # "Priya approved my vacation.": a name no dictionary has, then what it did
    named = first.isalpha() and first[:1].isupper() and not textutil.is_common_word(first) \
        and bool(rest) and rest[0].isalpha() and rest[0].islower()
    own = bool(_OWN_SUBJECT.match(_OPENING_TIME.sub("", s)))
    return (own or named) and sum(w not in textutil.GENERIC_WORDS for w in said) >= 2


def emotion_of(text: str) -> str:
    words = set(textutil.words(text))
    scores = {name: len(words & cues) for name, cues in _EMOTIONS.items()}
    best = max(scores, key=scores.get)
    return best if scores[best] else "neutral"


def _ordinary(name: str, lowercase: Counter, known: set[str]) -> bool:
    """Is a capitalized name only ordinary words that these events write in lowercase and never
    capitalize inside a sentence? Then it opened a heading or a list item ("Add Income",
    "Implement"), and names nothing. "Flask" in "using Python and Flask", "Rose" in "with Rose"
    (though "prices rose") and a note's existing title stay names."""
    return all(textutil.is_common_word(w) and lowercase[w.lower()] and w not in known for w in name.split())


def analyze(events: list[EventRecord], known_titles: list[str] = ()) -> list[Candidate]:
    speakers: set[str] = set()
    statements: dict[str, list[str]] = {}        # event id -> claim sentences (speaker-prefixed)
    mentions: dict[str, set[str]] = defaultdict(set)
    texts: dict[str, list[str]] = defaultdict(list)
    topic_events: dict[str, set[str]] = defaultdict(set)
    noun_uses: Counter = Counter()               # word or phrase -> times it was used as a noun phrase
    said_terms: dict[str, set[str]] = {}         # event id -> the stems of what it states
    said_by = {e.id: split_speaker(e.user) for e in events}
    prose = {i: without_code(said) for i, (_, said) in said_by.items()}
    # the words of the person's own code, and the language an answer's code block is in: an
    # answer's code also holds letters and templates that name people and companies
    in_code = set().union(*(code_words(e.user) | code_languages(e.ai) for e in events))
    titles = [t for t in known_titles if t[:1].isupper()]
    known = textutil.names_in(list(prose.values()), given=is_given_name) | set(titles) | \
        {w for t in titles for w in t.split()}
    lowercase = textutil.lowercase_uses(list(prose.values()))
    for event in events:
        speaker, said = said_by[event.id]
        if speaker:
            speakers.add(speaker)
        claims = [s for s in sentences(said) if is_claim(s)]
        statements[event.id] = claims
        said_terms[event.id] = {textutil.stem(w) for s in claims for w in textutil.content_words(s)
                                if w not in textutil.GENERIC_WORDS}
        for sentence in sentences(prose[event.id]):
            claim = is_claim(sentence)
            for name in textutil.entities(sentence, known):
                if name != speaker and not _ordinary(name, lowercase, known):
                    if claim:
                        mentions[name].add(event.id)
                    if not sentence.strip().endswith("?"):   # a claim never is a question
                        texts[name].append(sentence)   # a line too short to keep still says what a name is: "It was in London."
            if not claim:
                continue
            mentioned, nouns = topic_words(sentence)
            for word in mentioned:
                topic_events[word].add(event.id)
            noun_uses.update(nouns)
        if speaker and any(_FIRST_PERSON.search(s) for s in claims):
            mentions[speaker].add(event.id)
    one_number(topic_events, noun_uses, set(known_titles))   # as titled: "Bill" the person stays apart
    # "Python and Flask" where the events also name Python and Flask alone: two things, each noted
    for name, sides in [(n, textutil.joined(n)) for n in mentions]:
        if len(sides) == 2 and all(side in mentions for side in sides):
            for side in sides:
                mentions[side] |= mentions[name]
                texts[side] += texts[name]
            del mentions[name]
    _one_person(mentions, texts, known_titles, speakers, in_code)
    candidates = []
    entity_words = {w.lower() for name in mentions for w in name.split()}
    for name, ids in sorted(mentions.items()):
        folder = entity_folder(name, texts[name], speakers, in_code)
        candidates.append(Candidate("concrete", [folder], name, sorted(ids)))
    topics = [(w, ids) for w, ids in topic_events.items()
              if len(ids) >= 2 and noun_uses[w] >= NOUN_EVIDENCE and not set(w.split()) & entity_words
              and (" " in w or shared_beyond(w, ids, said_terms))]
    chosen = dict(topics)
    # a phrase that says no more than one of its words ("pottery class" in every event about pottery)
    topics = [(w, ids) for w, ids in topics
              if " " not in w or not any(ids <= chosen.get(part, set()) for part in w.split())]
    topics.sort(key=lambda item: (-len(item[1]), item[0]))
    for word, ids in topics[:MAX_TOPICS]:
        candidates.append(Candidate("concrete", ["topics"], word, sorted(ids)))
    candidates += skills(events)
    return candidates


def _one_person(mentions: dict[str, set[str]], texts: dict[str, list[str]], known_titles: list[str],
                speakers: set[str], in_code: set[str]) -> None:
    """"Priya Shah" and "Priya" in one run, or "Priya" beside a note titled "Priya Shah": one
    person, under the name said in full (when only one full name starts so). Only a person:
    "Google" is no "Google Maps", "Lisbon" no "Lisbon Airport"."""
    full_names = {n for n in [*mentions, *known_titles] if " " in n}
    for name in [n for n in mentions if " " not in n and n not in known_titles]:
        fulls = [f for f in full_names if f.split()[0] == name]
        if len(fulls) != 1:
            continue
        full = fulls[0]
        if "people" not in (entity_folder(name, texts[name], speakers, in_code),
                            entity_folder(full, texts[full], speakers, in_code)):
            continue
        mentions[full] |= mentions.pop(name)
        texts[full] += texts.pop(name)


def synthesize(candidate: Candidate, events: list[EventRecord]) -> NoteDraft:
    by_id = {e.id: e for e in events}
    chosen = [by_id[i] for i in candidate.event_ids if i in by_id]
    claims: list[Claim] = []
    if candidate.kind == "skills":
        for event in chosen:
            for n, step in enumerate(steps(event), 1):
                claims.append(Claim(f"Step {n}: {' '.join(step.split())}", [event.id]))
        summary = ""
    else:
        needle = candidate.title.lower()
        # a person said in full is also said by their first name ("Priya Shah", then "Priya said…")
        first_name = needle.split()[0] if candidate.folder == ["people"] and " " in needle else None
        for event in chosen:
            speaker, said = split_speaker(event.user)
            about_it = []
            for sentence in sentences(said):
                if not is_claim(sentence):
                    continue
                lowered = sentence.lower()
                # a name of several words, or of a hyphen ("Jean-Luc"), is found as written
                about = needle in lowered if " " in needle or "-" in needle else \
                    needle in {textutil.stem(w) for w in textutil.words(sentence)} | set(textutil.words(sentence))
                about = about or first_name is not None and first_name in textutil.words(sentence)
                if speaker and speaker == candidate.title:
                    about = about or bool(_FIRST_PERSON.search(sentence))
                if about:
                    about_it.append(sentence)
            if about_it:  # one claim per event: the whole statement, so no context is cut away
                prefix = f"{speaker}: " if speaker else ""
                whole = " ".join(s for s in sentences(said) if is_claim(s) or len(textutil.content_words(s)) >= 2)
                claims.append(Claim(f"{event_day(event.id).isoformat()} — {prefix}{whole}", [event.id]))   # the person's day
        summary = ""  # the claims speak for themselves; the folder says what kind of thing this is
    text = " ".join(c.text for c in claims)
    tags = list(dict.fromkeys([*candidate.folder, *textutil.keywords(text, limit=5)]))[:6]
    return NoteDraft(candidate.kind, candidate.folder, candidate.title, summary, claims, tags, emotion_of(text))


def relate(drafts: list[NoteDraft]) -> None:
    """Notes whose claims rest on the same events are related (co-mentioned): link the top ones."""
    sources = {d.title: {s for c in d.claims for s in c.sources} for d in drafts}
    for draft in drafts:
        mine = sources[draft.title]
        scores = Counter({other: len(mine & theirs) for other, theirs in sources.items()
                          if other != draft.title and mine & theirs})
        draft.related = [title for title, _ in scores.most_common(5)]


def summarize(promoted: list[EventRecord], remaining: list[EventRecord], open_items: list[str]) -> str:
    parts = []
    if promoted:
        first, last = promoted[-1].id[:10], promoted[0].id[:10]
        span = first if first == last else f"{first} to {last}"
        names = Counter(n for e in promoted for n in textutil.entities(split_speaker(e.user)[1]))
        topics = Counter(w for e in promoted for w in textutil.keywords(split_speaker(e.user)[1], limit=5))
        picked = [n for n, _ in names.most_common(5)]
        picked += [w for w, _ in topics.most_common(8) if w not in {p.lower() for p in picked}][:5]
        about = ", ".join(picked)
        parts.append(f"{len(promoted)} events from {span} were consolidated into long-term memory"
                     + (f" (mostly about {about})." if about else "."))
    if remaining:
        parts.append(f"{len(remaining)} newer events are still only in the event log below, the latest about: "
                     + "; ".join(" ".join(split_speaker(e.user)[1].split())[:80] for e in remaining[:3]) + ".")
    if open_items:
        parts.append("Still open: " + "; ".join(open_items[:8]) + ".")
    return " ".join(parts) or "Nothing to summarize yet."
