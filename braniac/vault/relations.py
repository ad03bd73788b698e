"""Relations: what a statement says a thing is, where someone lives or works ("Ana lives in
Porto": Ana, lives in, Porto), so that two statements giving one thing two values are seen as a
change even when they are worded apart ("Ana moved to Lisbon for her new job")."""
from __future__ import annotations

import re
from functools import lru_cache

from ..infra import textutil
from ..infra.name_lists import is_place_name
from ..infra.relative_times import CALENDAR_WORDS

_VALUE_VERB = re.compile(r"^(?P<subject>.+?)\b(?P<verb>is|are|was|lives? in|works? at|works? as|moved (?:from (?:[\w'’.-]+ ){1,3}?)?to|prefers?|likes"
                         r"|(?:started|got|took|found|landed) a (?:new )?job at|started working at)\b\s+(?P<value>.+)$", re.I)
# relations with one current value (a preference: for one occasion, "tea | in the morning")
ONE_VALUE = {"lives in", "works at", "works as", "prefers"}
_NAMED_PLACE = {"lives in", "works at"}           # whose value is a named place
# "Ana moved to Lisbon" says where she lives now; "I started a new job at Globex", where I work
_RELATION = {"prefer": "prefers", "moved to": "lives in", "live in": "lives in", "work at": "works at", "work as": "works as",
             **{f"{verb} a {new}job at": "works at" for verb in ("started", "got", "took", "found", "landed")
                for new in ("", "new ")}, "started working at": "works at"}
_PERSON = frozenset({"i", "we"})   # the person themselves, who is the subject of "I work at…"
# "where do I work?", "where does my sister live?": a question for where someone lives or works,
# answered in the words a new job or a move is told in ("I started a new job at Globex")
# ("where did I live as a kid?", "where do I work best?" ask something else)
_ASKS_WHERE = re.compile(r"\bwhere\s+(?:do|does)\s+(?P<subject>(?:[\w'’-]+\s+){1,3}?)(?P<verb>work|live)"
                         r"(?:\s+(?:now|these days|nowadays|currently|today))?\s*(?:[?.!]|$)"
                         r"|\bwho\s+(?:do|does)\s+(?P<employee>(?:[\w'’-]+\s+){1,3}?)work\s+for\b", re.I)
_TOLD_IN = {"works at": "job working works employer company", "lives in": "moved living lives home"}
_ADVERBS = frozenset("now really still actually also just usually generally definitely much even mostly "
                     "honestly".split())
_CLAUSE_END = re.compile(r"[:;.!?—–]|\s-\s|,\s*(?:but|so|and)\s", re.I)   # "I met Ana, but my sister lives…": my sister
_DEFINITE = re.compile(r"(?:the|my|our|his|her|their|your)\s|[A-Z][\w-]*['’]s\s", re.I)
_POSSESSIVE = re.compile(r"\s*(?:my|our|his|her|their|your)\b", re.I)
_ARTICLES = frozenset({"a", "an", "the", "my", "our", "your", "his", "her", "their"})
# a move told as a story of long ago, not where someone lives now
_LONG_AGO = re.compile(r"\b(?:back in|years ago|when I was|as a (?:kid|child|student))\b", re.I)
# what "we moved to" says is a home: the value opens with one ("a bigger flat in Porto"), or the
# sentence speaks of the new one ("We moved to Porto in August, the new flat is bigger"). A name
# alone does not say it: "Porto" and "Jira" are both names no dictionary has.
_HOMES = r"(?:flat|apartment|house|home|place|cottage|neighbou?rhood|city|town|village|country)"
_A_HOME = re.compile(rf"(?:(?:a|an|the|our|my)\s+)?(?:[\w-]+\s+)?{_HOMES}(?![\w-])", re.I)
# "the new home for our CI" is a tool's: a new home is said by what it is
_NEW_HOME = re.compile(r"\b(?:new|own)\s+(?:[\w-]+\s+)?(?:flat|apartment|house|cottage|neighbou?rhood)(?![\w-])", re.I)
_TITLE_STOP = re.compile(rf"\b({'|'.join(textutil.TITLES)})\.")
_HEAD_END = re.compile(r"\s(?:at|in|on|from|with|for|near|since|of|who|which|that|and)\s", re.I)
_EACH = re.compile(r"\s+and\s+|\s*,\s*", re.I)   # the people of a subject: "Ana and Rui", "Tom and I"
_NEXT_CLAUSE = re.compile(r";\s*|,\s*(?:so|but|and so|which means)\s+", re.I)   # "…, so my new physio is Pedro"
# what a person has many of: "my new neighbour" is one more, not the one that replaced the other
_MANY = re.compile(r"\b(?:friends?|neighbou?rs?|colleagues?|co-?workers?|clients?|customers?|students?|classmates?|"
                   r"teammates?|cousins?|pets?|dogs?|cats?|hobby|hobbies|projects?|books?|interns?)\b", re.I)
