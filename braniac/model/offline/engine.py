"""The offline engine's turn and reflection, and `OfflineModel`, which answers every task.

Search queries come from the prompt's keywords, names and dates (and from short-term memory
when the prompt leans on it); the answer quotes the most relevant memories with where they
came from; reflection notes what the exchange mentions and picks up stated goals, tasks and
decisions. Promotion's tasks are in `promotion.py`.
"""
from __future__ import annotations

import re
from typing import Iterator

from ...infra import measures, textutil
from ...infra.stemming import past_forms
from ...vault import claims, relations, stm
from ...vault.links import ANY_LINK
from ...vault.value_changes import goes_on
from . import organization, promotion
from .quotes import (ASKS_TASKS, ME, Quote, current, evidence, in_the_period, newer_first, open_tasks, owner, periods_asked,
                     replaced,
                     statements, without_the_period)
from .sentences import sentences
from ..organization_types import OrganizationPlan, OrganizationRequest
from ..types import Candidate, EventRecord, NoteDraft, Reflection, WorkingMemory

NAME = "offline"
MINE = 0.3   # the lead of a statement whose subject the question asks about, over as relevant ones
MAX_TOPIC_CHARS = 40   # the longest word a reflection names as a topic or a mention
FEW_WORDS = 4   # a question this short is answered by a statement holding one telling word of it, when none holds two
_CITATION = re.compile(rf"\s*\(({ANY_LINK}(?:,\s*)?)+\)")   # a claim's links to its events
_PRONOUNS = {"it", "that", "this", "he", "she", "they", "them", "him", "her", "his", "hers", "their", "those", "these"}

_ABOUT_ME = re.compile(r"\b(?:i|me|my|mine|we|us|our)\b", re.I)   # a question about the person
# words that ask for the value as it stands, which the statements giving it rarely say ("What car
# do I drive now?" is answered by "My car is a Golf"): no word of the question to match
_AS_IT_STANDS = frozenset("now currently nowadays still anymore".split())
_TO_DO = re.compile(r"\b(?:i|we)\s+(?:really\s+)?(?:should|must|ought to|have to|need to|gotta|got to)\b|"
                    r"^\s*(?:gotta|need to|have to|must)\b", re.I | re.M)
_TASK = re.compile(r"\b(?:remind me to|todo:?|to-do:?|task:|i need to|i have to|i must|don'?t let me forget to)\s+(.+?)(?:[.!?]|$)", re.I)
_GOAL = re.compile(r"\b(?:my goal is to|my goal is|goal:|i want to|i'?m trying to|i plan to|i hope to)\s+(.+?)(?:[.!?]|$)", re.I)
# a decision, and a decision taken back ("I changed my mind: larch"), kept with its own words
_FACT = re.compile(r"\b(?:(?:we decided(?: to| that)?|i decided(?: to| that)?|decision:|remember that|note that|fact:)\s+"
                   r"|(?:i|we)(?:'ve| have)? (?=changed (?:my|our) minds?\b))(.+?)(?:[.!?]|$)", re.I)
_DONE = re.compile(r"\b(?:i(?:'ve)? (?:finished|completed|did|done)|done with|finished|completed)\s+(.+?)(?:[.!?]|$)"
                   r"|(?:^|[.!?]\s+)done:\s*(.+?)(?:[.!?]|$)", re.I)
# "I renewed the TLS certificate" closes "renew the TLS certificate": the task's verb, said done
_DID = re.compile(r"\b(?:i|we)\s+(?:(?:have|'ve|’ve|just|finally|already)\s+)*([a-z]+)\s+(.+?)(?:[.!?;]|$)", re.I)


