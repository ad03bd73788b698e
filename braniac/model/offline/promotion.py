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
from ...infra.markdown_prose import code_languages, code_words, without_code
from ...vault.layout import event_day
from ..types import Candidate, Claim, EventRecord, NoteDraft
from .sentences import sentences, split_speaker
from .skills import skills, steps
from .topics import NOUN_EVIDENCE, PERSON_NOUNS, one_number, shared_beyond, topic_words

# Where someone is or goes: "in Lisbon", "visited Sintra", "I'm from Sweden", and "to" or "from"
# when a person goes or comes ("moved to Porto", "flew with my sister to Rome", "came back from
# Paris"). Not when something else is carried there ("moved my recipes into Obsidian", "drove my
# daughter to Emma's", "exported it to PDF") or a person is written after it ("feedback from
# Shawn", "going to talk to Maria").
_GOING = (r"mov(?:e|ed|es|ing)|went|go|goes|going|gone|been|off|come|comes|came|coming|back|return(?:ed|ing)?|"
          r"trips?|travel\w*|vacations?|holidays?|tours?|journeys?|fl(?:y|ies|ew|ying|own)|flights?|"
          r"dr(?:ive|ove|iving|iven)|rode|walk(?:ed|ing)?|relocat\w*|head(?:ed|ing)|arriv(?:e|ed|ing)|road|way|"
          r"commut\w*")
_PLACE_CUE = re.compile(r"\b(?:in|at|visited|visit|visiting|near|around)\s+(?:the\s+)?$|"
                        r"\b(?:i['’]m|i am|he['’]s|she['’]s|we['’]re|they['’]re|you['’]re|is|are|was|were|grew up)\s+"
                        r"(?:originally\s+)?from\s+(?:the\s+)?$|"
                        rf"\b(?:{_GOING})(?:\s+(?:back|home|in|out|over|up|away|here|there))?\s+from\s+(?:the\s+)?$|"
                        # the way there, unless it carries a thing ("my daughter") or an errand ("to talk")
                        rf"\b(?:{_GOING})\b(?!\s+(?:my|your|his|her|our|their|the|a|an|it|them|him|everything|"
                        r"all|some|this|that|these|those)\b)(?:(?!\bto\b)[^.;!?]){0,30}?\b(?:to|into)\s+(?:the\s+)?$|"
                        # "my home country, Sweden", "our hometown, Galway" (not "a friend in the city, Ana")
                        r"\b(?:my|our|his|her|their|your)\s+(?:home\s+|native\s+)?"
                        r"(?:country|city|town|hometown|village|island|state|region)\s*,\s+$",
                        re.I)
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
    return (bool(_OWN_SUBJECT.match(s)) or named) and sum(w not in textutil.GENERIC_WORDS for w in said) >= 2


def emotion_of(text: str) -> str:
    words = set(textutil.words(text))
    scores = {name: len(words & cues) for name, cues in _EMOTIONS.items()}
    best = max(scores, key=scores.get)
    return best if scores[best] else "neutral"


# What people say, send and hear: "feedback from Shawn", "a letter from Megan", "respond to Megan",
# "giving feedback to Heather"
_SAID_FROM_OR_TO = (r"\b(?:feedback|advice|suggestions?|messages?|e-?mails?|letters?|calls?|texts?|notes?|gifts?|"
                    r"invitations?|recommendations?|input|comments?|help|support|news)\s+(?:from|to)\s+$|"
                    r"\b(?:respond(?:ed)?|repl(?:y|ied)|talk(?:ed)?|spoke|speak|wr(?:o|i)te|sen[dt]|introduced|"
                    r"explain(?:ed)?|listen(?:ed)?|mention(?:ed)?|reach(?:ed)? out)\s+(?:back\s+)?to\s+$")
# Who made a work: '"Brave" by Sara Bareilles', "a novel by Amy Ellis Nutt", "painted by Frida Kahlo"
_MADE_BY = re.compile(r"(?:[\"”]|\b(?:songs?|books?|novels?|albums?|poems?|paintings?|films?|movies?|music|pieces?|"
                      r"memoir|written|painted|composed|directed|sung|performed|drawn))\s+by\s+$", re.I)