# words that say a kind changed ("is a teacher now", "an engineer since he graduated")
_BECAME = re.compile(r"\b(?:now|became|become|no longer|any ?more|these days|since|retrain\w*|graduat\w*|qualified|"
                     r"promoted)\b", re.I)
_ALSO = re.compile(r"\b(?:too|also|as well)\b", re.I)   # "is a father now too": one more kind, not another
_CURRENT = re.compile(r"\b(?:new|current|updated|revised)\b")   # lowercase: "New York", "New Relic" are names
# a person or a pet, of whom a name and a state are two things said ("Our cat is Luna" / "shy"),
# where of a thing they are one value changed ("The deadline is Friday" / "next Tuesday")
_BEING = re.compile(r"\b(?:cat|dog|pet|puppy|kitten|sister|brother|mom|mum|mother|dad|father|son|daughter|wife|husband|"
                    r"partner|friend|boss|manager|baby|kid|child|cousin|aunt|uncle|grandma|grandpa|neighbou?r)s?\b", re.I)
_PARTICIPLE = re.compile(r"\s*(?:[a-z]+ly\s+)?[a-z]+ed\s*", re.I)   # a state a thing is in: "booked", "fully booked"
_SHORT_VALUE = 3   # content words: "is blue", "is Maria"; a longer "is…" describes, it does not set a value


def contradicts(old: str, new: str, *, one_value_only: bool = False) -> bool:
    """Two plain statements (no date, no citation) give one subject two values of one relation,
    in any of their clauses ("Catarina moved to a clinic in Sintra, so my new physio is Pedro").
    `one_value_only`: only for relations that have one value at a time (where someone lives or
    works), which two statements in other words can share."""
    return any(_contradicts(relation_of(a), relation_of(b), new, one_value_only)
               for a in _clauses(old) for b in _clauses(new))


def _clauses(text: str) -> list[str]:
    """A statement, and what follows each of its clause breaks: the statement's first verb
    says its first relation, a later clause may say another."""
    return [text, *(text[m.end():] for m in _NEXT_CLAUSE.finditer(text))]