class OfflineModel:
    name = NAME

    # ---------------------------------------------------------------- search queries
    def search_queries(self, wm: WorkingMemory) -> list[str]:
        """The prompt's keywords, names included; when it names a time, the names with that time;
        and when it leans on context ("what does she like?"), the keywords with the names and
        words of the latest statements standing in for its pronouns. No query of bare names when
        the keywords already hold them: a search for a name alone returns its shortest mentions
        (retrieval itself lifts what happened at a time the prompt names)."""
        prompt_words = textutil.keywords(wm.prompt, limit=10)
        names = textutil.entities(wm.prompt)
        when = textutil.dates(wm.prompt)
        queries = []
        if prompt_words:
            queries.append(" ".join(prompt_words))
        if when or any(w not in prompt_words for n in names for w in textutil.words(n)):
            queries.append(" ".join(names + when))
        context = _context_words(wm)
        if context:
            queries.append(" ".join(dict.fromkeys(prompt_words + context)))
        asked = measures.asked(wm.prompt)
        if asked:   # "How much do I weigh?" is answered in kilos: "Down to 79 kg now"
            queries.append(" ".join([*prompt_words, measures.unit_words(asked)]))
        where = relations.asked_where(wm.prompt)
        if where:   # "Where do I work?" is answered by "I started a new job at Globex"
            queries.append(" ".join([*prompt_words, relations.told_in(where[1])]))
        return list(dict.fromkeys(q for q in queries if q.strip()))

    # ---------------------------------------------------------------- answer
    def answer(self, wm: WorkingMemory) -> Iterator[str]:
        named = set(textutil.keywords(wm.prompt, limit=20)) | {w.lower() for n in textutil.entities(wm.prompt) for w in n.split()}
        spans = periods_asked(wm)
        query = without_the_period(named, spans)
        query = query - _AS_IT_STANDS if query - _AS_IT_STANDS else query
        context = {w.lower() for c in _context_words(wm) for w in c.split()} - named

        asked, holders = measures.asked(wm.prompt), measures.holders_of(wm.prompt)
        where = relations.asked_where(wm.prompt)
        personal = _ABOUT_ME.search(wm.prompt) is not None

        def relevance(text: str) -> float:
            # the prompt's own words count most; context words (standing in for pronouns) less;
            # the measure the question asks for, given in its unit, as much as its words
            words = textutil.overlap(query, text) + 0.3 * textutil.overlap(context, text)
            named = words > 0 or not measures.named_only(asked) if asked else False
            said_where = where is not None and relations.answers_where(claims.stated(text), where)
            return words + (0.5 if named and measures.states(text, asked, holders) or said_where else 0.0)

        def mine(said: str, score: float) -> bool:
            # "where do I live?": the statement whose subject the question asks about (the person's
            # own, "I live in Lisbon", not "My sister lives in Porto"; "our dog", not the
            # neighbour's) comes first among those as relevant
            whose = owner(said)
            return score > 0 and (personal and whose == ME or bool(holders) and whose == holders)

        pool: list[Quote] = open_tasks(wm)   # every statement in the working memory, relevant or not
        no_tasks = not pool and bool(ASKS_TASKS.search(wm.prompt))
        for event in wm.stm_events:
            said = statements(event.user)
            if said:
                score = relevance(said)
                own = mine(said, score)
                pool.append(Quote(score, _best_sentences(said, query | context), f"short-term memory, event {event.id}",
                                   event.id, said=said, matched=score > 0, order=0.05 + MINE * own, mine=own))
        for rank, excerpt in enumerate(wm.excerpts):
            said, when, superseded = evidence(excerpt.text)
            by_file = when is None and excerpt.written is not None
            when = when or excerpt.written
            if said:
                until = claims.SUPERSEDED_ON.search(excerpt.text) if superseded else None
                score = relevance(excerpt.title + " " + said)
                own = mine(said, score)
                pool.append(Quote(score, _best_sentences(said, query | context), excerpt.path, when, superseded,
                                   until.group(1) if until else None, said, score > 0, order=-rank * 0.01 + MINE * own,
                                   mine=own, by_file=by_file))
        # a single shared word out of many is chance, not relevance
        floor = 0.0 if len(query) <= 2 else min(0.34, 1.5 / len(query))
        in_the_period(pool, wm, query, spans)
        quotes = current([q for q in pool if q.matched and q.score >= floor])
        if not quotes and len(query) <= FEW_WORDS:
            # none holds two of a short question's words: those that hold a telling one ("notes" of
            # "What app do I use for notes?", not "use") rather than nothing remembered
            telling = {w for w in query if w not in textutil.GENERIC_WORDS}
            quotes = current([q for q in pool if q.matched and textutil.overlap(telling, q.said or q.text) > 0])
        about = textutil.terms(wm.prompt)
        quotes += replaced(quotes, pool, about, asked)
        newer_first(quotes, about)
        # what is current first; what it replaced after it, as history, however well it matches
        # the words of the question ("what did I decide…" / "I decided to use cedar")
        quotes.sort(key=lambda q: (q.superseded, -q.score - q.order))
        if quotes:
            # the clearly relevant ones only, by what they say (retrieval's order only breaks ties):
            # more than half as relevant as the best ("Ana called about the meetup" holds half of
            # "where does Ana work?"), or half for the statement whose subject the question asks
            # about ("where do Tom and I work?": "I work at Acme"), the same before and after promotion;
            # as relevant as the best current statement: history that says the question's words
            # more plainly ("We use Postgres for analytics") never crowds out what replaced it
            best = max([q.score for q in quotes if not q.superseded] or [q.score for q in quotes])
            quotes = [q for q in quotes if q.score > 0.5 * best or q.mine and q.score >= 0.5 * best]
        topic = ", ".join(sorted(named)[:6] or sorted(context)[:6]) or "that"
        if no_tasks:
            # "what do I need to do?" with nothing open: say so, and quote only what the question
            # itself names ("…for the shed?") or what reads as a to-do, not the latest statements
            # standing in for a pronoun
            yield "Nothing is open on your task list in short-term memory."
            quotes = [q for q in quotes if textutil.overlap(query, q.said or q.text) > 0 or
                      _TO_DO.search(q.said or q.text)]   # "I should email Ana": a to-do not filed as a task
            if not quotes:
                return
            yield "\n"
        if not quotes:
            if _is_statement(wm.prompt) and named:
                yield f"Noted in short-term memory (about {topic}). I don't remember anything related yet."
            else:
                yield f"I don't remember anything about {topic} yet."
            return
        yield f"Here is what I remember about {topic} (offline engine: I quote my memory rather than compose an answer):\n"
        shown: list[tuple[set[str], frozenset[str], bool]] = []
        for quote in quotes:
            text, source = quote.text, quote.source + (f", superseded on {quote.until}" if quote.until else "")
            words, values = set(textutil.content_words(text)), textutil.values(text)
            # the same claim kept in several notes is quoted once (not "900 a month" after "950 a
            # month"), and what a newer statement replaced is history, never a copy of it ("My
            # manager is Priya" after "Priya left; my new manager is Tom")
            # (both ways: "Leo goes to school at Escola Verde" is no copy of "Leo's best friend moved
            # from Escola Verde to a school in Braga", though the longer holds its words)
            if any(len(words & seen) >= 0.8 * max(len(words), len(seen), 1) and values <= stated
                   and was == quote.superseded for seen, stated, was in shown):
                continue
            shown.append((words, values, quote.superseded))
            yield f'\n- "{text}" ({source})'
            if len(shown) == 5:
                break
        yield "\n"

    # ---------------------------------------------------------------- reflection
    def reflect(self, user: str, ai: str, short_term: str) -> Reflection:
        # (a "word" of thousands of characters is no topic: the note of it would double the event)
        mentioned = [w for w in textutil.entities(user) if len(w) <= MAX_TOPIC_CHARS][:6]
        topics = [w for w in textutil.keywords(user, limit=12) if len(w) <= MAX_TOPIC_CHARS][:6]
        when = textutil.dates(user)
        parts = []
        if topics:
            parts.append("Topics: " + ", ".join(topics) + ".")
        if mentioned:
            parts.append("Mentions: " + ", ".join(mentioned) + ".")
        if when:
            parts.append("Dates: " + ", ".join(when) + ".")
        reflection = Reflection(thoughts=" ".join(parts) or "Recorded verbatim.")
        statements = " ".join(s for s in sentences(user, any_case=True) if s.strip() and not s.strip().endswith("?"))
        reflection.tasks = [_clean(m) for m in _TASK.findall(statements)]
        reflection.goals = [_clean(m) for m in _GOAL.findall(statements)]
        reflection.facts = [_clean(m) for m in _FACT.findall(statements)]
        finished = [_clean(a or b) for a, b in _DONE.findall(statements)]
        did = [(textutil.stem(m.group(1).lower()), m.group(2)) for m in _DID.finditer(statements)
               if m.group(1).lower() in past_forms() or m.group(1).lower().endswith("ed")]
        if (finished or did) and short_term:
            open_tasks = [i.text for i in stm.parse(short_term).items(stm.TASKS) if i.done is False]
            for task in open_tasks:
                task_words = set(textutil.content_words(task))
                verb, _, rest = task.strip().partition(" ")
                done_it = any(stem == textutil.stem(verb.lower()) and textutil.overlap(set(textutil.content_words(rest)), what) >= 0.6
                              for stem, what in did)
                if done_it or any(textutil.overlap(task_words, f) >= 0.6 for f in finished):
                    reflection.done_tasks.append(task)
        return reflection


    # ---------------------------------------------------------------- promotion (vault-format.md §10.4)
    def analyze(self, events: list[EventRecord], known_titles: list[str]) -> list[Candidate]:
        return promotion.analyze(events, known_titles)

    def synthesize(self, candidate: Candidate, events: list[EventRecord], existing: list[str]) -> NoteDraft:
        return promotion.synthesize(candidate, events)

    def summarize(self, promoted: list[EventRecord], remaining: list[EventRecord], open_items: list[str]) -> str:
        return promotion.summarize(promoted, remaining, open_items)

    # ---------------------------------------------------------------- organization
    def propose_organization(self, request: OrganizationRequest) -> OrganizationPlan:
        return OrganizationPlan(organization.plan(request), from_statistics_alone=True)