# what a person is to someone: "my manager Priya", "my dentist is Dr Silva", "our landlord, Rui,"
_ROLES = "|".join(sorted(PERSON_NOUNS | {
    "manager", "doctor", "dentist", "teacher", "coach", "therapist", "landlord", "landlady", "physio", "mentor",
    "tutor", "neighbour", "neighbor", "roommate", "flatmate", "lawyer", "accountant", "nurse", "trainer",
    "instructor", "supervisor", "teammate", "classmate", "girlfriend", "boyfriend", "fiancé", "fiancee", "niece",
    "nephew", "grandmother", "grandfather", "stepmom", "stepdad", "godmother", "godfather", "babysitter", "nanny",
    "parent", "grandparent", "twin", "in-law", "spouse", "fiance"}))
_PERSON_BEFORE = re.compile(r"\b(?:met|with|told|asked|call|called|(?:" + _ROLES + r")s?|mr|mrs|ms|dr)\.?\s+$|"
                            r"\b(?:" + _ROLES + r")s?(?:\s+(?:is|was)|,)\s+$|"
                            # "my in-laws Robert and Helen", "the twins Noah and Emma": the second too
                            r"\b(?:" + _ROLES + r")s?\s+[A-Z][\w'’-]*\s+(?:and|&)\s+$|" + _SAID_FROM_OR_TO, re.I)
_WITH = re.compile(r"\bwith\s+$", re.I)
_ARTICLE_BEFORE = re.compile(r"\b(?:the|a|an)\s+(?:[a-z][\w-]*\s+){0,2}$")   # "the tracking ", "a "
# what is watched, read or played is a work or a game ("watched Jurassic Park", "played Valorant")
_WORK_BEFORE = re.compile(r"\b(?:watch(?:ed|ing)?|rewatch(?:ed|ing)?|read(?:ing)?|play(?:ed|ing)?|binged?|"
                          r"listen(?:ed|ing)? to)\s+(?:the\s+)?$", re.I)
# Work words before a name, a legal form or a kind of organization after it: a company, not a place
# ("works at Unbabel" has the "at" of a place too).
_ORG_BEFORE = re.compile(r"\b(?:works?|worked|working|job|jobs|intern(?:ed|ing|ship)?|employed|hired|interview(?:ed)?|"
                         r"career|position|role)\s+(?:at|for|by|with)\s+(?:the\s+)?$|\b(?:joined|founded|employer)\s+$", re.I)
_ORG_AFTER = re.compile(r"^(?:\s+(?:Inc|Ltd|LLC|Corp|Co|GmbH|AG|plc|Labs|Bank|University|College|Foundation)\b"
                        r"|,?\s+(?:is|was)\s+(?:a|an|the)\s+(?:\w+\s+)?(?:company|startup|firm|bank|agency|organi[sz]ation|"
                        r"nonprofit|charity|brand|corporation|business|employer)\b|['’]s\s+(?:office|offices|headquarters|"
                        r"ceo|employees|products?|staff)\b)", re.I)
# a thing moved in time, which a person is not: "Standup moved to 10:00", "Retro moved to Friday"
_MOVED_IN_TIME = re.compile(r"^\s+(?:moved|was moved|got moved|is moving)\s+(?:back\s+)?(?:to|from)\s+(?:the\s+)?"
                            r"(?:\d|noon|midnight|next\b|tomorrow|later|earlier|"
                            r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|(?:morning|afternoon|evening)s?\b)", re.I)
_PERSON_AFTER = re.compile(r"^(?:'s\b|\s+(?:said|says|told|asked|moved|works|worked|lives|lived|went|goes|wants|wanted|"
                           r"likes|loves|thinks|thought|is my|was my|and i|called|texted|visited|joined|started|"
                           # what people do, hardly a company or a thing ("Greg agreed", "Priya prescribed")
                           r"agreed|agrees|promised|prescribed|suggested|laughed|smiled|cried|married|proposed|"
                           r"is pregnant|was born|turns \d+)\b"
                           # "Elizabeth, my best friend, …", "Greg, our accountant, …"
                           r"|,\s+(?:my|our|his|her|their)\s+(?:[a-z]+\s+)?(?:" + _ROLES + r")\b)", re.I)


