"""Which folder the offline engine files a named thing in: people, organizations, places or
topics, by the words around its name in the events ("my accountant Greg", "works at Unbabel",
"moved to Porto", "wrote it in Rust"). No cue: a topic."""
from __future__ import annotations

import re

from ...infra import textutil
from ...infra.name_lists import is_given_name, is_place_name
from .topics import PERSON_NOUNS

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
_SOMEONES_HOME = re.compile(r"^['’]s\s+(?:place|house|home|flat|apartment|parents|party)\b", re.I)
_ARTICLE_BEFORE = re.compile(r"\b(?:the|a|an)\s+(?:[a-z][\w-]*\s+){0,2}$")   # "the tracking ", "a "
# what is watched, read or played is a work or a game ("watched Jurassic Park", "played Valorant")
# a project's or an operation's code name is a thing ("Project Phoenix", "Operation Tidy-up")
_CODE_NAME_BEFORE = re.compile(r"\b(?:project|operation|codename|code name|initiative|programme|program)\s+$", re.I)
_WORK_BEFORE = re.compile(r"\b(?:watch(?:ed|ing)?|rewatch(?:ed|ing)?|read(?:ing)?|play(?:ed|ing)?|binged?|"
                          r"listen(?:ed|ing)? to)\s+(?:the\s+)?$", re.I)
# what one learns, studies or practises is a language, a skill or a tool ("learning Rust",
# "studying Italian"), not a person or a place
_LEARNED_BEFORE = re.compile(r"\b(?:learn(?:s|ed|t|ing)?|stud(?:y|ies|ied|ying)|practi[cs](?:e|es|ed|ing))\s+$", re.I)
# what was learned about someone: "I learned Priya is leaving", "I learnt Sofia got the job"
_TOLD_AFTER = re.compile(r"^\s+(?:is|was|got|has|had|will|would|did|does|just|left|won|lost|quit)\b", re.I)
# Work words before a name, a legal form or a kind of organization after it: a company, not a place
# ("works at Unbabel" has the "at" of a place too).
_ORG_BEFORE = re.compile(r"\b(?:works?|worked|working|job|jobs|intern(?:ed|ing|ship)?|employed|hired|interview(?:ed)?|"
                         r"career|position|role)\s+(?:at|for|by|with)\s+(?:the\s+)?$|\binterviewing\s+(?:at|for)\s+(?:the\s+)?$|"
                         r"\b(?:joined|founded|employer)\s+$", re.I)
# what one holds with a company, not shared with a person: "an account with Mercury", "an index
# fund at Vanguard" (not "a joint bank account with Ana", "split the Netflix subscription with Tom")
_HELD_WITH = re.compile(r"\b(?:accounts?|subscriptions?|funds?|pension|mortgage|policy)\s+(?:at|with)\s+(?:the\s+)?$", re.I)
_SHARED = re.compile(r"\b(?:joint|shared?|split|splitting|sharing)\b", re.I)
_ORG_AFTER = re.compile(r"^(?:\s+(?:Inc|Ltd|LLC|Corp|Co|GmbH|AG|plc|Labs|Bank|University|College|Foundation)\b"
                        r"|,?\s+(?:is|was)\s+(?:a|an|the)\s+(?:\w+\s+)?(?:company|startup|firm|bank|agency|organi[sz]ation|"
                        r"nonprofit|charity|brand|corporation|business|employer)\b|['’]s\s+(?:office|offices|headquarters|"
                        r"ceo|employees|products?|staff)\b"
                        # what a company has and a person hardly does: "the Apple recruiter"
                        r"|\s+(?:recruiters?|customer service|helpdesk|help desk|account|accounts|subscription)\b)", re.I)
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
                       r"Systems|Solutions|Press|Records|Airlines|Builders|Construction|Motors|Insurance|Consulting|"
                       r"Services|Bakery|Brewery)\.?$")
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


def entity_folder(name: str, event_texts: list[str], speakers: set[str], in_code: set[str]) -> str:
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
            elif _MADE_IN.search(before) or _VERSION_AFTER.search(after) or _WORK_BEFORE.search(before[-24:]) \
                    or _CODE_NAME_BEFORE.search(before[-16:]) or \
                    _LEARNED_BEFORE.search(before[-24:]) and not _TOLD_AFTER.match(after):
                thing_votes += 1
            elif _MADE_BY.search(before[-32:]):
                # the maker of a work, if named as a person is ("Sara Bareilles", not "Pixar" or "Coldplay")
                person_votes += len(words) >= 2 and not textutil.is_common_word(words[-1])
            elif _ORG_BEFORE.search(before[-24:]) or _ORG_AFTER.search(after):
                org_votes += 1
            elif _HELD_WITH.search(before[-32:]) and not _SHARED.search(before[-40:]) and not is_given_name(name):
                org_votes += 1
            elif _PLACE_CUE.search(before[-48:]):
                if _SOMEONES_HOME.match(after):
                    person_votes += 1      # "at Helen's place" (not "at Nando's")
                else:
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
    if person_votes:
        return "people" if not (name.isupper() and len(name) > 2) else "topics"
    return "topics" if coded else _known_as(name)   # no cue at all


def _known_as(name: str) -> str:
    """A name nothing around it explains ("Paid Carlos back on Venmo", "Tokyo for five days"): a
    place if the place list knows it and no one is named so ("Sydney", "Denver" are given names
    too, if rare ones); a person if it is one common given name and no place ("Austin", "Mary"
    are both). A given name that is also a word ("Will", "Hope") says nothing, nor does one that
    opens a longer name ("Victoria Station", "Tim Hortons")."""
    words = name.split()
    place = is_place_name(name)
    if place and not is_given_name(words[0], floor=0):
        return "places"
    if len(words) == 1 and not place and is_given_name(name) and not textutil.is_common_word(name):
        return "people"
    return "topics"
