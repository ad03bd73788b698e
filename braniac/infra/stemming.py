"""The light stemmer braniac compares words with, and the lexicon it reads: an English word
list (`lexicon/english-words.txt.gz`, SCOWL via Debian's wamerican) and braniac's own list of
irregular forms (`lexicon/irregular-forms.txt`)."""
from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

_LEXICON = Path(__file__).with_name("lexicon") / "english-words.txt.gz"
_IRREGULAR = Path(__file__).with_name("lexicon") / "irregular-forms.txt"


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The lexicon's words, lowercase, inflections included."""
    with gzip.open(_LEXICON, "rt", encoding="utf-8") as handle:
        return frozenset(line for line in handle.read().split("\n") if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def _irregular_lines() -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """The irregular-forms file, read once: its verbs' lines and, after the "# nouns" line, its
    nouns' lines, each (base, form, …)."""
    verbs: list[tuple[str, ...]] = []
    nouns: list[tuple[str, ...]] = []
    into = verbs
    for line in _IRREGULAR.read_text(encoding="utf-8").splitlines():
        if line.startswith("# nouns"):
            into = nouns
        words = tuple(line.split("#", 1)[0].split())
        if len(words) >= 2:
            into.append(words)
    return tuple(verbs), tuple(nouns)


@lru_cache(maxsize=1)
def _irregular_forms() -> dict[str, str]:
    """form -> the word it is a form of ('won' -> 'win')."""
    verbs, nouns = _irregular_lines()
    return {form: base for base, *forms in (*verbs, *nouns) for form in forms}


@lru_cache(maxsize=1)
def past_forms() -> frozenset[str]:
    """The verbs' simple pasts in the irregular-forms file ("drove", "bought"): a line's second
    form, unless it is only a participle ("beaten", "shown"); not the nouns' plurals."""
    verbs, _ = _irregular_lines()
    return frozenset(forms[1] for forms in verbs if len(forms) == 3 or not forms[1].endswith(("en", "wn")))


@lru_cache(maxsize=1)
def forms_by_word() -> dict[str, tuple[str, ...]]:
    """word -> its irregular forms ('win' -> ('won',))."""
    out: dict[str, list[str]] = {}
    for form, base in _irregular_forms().items():
        out.setdefault(base, []).append(form)
    return {base: tuple(forms) for base, forms in out.items()}


def irregular_base(word: str) -> str | None:
    """The word an irregular form is a form of ("sent" -> "send", "children" -> "child"), or None."""
    return _irregular_forms().get(word.lower())


_LY_OF_THE_WORD = ("ily", "lly", "ply")
# words whose -s, -ly or -ing is their own, or whose stem would be another word: "news" is no
# plural of "new", "early" nothing of an "ear", "jeans" no "Jean", "goods" not "good", "likely"
# not "like", "hardly" not "hard", "lately" not "late"; a wedding is no "wed", an evening no "even"
_OWN_ENDINGS = frozenset("""news lens series species physics mathematics economics politics ethics athletics
gymnastics jeans pants shorts goods early hardly lately likely barely shortly nearly wedding evening morning
earring herring pudding spring string ceiling sibling darling""".split())
# the forms of a word of three letters, which the suffix rules leave alone (a stem of two letters
# would join too much: "thing" is no "the"): "What tools do I use?" meets "I used Figma"
_SHORT_WORDS = {"used": "use", "using": "use", "aged": "age", "aging": "age", "owed": "owe", "owing": "owe"}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stemmer, enough to match 'loves', 'loved' and 'loving' with 'love',
    'formatting' with 'format', 'families' with 'family' and 'won' with 'win', when scoring
    overlap: an irregular form becomes its word (lexicon/irregular-forms.txt), then one
    inflection goes (and the consonant it doubled, or with the 'e' it took: 'caring' is 'care');
    a word's own 'e' stays, so 'care' is not 'car' nor 'wine' 'win'; a noun of action becomes
    its verb when a dictionary has that verb ('recommendations' meets 'recommended')."""
    word = _irregular_forms().get(word, word)
    if word in _OWN_ENDINGS:
        return word
    if word in _SHORT_WORDS:
        return _SHORT_WORDS[word]
    if len(word) > 4 and word.endswith(("ies", "ied")) and not (word.endswith("ies") and _lemma(word[:-1])):
        word = word[:-3] + "y"   # "studies", "replied"; but "movies", "cookies" are a movie's, a cookie's
    base = word
    for suffix in ("ingly", "edly", "ing", "ed", "ly", "es", "s"):
        if suffix == "ly" and word.endswith("ly") and (word.endswith(_LY_OF_THE_WORD) and not word.endswith("ally")
                                                       or word[:-2] not in english_words()):
            continue   # family, bully, reply, rally, Italy: their -ly is no adverb's (families, bullied, replying)
        if suffix == "es" and (word[:-1] in english_words() or word[:-2] not in english_words()):
            continue   # "boxes", "classes", "potatoes"; but "houses", "notes" keep their word's e
        if suffix == "s" and word.endswith(("us", "sis")) and word[:-1] not in english_words():
            continue   # "focus", "status", "analysis": a singular's own s ("plateaus" is a plural)
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            base = word[: -len(suffix)]
            if suffix in ("s", "es") and base.endswith(("ing", "ed")):
                return stem(base)   # "meetings", "paintings": a plural of a word of action
            if suffix in ("s", "es", "ly"):
                break
            if len(base) >= 4 and base[-1] == base[-2] and (base[-1] not in "aeiouyflsz" or
                                                            base[-1] == "l" and _doubled_l(base)):
                base = base[:-1]   # formatting, planned, travelled: the consonant doubled for the suffix
            elif _took_e(base):
                base += "e"        # caring, hoped, writing: the word's e went for the suffix
            break
    return _action_of(base) if base.endswith(("tion", "sion")) else base


_VOWELS = "aeiou"


def _took_e(base: str) -> bool:
    """Did the word before -ing / -ed end in an 'e' ("car-ing" is "care", "agree-d", "continu-ed")?
    Its form with the 'e' is a word, and the form without is none, or is only a plural
    ("pleas-ed" is "please") or a verb's past ("rang-ing" is "range"), or ends in one vowel and
    one consonant, which a word of its own doubles ("hop-ing" is "hope", "hopping" "hop"; but
    "casting", "suited", "employed" are "cast", "suit", "employ")."""
    if base[-1] == base[-2] or (base + "e") not in english_words():
        return False   # "passed", "filled": a doubled letter ends the word itself
    if not _lemma(base):
        return True
    return base[-1] not in _VOWELS + "wxy" and base[-2] in _VOWELS and base[-3] not in _VOWELS


def _doubled_l(base: str) -> bool:
    """"travell-ed", "cancell-ing": an l doubled the British way, not "fall", "spell"."""
    return base[:-1] in english_words() and base not in english_words()


def _lemma(word: str) -> bool:
    """A dictionary word in its own form: not a plural ("pleas") nor an irregular form ("rang")."""
    return word in english_words() and not (word.endswith("s") and not word.endswith("ss") and
                                             word[:-1] in english_words()) and word not in _irregular_forms()


# a noun of action and the verb it names: "recommendation" (recommend), "rejection" (reject),
# "organization" (organize), "discussion" (discuss), "specification" (specify), "subscription"
# (subscribe), "resolution" (resolve), "production" (produce), "expansion" (expand),
# "conclusion" (conclude); the verb a dictionary word, so "mention", "decision" stay as they
# are. The first ending that fits decides: "coalition" is no "coal".
_ACTION_NOUNS = (("ication", ("y",)), ("ription", ("ribe",)), ("uction", ("uce",)), ("ution", ("ve",)),
                 ("nsion", ("nd",)), ("usion", ("ude",)), ("ation", ("ate", "", "e")), ("ition", ("e",)),
                 ("tion", ("t", "te")), ("sion", ("s", "se")))


# nouns in -ion that a dictionary verb spells but does not name: "question" is no quest, a
# "foundation" nothing found, a "presentation" no present, a "project" no "projection", a
# "version" no verse
_NOT_ACTIONS = frozenset("""question foundation tradition conversation conversion audition station position
partition convention publication succession procession recession diversion consolation presentation projection
contraction vacation condition edition addition portion petition solution illusion version""".split())


def _action_of(word: str) -> str:
    if word in _NOT_ACTIONS:
        return word
    for suffix, endings in _ACTION_NOUNS:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            for ending in endings:
                verb = word[:-len(suffix)] + ending
                if len(verb) >= 5 and _lemma(verb):
                    return stem(verb)
            if suffix in ("ition", "nsion", "usion", "ution") and len(word) - len(suffix) >= 4:
                return word   # "coalition", "transition": the longer ending is the word's
    return word