def _contradicts(a: tuple[str, str, str] | None, b: tuple[str, str, str] | None, new: str,
                 one_value_only: bool) -> bool:
    if not a or not b or a[1] != b[1] or one_value_only and a[1] not in ONE_VALUE:
        return False
    (subject_a, relation, value_a), (subject_b, _, value_b) = a, b
    if not _same_subject(subject_a, subject_b, relation):
        return False
    if relation == "prefers":
        return _preference_changed(value_a, value_b, new)
    if relation == "likes":
        return False   # one likes many things: "Ana likes jazz" and "Ana likes hiking" are both true
    if relation in _NAMED_PLACE:
        # where someone lives or works is a named place: "at home", "at night", "to the backend
        # team" name none, and "Acme's Lisbon office" or "Lisbon, Portugal" is the same place said
        # more precisely
        named = _named(value_a), _named(value_b)
        return None not in named and named[0] != named[1]
    if relation not in ONE_VALUE:
        # the value itself, before what places it ("Dr Silva | at the clinic", "a nurse | at the
        # hospital"): "is at the top of my list" / "is one of my favorites" are two praises, and
        # a value said more precisely ("a nurse" / "a night nurse") is no other value
        value_a, value_b = (_HEAD_END.split(v, maxsplit=1)[0] for v in (value_a, value_b))
        if not (_sets_a_value(value_a) and _sets_a_value(value_b)):
            return False
        kinds = {_kind_of(value_a), _kind_of(value_b)}
        if "kind" in kinds and len(kinds) > 1:
            return False   # "is a nurse" / "is pregnant": what she is, and how she is
        if len(kinds) > 1 and (_a_being(subject_a) or any(_PARTICIPLE.fullmatch(v) for v in (value_a, value_b))):
            return False   # "Our cat is Luna" / "Our cat is shy"; "The meeting room is Atlas" / "is booked"
        named = re.search(r"[A-Z]", value_a) and re.search(r"[A-Z]", value_b)
        if kinds == {"kind"} and not named and not (_BECAME.search(new) and not _ALSO.search(new)):
            # "is a lawyer" / "is a father": one is many kinds ("is a teacher now" says it changed);
            # but one thing of the person's is one thing ("my phone is a Pixel" / "an iPhone")
            return False
        if _an_amount(value_a) != _an_amount(value_b):
            return False   # "is 900 a month" / "is due on Friday": how much it is, and when it is due
        if not _DEFINITE.match(subject_a) or _POSSESSIVE.match(value_a) or _POSSESSIVE.match(value_b):
            # a role has one value ("my dentist is Dr. Silva", "the team lead is Maria"); a topic
            # has many descriptions ("Dance is my passion" / "Dance is awesome"), and so has a
            # thing said to be something of the person's ("my family is my motivation")
            return False
        if _an_amount(value_a):
            # two amounts of one thing differ by their numbers: "900 a month" / "now 950", "twelve" / "thirteen"
            return _amount(value_a) != _amount(value_b)
    # "around 900" is no more precise than "950": how exact or how current a value is says nothing of it
    words_a, words_b = (set(textutil.content_words(v)) - _ROUGHLY for v in (value_a, value_b))
    if words_a < words_b or words_b < words_a:
        return False
    return (words_a != words_b
            or bool(textutil.unmentioned(textutil.values(value_a), value_b))
            and bool(textutil.unmentioned(textutil.values(value_b), value_a)))


def persons_relation(text: str) -> str | None:
    """Where the person lives or works, as a statement says it ("I moved to Porto": lives in),
    or None."""
    found = relation_of(text)
    return found[1] if found and found[0] in _PERSON and found[1] in _NAMED_PLACE else None


def asked_where(prompt: str) -> tuple[str, str] | None:
    """(subject, relation) of a question for where someone lives or works: ("I", "works at")
    for "Where do I work?"; None for any other question."""
    found = _ASKS_WHERE.search(prompt)
    if not found:
        return None
    if found["employee"]:
        return found["employee"].strip(), "works at"
    return found["subject"].strip(), "works at" if found["verb"].lower() == "work" else "lives in"


def told_in(relation: str) -> str:
    """The words a relation is told in, as a search query ("job working…" for where one works)."""
    return _TOLD_IN.get(relation, "")


def answers_where(text: str, asked: tuple[str, str]) -> bool:
    """Does a statement say where the asked subject lives or works ("I started a new job at
    Globex" for "Where do I work?", "My sister moved to Lisbon" for "…does my sister live?")?"""
    found = relation_of(text)
    if not found or found[1] != asked[1]:
        return False
    subject = found[0].lower()
    for one in _EACH.split(asked[0]):   # "Where do Tom and I work?": each of them
        if set(textutil.words(one)) <= _PERSON:
            if subject in _PERSON:
                return True
        elif set(textutil.content_words(one)) & set(textutil.content_words(subject)):
            return True
    return False