# "a cat called Pixel", "a town named Óbidos": the noun before "called" says what the name is.
_KIND_BEFORE = re.compile(r"\b(?:a|an|the|my|our|his|her|their)\s+(?:[\w-]+\s+){0,2}?([\w-]+)\s+(?:called|named)\s+$", re.I)
_PLACE_NOUNS = frozenset("""town city village country island region neighbourhood neighborhood street place restaurant
cafe café bar beach park lake mountain""".split())
# A name whose own words say it is a place: its last word a kind of place, or its first a
# landform's title ("Lake Tahoe", "Mount Rainier", "Fort Wayne", "Port Michael")
_PLACE_NAME = re.compile(r"\S\s+(?:Canyon|Falls|Mountains?|Lake|River|Beach|Park|Islands?|Bay|Valley|Coast|County|City|"
                         r"Street|Square|Forest|Desert|Hills|Heights|Gardens|Museum|Library|Tower|Center|Centre)$"
                         r"|^(?:Lake|Mount|Mt\.?|Fort|Port|Cape|Isle)\s+\S")
_ORG_NAME = re.compile(r"\S\s+(?:Group|Inc|Ltd|LLC|Corp|Corporation|Company|Labs|Studios|Media|Agency|Foundation|"
                       r"Bank|University|College|Institute|Association|Society|Partners|Holdings|Technologies|"
                       r"Systems|Solutions|Press|Records|Airlines)\.?$")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_VERSIONED = re.compile(r"[A-Za-z]\d|\d[A-Za-z]")   # "HTML5", "ES2021"
_ORG_NOUNS = frozenset("company startup firm bank agency business shop store band team club charity".split())
# "wrote the plugin in TypeScript", "rewrote the parser in Python", "moved the service to Python
# 3.12": what a thing is made in or upgraded to is a language or a tool, not where anyone is.
_MADE_IN = re.compile(r"\b(?:wr[io]te|written|rewr[io]te|rewritten|cod(?:e|ed|ing)|implement(?:ed|ing)?|buil[td]|"
                      r"programm(?:ed|ing)|develop(?:ed|ing)|port(?:ed|ing)|script(?:ed|ing)|compil(?:e|ed|ing))\b"
                      r"[^.;!?]{0,40}\b(?:in|to|with)\s+(?:the\s+)?$", re.I)
_VERSION_AFTER = re.compile(r"^\s+(?:v?\d+(?:\.\d+)*\b|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                            r"twelve)\b)", re.I)


def _brand_shaped(name: str) -> bool:
    """Is a name written as products and companies write theirs: a capital inside a word that
    joins English words ("LinkedIn", "YouTube", "WebP", "ProWritingAid"), or an acronym run into
    a word ("RESTful")? Not "JoAnn", "DaShawn", "LeBron", "SoHo": no English word inside."""
    for word in name.split():
        if re.search(r"[A-Z]{3}[a-z]", word):
            return True
        if re.search(r"[a-z][A-Z]", word) and any(len(p) >= 3 and textutil.is_common_word(p.lower())
                                                  for p in _CAMEL.findall(word)):
            return True
    return False


def _ordinary(name: str, lowercase: Counter, known: set[str]) -> bool:
    """Is a capitalized name only ordinary words that these events write in lowercase and never
    capitalize inside a sentence? Then it opened a heading or a list item ("Add Income",
    "Implement"), and names nothing. "Flask" in "using Python and Flask", "Rose" in "with Rose"
    (though "prices rose") and a note's existing title stay names."""
    return all(textutil.is_common_word(w) and lowercase[w.lower()] and w not in known for w in name.split())


