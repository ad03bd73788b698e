"""The light stemmer retrieval and promotion compare words with: an inflected word meets its base."""
from __future__ import annotations

import pytest

from braniac.infra.textutil import stem


@pytest.mark.parametrize("word, base", [
    ("formatting", "format"), ("planned", "plan"), ("swimming", "swim"), ("shopping", "shop"),
    ("loving", "love"), ("loves", "love"), ("studies", "study"),
    # a doubled consonant of the word itself stays: fall, miss, buzz, add
    ("falling", "fall"), ("missed", "miss"), ("buzzing", "buzz"), ("added", "add"), ("staffed", "staff"),
    # a plural in -ies meets its word, when that word ends in -ly too
    ("families", "family"), ("replied", "reply"), ("flies", "fly"),
    # irregular forms: "What did the team win?" meets "We won a trophy"
    ("won", "win"), ("bought", "buy"), ("taught", "teaching"), ("written", "writes"), ("children", "child"),
    ("felt", "feeling"), ("wives", "wife"), ("ran", "running"),
    # a noun of action meets its verb: "What recommendations did Joanna give?" / "she recommended…"
    ("recommendations", "recommended"), ("rejection", "rejected"), ("promotion", "promoting"),
    ("organization", "organized"), ("discussion", "discussed"), ("expectations", "expected"),
    # the e a word lost for -ing / -ed comes back; a plural in -es after a hiss loses it
    ("caring", "care"), ("hoping", "hope"), ("writing", "write"), ("coded", "code"), ("houses", "house"),
    ("boxes", "box"), ("classes", "class"), ("watches", "watch"), ("singing", "sing"), ("opening", "open"),
    ("continued", "continue"), ("agreed", "agree"), ("rescued", "rescue"), ("potatoes", "potato"),
    ("pleased", "please"), ("passed", "pass"),
    ("focused", "focus"), ("plateaus", "plateau"), ("analysis", "analysis"),
    # a verb of its own keeps no e ("suite" is not "suit"); -ies of a word in -ie; a plural of a
    # word of action; an l doubled the British way
    ("casting", "cast"), ("suited", "suit"), ("employed", "employ"), ("interned", "intern"),
    ("movies", "movie"), ("cookies", "cookie"), ("meetings", "meet"), ("travelled", "travel"),
    ("cancelled", "cancel"),
    ("suggestions", "suggested"), ("resolution", "resolved"), ("subscription", "subscribed"),
    ("specification", "specify"), ("production", "produce"), ("expansion", "expand"), ("conclusion", "concluded"),
    # a word whose -ly is its own keeps it in every form
    ("bullied", "bullying"), ("replied", "replying"), ("applied", "applying"), ("rallies", "rally"),
    # a word of three letters: "What tools do I use?" meets "I used Figma"
    ("used", "use"), ("using", "use"), ("aged", "age"), ("owing", "owe"),
])
def test_an_inflected_word_meets_its_base(word, base):
    assert stem(word) == stem(base)


@pytest.mark.parametrize("word, other", [
    ("rose", "rise"), ("left", "leave"), ("found", "find"), ("lives", "life"),
    # names, lowercased as every word is: "What does Drew think?" is not about drawing
    ("drew", "draw"), ("sang", "sing"), ("met", "meet"), ("sat", "sit"), ("led", "lead"),
    # and a word that ends like a short one is not that one
    ("applied", "apps"), ("replied", "reps"),
    # a noun in -ion whose verb no dictionary has stays itself: "mention" is no "ment"
    ("mention", "ment"), ("decision", "decis"), ("million", "mill"), ("station", "stat"),
    # a word's own e stays: "What car do I drive?" is not about caring, "what did I win?" not wine
    ("care", "car"), ("caring", "car"), ("wine", "win"), ("hate", "hat"), ("cute", "cut"), ("plane", "plan"),
    ("hope", "hop"), ("hoping", "hopping"), ("site", "sit"), ("note", "not"),
    # a noun in -ion that a verb spells but does not name: questions are no quests
    ("question", "quest"), ("foundation", "found"), ("tradition", "trade"), ("presentation", "present"),
    ("projection", "project"), ("conversation", "converse"), ("coalition", "coal"), ("petition", "petite"),
    ("transition", "trans"), ("expansion", "expanse"), ("solution", "solute"), ("falling", "fal"),
    ("version", "verse"), ("versions", "verse"),
    # an -s or -ly that is the word's own: any news is not everything new, nor early an ear
    ("news", "new"), ("early", "ear"), ("jeans", "jean"), ("goods", "good"), ("series", "sery"),
    ("thing", "the"), ("user", "use"),
    # an adverb that means something else than its adjective, a name or a noun in -ly or -ing
    ("likely", "like"), ("hardly", "hard"), ("lately", "late"), ("nearly", "near"), ("rally", "ral"),
    ("sally", "sal"), ("wedding", "wed"), ("weddings", "wed"), ("evening", "even"), ("earrings", "ear"),
])
def test_a_form_that_is_as_often_another_word_keeps_its_own(word, other):
    assert stem(word) != stem(other)