@lru_cache(maxsize=16384)   # (retrieval compares the clauses of each pair of its best passages)
def relation_of(text: str) -> tuple[str, str, str] | None:
    """(subject, relation, value). The subject is the clause right before the verb ("Joanna: It
    was…" speaks of "it") and must name something: "it", "that", "there" could be anything. The
    value is its first clause. "work at" or "live in" only after "I" or "we" ("your work at the
    shelter" is a noun, not where anyone works), and "we moved to" only to a place's name or a
    home ("we moved to Slack" is a team's tool, not a home)."""
    found = _VALUE_VERB.match(text)
    if not found:
        return None
    subject = _CLAUSE_END.split(found["subject"])[-1].strip()
    verb, said = " ".join(found["verb"].lower().split()), textutil.words(subject)
    verb = "moved to" if verb.startswith("moved ") else verb   # "I moved from Lisbon to Porto": to Porto
    while len(said) > 1 and said[-1] in _ADVERBS:
        said = said[:-1]   # "I now prefer", "we still live in"
    last = said[-1] if said else ""
    if last in _PERSON:
        subject, said = last, [last]   # "These days I prefer…": the person
    if verb.startswith(("live ", "work ")) and last not in _PERSON:
        return None
    if not textutil.content_words(subject) and not (said and set(said) <= _PERSON):
        return None
    # its first clause: a title's full stop ends none ("Dr. Silva at the clinic")
    value = re.split(r"[,;:.!?—–]|\s-\s", _TITLE_STOP.sub(r"\1", found["value"]), maxsplit=1)[0]
    if verb == "moved to" and textutil.words(value)[:1] and textutil.is_calendar(textutil.words(value)[0]):
        # "I moved to Tuesday evenings for yoga" is no home; "The ballet class moved to Thursdays"
        # is when it is now, as "The ballet class is on Tuesdays" said when it was
        return None if last in _PERSON or _LONG_AGO.search(text) else (subject, "is", f"on {value}")
    if verb == "moved to" and _LONG_AGO.search(text):
        return None   # "Back in 2010 I moved to London"
    if verb == "moved to" and last == "we" and not (_A_HOME.match(value.strip()) or _NEW_HOME.search(text)
                                                     or _a_place(value)):
        return None   # "we moved to Slack" is a team's tool; "…to a flat in Porto", "…, the new flat is bigger",
        #               "…to Utrecht last weekend" a home
    return subject, _RELATION.get(verb, verb), value


def _a_place(value: str) -> bool:
    """Does the value open with the name of a place of the world ("Utrecht last weekend", "New
    York"), one that is no English word ("Reading", "Phoenix", "Mobile" are tools and plans as
    often), and not for a while or a purpose ("Paris for the weekend", "Aurora for the database")?"""
    names = re.match(r"(?:[A-Z][\w'’-]*\s+)*[A-Z][\w'’-]*", value.strip())
    if not names or re.search(r"\bfor\b", value, re.I):
        return False
    words = names.group(0).split()
    return any(is_place_name(" ".join(words[:n])) and not textutil.is_common_word(" ".join(words[:n]))
               for n in range(len(words), 0, -1))


# what a preference is about, after the thing preferred: "tea | in the morning"
_FRAME = re.compile(r"\s(?:in|on|at|for|when|during|with|while|after|before|as|over|to|rather than|instead of|"
                    r"more than)\s", re.I)
_PREFERENCE_CHANGED = re.compile(r"\b(?:now|these days|nowadays|lately|any ?more|instead|switched|changed|no longer)\b",
                                 re.I)