def _context_words(wm: WorkingMemory) -> list[str]:
    """When the prompt leans on context ("what does she like?"), the names and keywords of the
    latest statements in short-term memory stand in for its pronouns."""
    prompt_words = textutil.keywords(wm.prompt, limit=10)
    has_pronoun = bool(_PRONOUNS & set(textutil.words(wm.prompt)))
    if not has_pronoun and (len(prompt_words) >= 3 or not prompt_words):
        return []
    statements = [e.user for e in wm.stm_events if e.user.strip() and not e.user.strip().endswith("?")][:3]
    found: list[str] = []
    for said in statements:
        found += textutil.entities(said)[:3] + textutil.keywords(said, limit=3)
        if len(found) >= 6:
            break
    return list(dict.fromkeys(found))[:8]


_QUESTION_START = re.compile(r"^\s*(?:what|when|where|who|whom|whose|why|how|which|do|does|did|is|are|was|were|can|"
                             r"could|would|should|will|have|has|tell me|remind me what|list|show)\b", re.I)


def _is_statement(prompt: str) -> bool:
    return "?" not in prompt and not _QUESTION_START.match(prompt)


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(" ,;:")[:200]


def _best_sentences(text: str, query: set[str], limit: int = 2, max_chars: int = 300) -> str:
    """The one or two sentences of `text` that share the most words with the question."""
    text = re.sub(r"^\*\*Thoughts:\*\*.*$", "", text, flags=re.M)  # braniac's own notes, not memories
    text = re.sub(r"^\*\*(?:User|AI):\*\*\s*\"?(.*?)\"?\s*$", r"\1", text, flags=re.M)
    text = re.sub(r"^[-*]\s+(?:(?:\d{4}-\d{2}-\d{2}|\d{2}:\d{2})\s+—\s+)?", "", text, flags=re.M)   # a bullet, its day
    text = re.sub(r"^### \S+\s*$", "", text, flags=re.M)
    text = claims.SUPERSEDED_ON.sub("", _CITATION.sub("", text))   # a claim's links and mark say where, not what
    said = [s.strip() for s in sentences(text, any_case=True) if s and s.strip() and not s.strip().startswith("#")]
    if not said:
        return text.strip()[:max_chars]
    ranked = sorted(range(len(said)), key=lambda i: -textutil.overlap(query, said[i]))
    chosen = [i for i in sorted(ranked[:limit]) if textutil.overlap(query, said[i]) > 0] or [ranked[0]]
    # with the sentence that goes on about it: "My rent went up. It is 1,050 euros now."
    chosen = sorted({*chosen, *(i + 1 for i in chosen if i + 1 < len(said) and goes_on(said[i + 1])
                                and textutil.numbers(said[i + 1]))})
    quote = " ".join(said[i] for i in chosen)
    quote = quote.replace('"', "'")
    return quote if len(quote) <= max_chars else quote[: max_chars - 1].rstrip() + "…"