def _entity_folder(name: str, event_texts: list[str], speakers: set[str], in_code: set[str]) -> str:
    """people, organizations, places or topics, by the words around the name (no cue: a topic).
    A one-word name that the person's code also writes ("git" in `git push`, "uuid" in
    `uuid4()`), or that an answer's code block is in ("```css"), is a tool or a language, though
    the prose says "in CSS" or "with CSRF", unless the prose says it is a person or a company
    ("my boss Ruby"); and an acronym ("CSRF", not initials such as "AJ") is no person's name."""
    if name in speakers:
        return "people"
    words = name.split()
    # named as a company ("Island Media Group", "Montserrat Studios"; not "Social Media", "Bench Press")
    company = bool(_ORG_NAME.search(name)) and (len(words) >= 3 or not all(textutil.is_common_word(w) for w in words))
    brand = _brand_shaped(name)
    worked_with = brand or company   # a product or a company is worked "with" as often as a person
    org_votes = int(company)
    place_votes = person_votes = thing_votes = 0
    for text in event_texts:
        for match in re.finditer(re.escape(name), text):
            before = text[max(0, match.start() - 64): match.start()]
            after = text[match.end(): match.end() + 48]
            kind = _KIND_BEFORE.search(before)
            if kind:
                noun = kind.group(1).lower()
                noun = noun[:-1] if noun.endswith("s") and noun[:-1] in PERSON_NOUNS else noun
                if noun in PERSON_NOUNS or noun in ("person", "man", "woman", "guy", "girl", "boy", "kid"):
                    person_votes += 1
                elif noun in _PLACE_NOUNS:
                    place_votes += 1
                elif noun in _ORG_NOUNS:
                    org_votes += 1
                else:
                    thing_votes += 1       # a cat, a song, a boat: a thing with a name
            elif _MADE_IN.search(before) or _VERSION_AFTER.search(after) or _WORK_BEFORE.search(before[-24:]):
                thing_votes += 1
            elif _MADE_BY.search(before[-32:]):
                # the maker of a work, if named as a person is ("Sara Bareilles", not "Pixar" or "Coldplay")
                person_votes += len(words) >= 2 and not textutil.is_common_word(words[-1])
            elif _ORG_BEFORE.search(before[-24:]) or _ORG_AFTER.search(after):
                org_votes += 1
            elif _PLACE_CUE.search(before[-48:]):
                place_votes += 1
            elif _PERSON_BEFORE.search(before[-32:]):
                person_votes += not (worked_with and _WITH.search(before[-32:]))
            elif _MOVED_IN_TIME.search(after):
                thing_votes += 1           # "Standup moved to 10:00", "Pilates moved to Thursdays": a thing
            elif _PERSON_AFTER.search(after) and not _ARTICLE_BEFORE.search(before[-40:]):
                person_votes += 1          # "Ana and I", "Ana said"; not "the tracking ID and I", "a Master's"
    versioned = bool(_VERSIONED.search(name))
    if brand or versioned:
        # "WebP", "LinkedIn", "ES2021", "HTML5": a product, a standard or a version, never a place
        return "organizations" if org_votes else "people" if person_votes and not versioned else "topics"
    if _PLACE_NAME.search(name):
        place_votes += 1                   # "Grand Canyon", "Whispering Falls", "Port Michael": named as a place
    coded = name.lower() in in_code
    if thing_votes >= max(org_votes, place_votes, person_votes, 1) or coded and not org_votes and \
            person_votes <= place_votes + thing_votes:
        return "topics"
    if org_votes and org_votes >= max(place_votes, person_votes):
        return "organizations"
    if place_votes > person_votes:
        return "places"
    return "people" if person_votes and not (name.isupper() and len(name) > 2) else "topics"


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
    known = textutil.names_in(list(prose.values())) | set(titles) | {w for t in titles for w in t.split()}
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
        folder = _entity_folder(name, texts[name], speakers, in_code)
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
        if "people" not in (_entity_folder(name, texts[name], speakers, in_code),
                            _entity_folder(full, texts[full], speakers, in_code)):
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