_AS_WELL = re.compile(r"\b(?:too|also|as well)\b", re.I)
_OVER = re.compile(r"\b(?:over|to|rather than|instead of|more than)\s+(.+)", re.I)


def _preference_changed(was: str, now: str, whole_new: str) -> bool:
    """"I prefer tea in the morning" / "These days I prefer coffee in the morning": another thing
    preferred for the same occasion, the newer saying the choice changed or naming the old one;
    or the old choice named as the one given up ("I prefer coffee over tea now"); or the same
    thing at another time, said to have changed ("running in the morning now"). Two
    preferences about different things ("minimal dependencies" / "type hints"; "aisle seats" /
    "vegetarian meals" on long flights) are both current."""
    old_thing, old_frame = (_FRAME.split(was, maxsplit=1) + [""])[:2]
    new_thing, new_frame = (_FRAME.split(now, maxsplit=1) + [""])[:2]
    old_words, new_words = set(textutil.content_words(old_thing)), set(textutil.content_words(new_thing))
    before, after = _occasion(old_frame), _occasion(new_frame)
    if old_words and old_words == new_words:
        # the same thing at another time, said to have changed: "I prefer running in the evening" /
        # "I prefer running in the morning now" (not "…in the morning too")
        return bool(before and after and before != after and _PREFERENCE_CHANGED.search(whole_new)
                    and not _AS_WELL.search(whole_new))
    turned, chosen = _OVER.search(was), set(textutil.content_words(_PREFERENCE_CHANGED.sub(" ", new_thing)))
    if turned and chosen and chosen <= set(textutil.content_words(turned.group(1))) and \
            not chosen & set(textutil.content_words(was[:turned.start()])):
        return True   # what the older gave up is preferred now: "tabs over spaces" / "spaces now"
    if not old_words or not new_words or old_words <= new_words or new_words <= old_words:
        return False   # said more precisely ("tea" / "green tea")
    given_up = _OVER.search(now)
    if given_up and old_words <= set(textutil.content_words(given_up.group(1))):
        return True
    # the same occasion, and the newer says the choice changed: "vegetarian meals on long
    # flights" is another preference beside "aisle seats on long flights"
    return bool(before) and before == after and \
        (_PREFERENCE_CHANGED.search(whole_new) is not None or old_words <= set(textutil.content_words(whole_new)))


def _occasion(frame: str) -> set[str]:
    """The words of a preference's occasion, without those that say it changed ("the morning now")."""
    return set(textutil.content_words(_PREFERENCE_CHANGED.sub(" ", frame)))


def _a_being(subject: str) -> bool:
    """A person or a pet: one named ("my sister", "our cat"), or a name ("Luna", not "Rent")."""
    said = subject.split()
    return bool(_BEING.search(subject)) or len(said) == 1 and said[0][:1].isupper() and not textutil.is_common_word(said[0])


def _kind_of(value: str) -> str:
    """What kind of value: a kind of thing ("a nurse"), a name ("Luna", "Dr. Silva") or a state
    ("pregnant", "shy"): "Our cat is Luna" / "Our cat is shy" are two things said of it."""
    said = [w for w in textutil.words(value) if w not in _ROUGHLY]   # ("now 950", "around 900")
    if not said:
        return "state"
    if said[0] in ("a", "an"):
        return "kind"
    # the first word as written: a name or a number ("Luna", "12 Rua Augusta", "950"), or a state
    written = re.search(rf"\b{re.escape(said[0])}", value, re.I)
    return "state" if written and value[written.start()].islower() else "name"


_NUMBER_WORDS = frozenset("""zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
million billion half dozen noon midnight""".split())


# words before an amount that say how exact or how current it is: "now 950", "around 1,300", "EUR 950"
_ROUGHLY = frozenset("""now currently around roughly about nearly almost approximately exactly just only over under
still at least most up to eur usd gbp""".split())


def _an_amount(value: str) -> bool:
    """Does a value open with a number ("900 a month", "$40", "three kids"), an amount, not a
    state or a time said in words ("due three days from now", "too high")?"""
    said = [w for w in value.split() if w.lower() not in _ARTICLES and w.lower() not in _ROUGHLY]
    first, then = (said + ["", ""])[:2]
    # "Seven Samurai", "Five Guys", "12 Rua Augusta": a name that opens with a number is no amount
    return (any(c.isdigit() for c in first) or first.strip(",.") in _NUMBER_WORDS) and not then[:1].isupper()


def _amount(value: str) -> frozenset[str]:
    """The numbers of an amount, in digits or words ("900", "950"; "thirteen")."""
    return textutil.numbers(value) | {w for w in (w.strip(",.") for w in value.lower().split()) if w in _NUMBER_WORDS}


def _sets_a_value(value: str) -> bool:
    """A short value said outright ("blue", "Maria", "a nurse"), not a phrase that places or
    ranks the thing ("at the top of my list", "one of my favorites", "so smooth")."""
    said = textutil.words(value)
    if len(said) >= 2 and said[0] == "on" and textutil.is_calendar(said[1]):
        said = said[1:]   # a day: "is on Tuesdays"
    first = next((w for w in said if w not in _ARTICLES), "")
    return bool(first) and first not in textutil.STOP_WORDS and len(textutil.content_words(value)) <= _SHORT_VALUE


def _named(value: str) -> str | None:
    """The first name in a value ("Acme's Lisbon office": acme; "a bigger flat in Porto":
    porto), or None ("at home", "to the backend team")."""
    for name in re.finditer(r"(?<![\w'’-])([A-Z][\w-]*)", value.strip()):
        word = name.group(1).lower()
        # not "I" ("a flat that I love"), a title ("Dr Silva"), a day ("at home on Fridays")
        if len(word) > 1 and name.group(1) not in textutil.TITLES and word.rstrip("s") not in CALENDAR_WORDS:
            return word
    return None


def _same_subject(a: str, b: str, verb: str) -> bool:
    each_a, each_b = _EACH.split(a.strip()), _EACH.split(b.strip())
    if len(each_a) > 1 or len(each_b) > 1:
        # "Ana and Rui moved to Lisbon" says where Ana lives now, as "Ana moved to Lisbon" would
        return any(_same_subject(x, y, verb) for x in each_a for y in each_b if x and y)
    if set(textutil.words(a)) | set(textutil.words(b)) <= _PERSON:
        # "I work at Acme" / "I started a new job at Globex"; but "I was bored" / "I was
        # planning to watch it" are two moments, not one value changed
        return verb in ONE_VALUE
    owners = [re.match(r"\s*(my|our|his|her|their|[\w-]+['’]s)\b", x, re.I) for x in (a, b)]
    if all(owners) and len({o[1].lower() in ("my", "our") for o in owners}) > 1:
        return False   # "my manager" / "her manager", "my rent" / "his rent"
    # "my new manager" is my manager, said now: a word that says the value is the current one
    # names no other thing (but "my old car" and "my car" may be two cars)
    wa, wb = (set(textutil.content_words(s if _MANY.search(s) else _CURRENT.sub(" ", s))) for s in (a, b))
    if not wa or not wb or textutil.numbers(a) != textutil.numbers(b):
        return False   # "Room 12" and "Room 14" are two rooms: a number in the subject names the thing
    if wa == wb:
        return True
    # "My friend Tomas lives in Lisbon" / "Tomas lives in Porto": one subject when what they share
    # is a name, for where someone lives or works only (never "is" or "likes", which have many values)
    names = {w.lower() for w in re.findall(r"\b[A-Z][\w'’-]+", a)} & {w.lower() for w in re.findall(r"\b[A-Z][\w'’-]+", b)}
    return verb in ONE_VALUE and (wa <= wb or wb <= wa) and bool(names & wa & wb)
