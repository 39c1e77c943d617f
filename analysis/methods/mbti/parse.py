"""A free-text reply -> one of the 7 correctness options, or invalid with a reason (never a guess).

First the shared rules of ``analysis.reading`` (the final answer after a self-correction, a withdrawn verdict with none
after it, no answer from a refusal, a hedge, an echoed list or a restated question, "not English" for a reply in
another language with no verdict read). Then this reader's own rules, in order (RoleScope's version of the paper's
"simple rules", Sec. 3.4), on the reply's final part:

0. German, French, Spanish and Chinese verdicts read as their English options: richtig/falsch,
   correcte/fausse, correcta/incorrecta, 正确/错误 with their qualifiers (größtenteils, teilweise, généralement,
   partiellement, generalmente, parcialmente, 基本, 部分, "weder … noch", "ni … ni", 既不…也不; "nicht richtig", "pas
   correcte", "no es correcta", 不正确 = "not correct"); "generally/partially true|false" are the English synonyms.
1. Normalise: lower case, curly quotes straightened, markdown emphasis (``*``, ``_``, `````) dropped.
2. Cut out the statement itself when the reply quotes it (so "... will go badly" or "... said
   something wrong" inside a quoted statement is never read as an answer).
3. Find option phrases, the most specific first at each position: "neither correct nor wrong"
   before "correct"/"wrong", "generally/partially correct|wrong" before "correct"/"wrong".
   Synonyms: "incorrect" = "wrong" (so "generally incorrect" = "Generally wrong"), "mostly"/
   "largely" = "generally", "partly" and "somewhat" = "partially", "neither right nor wrong" and "neither correct
   nor incorrect" = "Neither correct nor wrong".
4. Drop phrases that are not a verdict:
   - runs of three or more options separated only by commas/"or"/"and"/"/" (the reply quotes the
     instruction's list), and any run or single option right before "?" (a question);
   - "correct answer", "wrong with", and a bare "correct"/"wrong" used before a noun: after "the"
     ("the correct part"), or after "a"/"an" unless "statement", "assessment", "claim", ... follows;
   - negated phrases (a negation among the 5 words before it in the same clause, for a run of
     options before its first one: "not always correct", "no right or wrong answer", "nothing
     wrong", "cannot be classified as correct or wrong"). Exception: a bare "correct" with
     "not"/"n't" right before it ("is not correct", "isn't correct") means "Wrong".
   An option inside a "whether" clause is the question, not a verdict ("Whether this is correct depends …").
5. An option followed by an infinitive (or a bare one by a that-clause: "it is correct that some men …") is a
   *framed* verdict: "it is generally wrong to say that
   ...", "neither correct nor wrong to make a blanket statement" (the commonest phrasing of the
   published ChatGPT-MBTI replies). It counts only when the reply has no plain verdict, since the
   same form can judge something else ("it would be wrong to assume all men are alike. Partially
   correct.").
6. The verdict is the one option the reply's plain verdicts name, else the one its first framed verdict names (a later
   framed verdict judges an act the reply argues with, "… it would be incorrect to generalize", unless the reply
   concludes with it: "Therefore, it is …"). Two different options are **ambiguous** (``analysis.reading`` rule 4,
   issue 56): "Correct. … makes it a generally correct statement", "It is generally correct … So, it is partially
   correct", "partially wrong or partially correct" are invalid, never their first option. A "not correct" (Wrong) is
   refined by a "partially/generally wrong" anywhere in the reply. Not a verdict: an option named in a clause that
   denies it can be given ("it cannot be said that the statement is generally correct", "too broad to be labeled as
   generally wrong", "can neither be deemed …"), in a concession with a modal ("while it may be partially true for
   some, …"), scoped to some ("partially correct for some individuals", "cases where it is partially correct"), the two
   poles named as the question ("to determine if it is correct or wrong"), a thing that can "go wrong", and a bare
   verdict softened by a degree word ("kind of correct": no option of the seven). An inverted verdict ("Wrong,
   partially.") is its qualified option.
   Nothing left -> invalid ("no option named", or "only negated or hedged options").

On the six published answer files of the paper (1,080 replies) 96.7 % give a verdict; the 36 that do not are
refusals, "you repeated the statement", incomplete-statement complaints, lists of options without a pick, two
options named together and (issue 56) replies that give two verdicts (``tests/methods/mbti/test_published_replies.py``).

Long quoted spans (six words or more) are cut out as quotations as well, unless that leaves no
option at all (then the reply is parsed with them).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

from analysis.methods.mbti import OPTIONS
from analysis.reading import Candidate, ambiguous, degree_before, read_final, window_start, words_before

_S = r"[\s-]+"
_PATTERNS: tuple[tuple[int, str], ...] = (
    (3, rf"neither{_S}(?:correct|right){_S}nor{_S}(?:wrong|incorrect)"
        rf"|neither{_S}(?:wrong|incorrect){_S}nor{_S}(?:correct|right)"),
    (5, rf"(?:generally|mostly|largely){_S}not{_S}correct"),
    (4, rf"(?:partially|partly|somewhat){_S}not{_S}correct"),
    (1, rf"(?:generally|mostly|largely){_S}(?:be{_S})?correct"),
    (2, rf"(?:partially|partly|somewhat){_S}(?:be{_S})?correct"),
    (4, rf"(?:partially|partly|somewhat){_S}(?:be{_S})?(?:wrong|incorrect)"),
    (5, rf"(?:generally|mostly|largely){_S}(?:be{_S})?(?:wrong|incorrect)"),
    (0, r"correct"),
    (6, r"wrong|incorrect"),
)
_OPTION_RE = re.compile(
    r"(?<![a-z])(?:" + "|".join(f"(?P<o{n}>{p})" for n, (_, p) in enumerate(_PATTERNS)) + r")(?![a-z])"
)
_BARE = {len(_PATTERNS) - 2, len(_PATTERNS) - 1}  # pattern numbers of plain "correct" / "wrong"
_SEPARATOR = re.compile(r"[\s,/;|]*(?:\b(?:or|and|to)\b[\s,]*(?:(?:absolutely|entirely|completely|totally|simply|"
                        r"definitively|strictly|fully|purely)\s+)?)?")
#: the two poles named as the question ("whether it is correct or wrong", "neither … correct nor incorrect"): no verdict
_POLES = frozenset({0, 6})
#: a bare "wrong" after "go" ("the potential for things to go wrong") is an event, not a verdict
_GO_WRONG = re.compile(r"\b(?:go|goes|going|went|gone|something|anything|nothing)\s+$")
_NEGATION = re.compile(r"\b(?:not|never|no|nothing|hardly|cannot)\b|n't\b")
_INFINITIVE = re.compile(r"\s+to\s+(?!some\b|a\b|an\b|the\b|certain\b|varying\b|most\b|many\b|an?\s+extent\b)[a-z]+")
_THAT_CLAUSE = re.compile(r"\s+that\s+(?!is\b|it\s+is\b)[a-z]+")
_NOT_VERDICT_AFTER = re.compile(r"\s+(?:answer|answers|option|options|choice|response|way|approach|with)\b")
_VERDICT_NOUN = re.compile(r"\s+(?:statement|assessment|description|generali[sz]ation|claim|observation)\b")
_ALTERNATIVE = re.compile(r"\s+(?:or|nor|and)\s+")
_NEGATION_WINDOW = 5  # words before an option, in its clause, where a negation cancels it
_QUOTED = re.compile(r"\"[^\"\n]*\"")


@dataclass(frozen=True)
class ParsedAnswer:
    option: int | None  # canonical option index 0..6 (Correct .. Wrong); None = invalid
    reason: str = ""

    @property
    def valid(self) -> bool:
        return self.option is not None

    @property
    def label(self) -> str | None:
        return OPTIONS[self.option] if self.option is not None else None


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    option: int
    bare: bool


#: qualifiers and verdicts per language (word-order languages; "cjk": languages written without spaces or with
#: particles, matched without word edges: Chinese, Japanese, Korean, Hindi)
_GEN = {"de": r"größtenteils|überwiegend|weitgehend|im\s+allgemeinen|im\s+großen\s+und\s+ganzen|grundsätzlich|meistens",
        "fr": r"généralement|globalement|en\s+grande\s+partie|majoritairement|en\s+général|plutôt",
        "es": r"generalmente|mayormente|en\s+general|en\s+gran\s+parte|mayoritariamente|en\s+su\s+mayoría",
        "it": r"generalmente|in\s+generale|per\s+lo\s+più|in\s+gran\s+parte|perlopiù",
        "pt": r"geralmente|em\s+geral|em\s+grande\s+parte|na\s+maioria",
        "nl": r"grotendeels|over\s+het\s+algemeen|meestal|in\s+het\s+algemeen",
        "sv": r"i\s+stort\s+sett|generellt|mestadels|huvudsakligen|övervägande",
        "pl": r"ogólnie|w\s+większości|generalnie|przeważnie",
        "tr": r"genel\s+olarak|genellikle|büyük\s+ölçüde|çoğunlukla",
        "ru": r"в\s+целом|в\s+основном|по\s+большей\s+части|в\s+общем",
        "el": r"γενικά|σε\s+γενικές\s+γραμμές|ως\s+επί\s+το\s+πλείστον",
        "id": r"secara\s+umum|umumnya|sebagian\s+besar|pada\s+umumnya",
        "vi": r"nhìn\s+chung|nói\s+chung|phần\s+lớn|về\s+cơ\s+bản",
        "ar": r"بشكل\s+عام|عمومًا|عموما|في\s+الغالب"}
_PART = {"de": r"teilweise|zum\s+teil|teils|bedingt", "fr": r"partiellement|en\s+partie",
         "es": r"parcialmente|en\s+parte", "it": r"parzialmente|in\s+parte", "pt": r"parcialmente|em\s+parte",
         "nl": r"gedeeltelijk|deels|ten\s+dele", "sv": r"delvis", "pl": r"częściowo", "tr": r"kısmen",
         "ru": r"частично|отчасти", "el": r"εν\s+μέρει|μερικώς", "id": r"sebagian", "vi": r"một\s+phần",
         "ar": r"جزئيًا|جزئيا|جزئياً"}
_RIGHT = {"de": r"richtig|korrekt|zutreffend", "fr": r"correcte?|vraie?", "es": r"correct[ao]|ciert[ao]|verdader[ao]",
          "it": r"corrett[ao]|giust[ao]", "pt": r"corret[ao]|cert[ao]|verdadeir[ao]",
          "nl": r"juist|correct|waar|klopt", "sv": r"korrekt|rätt|riktigt|sant", "pl": r"poprawne|prawdziwe|słuszne|prawda",
          "tr": r"doğru", "ru": r"верно|правильно|верное|правильное|верна", "el": r"σωστό|σωστή|αληθές|αληθινό",
          "id": r"benar|tepat", "vi": r"đúng", "ar": r"صحيحة|صحيح|صائبة|صائب"}
_FALSE = {"de": r"falsch|unzutreffend|unrichtig", "fr": r"fausse|faux|incorrecte?|erronée?",
          "es": r"incorrect[ao]|fals[ao]|errónea?|erróneo", "it": r"sbagliat[ao]|errat[ao]|fals[ao]|scorrett[ao]",
          "pt": r"errad[ao]|incorret[ao]|fals[ao]", "nl": r"onjuist|fout|onwaar|incorrect",
          "sv": r"fel|felaktigt?|falskt?|inkorrekt", "pl": r"błędne|fałszywe|niepoprawne|nieprawdziwe|nieprawda",
          "tr": r"yanlış|hatalı", "ru": r"неверно|неправильно|ложно|неверное|ошибочно", "el": r"λάθος|λανθασμένο|ψευδές",
          "id": r"salah|keliru", "vi": r"sai", "ar": r"خاطئة|خاطئ|خطأ|غير\s+صحيحة?"}
_NOT = {"de": r"nicht", "fr": r"pas", "es": r"no\s+es", "it": r"non\s+è", "pt": r"não\s+é", "nl": r"niet",
        "sv": r"inte", "pl": r"nie\s+jest", "tr": r"", "ru": r"не", "el": r"δεν\s+είναι", "id": r"tidak",
        "vi": r"không", "ar": r"ليست?"}
_NEITHER = {"de": r"weder\s+(?:{r})\s+noch\s+(?:{f})", "fr": r"ni\s+(?:{r})\s+ni\s+(?:{f})",
            "es": r"ni\s+(?:{r})\s+ni\s+(?:{f})", "it": r"né\s+(?:{r})\s+né\s+(?:{f})",
            "pt": r"nem\s+(?:{r})\s+nem\s+(?:{f})", "nl": r"noch\s+(?:{r})\s+noch\s+(?:{f})",
            "sv": r"varken\s+(?:{r})\s+eller\s+(?:{f})", "pl": r"ani\s+(?:{r})\s*,?\s+ani\s+(?:{f})",
            "tr": r"ne\s+(?:{r})\s+ne\s+(?:{f})", "ru": r"ни\s+(?:{r})\s*,?\s+ни\s+(?:{f})",
            "el": r"ούτε\s+(?:{r})\s+ούτε\s+(?:{f})", "id": r"tidak\s+(?:{r})\s+dan\s+tidak\s+(?:{f})",
            "vi": r"không\s+(?:{r})\s+cũng\s+không\s+(?:{f})", "ar": r"لا\s+(?:{r})\s+ولا\s+(?:{f})"}
#: languages without word edges: (generally, partially, right, wrong, "not right" forms); most specific first
#: a one-character 对/错 only as a word of its own ("部分对。"), never inside another ("派对" is a party, "不错" is fine)
_CJK = {"zh": (r"基本上?|大体上?|大致上?|总体上?|大部分|大多|一般来说|总的来说|通常", r"部分",
               r"正确|(?<![派面反绝相针应核])对(?!(?!的)[\u4e00-\u9fff])", r"错误|(?<![不差])错(?!(?!的)[\u4e00-\u9fff])",
               r"不正确|不对(?!(?!的)[\u4e00-\u9fff])"),
        "ja": (r"概ね|おおむね|大体|だいたい|大部分は?|ほぼ|一般的に(?:は|言って)?|全般的に|総じて", r"部分的に|一部", r"正しい|合っている|合っています",
               r"間違い|間違っている|誤り", r"正しくない|正しくありません"),
        "ko": (r"대체로|대부분|전반적으로|일반적으로", r"부분적으로|일부", r"맞습니다|맞아요|맞다|옳습니다|옳다|정확합니다",
               r"틀립니다|틀렸습니다|틀려요|틀리다|잘못되었습니다|잘못됐습니다", r"맞지\s*않습니다|옳지\s*않습니다"),
        "hi": (r"आम\s+तौर\s+पर|सामान्यतः|ज़्यादातर|ज्यादातर", r"आंशिक\s+रूप\s+से|कुछ\s+हद\s+तक", r"सही",
               r"गलत|ग़लत", r"सही\s+नहीं")}
LANGS = ("de", "fr", "es", "it", "pt", "nl", "sv", "pl", "tr", "ru", "el", "id", "vi", "ar")


def _foreign(lang: str, pattern: str, english: str) -> tuple[re.Pattern[str], str]:
    edge = ("", "") if lang == "zh" else (r"(?<![^\W\d_])", r"(?![^\W\d_])")
    return re.compile(edge[0] + "(?:" + pattern + ")" + edge[1]), f" {english} "


#: German, French, Spanish and Chinese verdicts in English words (read by the same rules), most specific first;
#: "generally/partially true|false" are the English synonyms of the qualified options
def _word_forms(lang: str) -> list[tuple[str, str]]:
    """(pattern, English) of one word-order language, by phase: neither, qualified, "not right", wrong, right."""
    r, f, g, p, n = _RIGHT[lang], _FALSE[lang], _GEN[lang], _PART[lang], _NOT[lang]
    return [(_NEITHER[lang].format(r=r, f=f), "neither correct nor wrong"),
            (rf"(?:{g})[,:]?\s+(?:{f})|(?:{f})\s+(?:{g})", "generally wrong"),
            (rf"(?:{g})[,:]?\s+(?:{r})|(?:{r})\s+(?:{g})", "generally correct"),
            (rf"(?:{p})[,:]?\s+(?:{f})|(?:{f})\s+(?:{p})", "partially wrong"),
            (rf"(?:{p})[,:]?\s+(?:{r})|(?:{r})\s+(?:{p})", "partially correct"),
            (rf"(?:{n})\s+(?:{r})" if n else "", "not correct"), (f, "wrong"), (r, "correct")]


def _cjk_forms(gen: str, part: str, right: str, wrong: str, not_right: str) -> list[tuple[str, str]]:
    """(pattern, English) of one language without word edges, by the same phases as ``_word_forms``."""
    return [(r"既不(?:正确|对)也不(?:错误|错)", "neither correct nor wrong"),
            (rf"(?:{gen})\s*(?:{wrong}|{not_right})", "generally wrong"), (rf"(?:{gen})\s*(?:{right})", "generally correct"),
            (rf"(?:{part})\s*(?:{wrong}|{not_right})", "partially wrong"), (rf"(?:{part})\s*(?:{right})", "partially correct"),
            (not_right, "not correct"), (wrong, "wrong"), (right, "correct")]


#: Verdicts of 18 languages in English words (read by the same rules), phase by phase across languages (every
#: language's qualified verdicts before any bare one: Swedish "delvis korrekt" is not German "korrekt");
#: "generally/partially true|false" are the English synonyms of the qualified options
_PHASES = list(zip(*([_word_forms(lang) for lang in LANGS] + [_cjk_forms(*forms) for forms in _CJK.values()])))
_FOREIGN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    [_foreign(lang, pattern, english) for phase in _PHASES
     for lang, (pattern, english) in zip([*LANGS, *(["zh"] * len(_CJK))], phase) if pattern]
    + [(re.compile(r"(?<![a-z])(generally|mostly|largely|partially|partly|somewhat)\s+true(?![a-z])(?!\s+that\b)"), r" \1 correct "),
       (re.compile(r"(?<![a-z])(generally|mostly|largely|partially|partly|somewhat)\s+false(?![a-z])(?!\s+that\b)"), r" \1 wrong ")])


def _english(text: str) -> str:
    """Verdict words of 18 languages as their English options (``_FOREIGN``); English unchanged
    but for "generally true" = "generally correct" (not "it is generally true that …", a claim about something else)."""
    text = _JA_NEITHER.sub(" neither correct nor wrong ", text)
    for pattern, english in _FOREIGN:
        text = pattern.sub(english, text)
    return _INVERTED.sub(r"\2 \1", text)


#: Japanese "neither" ("どちらとも言えません", "正しくも間違ってもいない"): the option, before its words are read apart
_JA_NEITHER = re.compile(r"どちらとも(?:言|い)え(?:ない|ません)|正しくも間違ってもい(?:ない|ません)|正しいとも間違いとも(?:言|い)え(?:ない|ません)")


#: a verdict with its qualifier after it ("Wrong, partially.", "correct — generally"): the qualified option
_INVERTED = re.compile(r"(?<![a-z])(correct|wrong|incorrect)\s*(?:,|—|–|-)\s*(generally|partially|mostly|largely|partly)"
                       r"(?![a-z])(?!\s+(?:correct|wrong|incorrect|true|false|speaking)\b)")


def normalise(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = re.sub(r"[*_`]+", "", text).lower()
    return re.sub(r"[ \t\r\f\v]+", " ", text)


def _cut_statement(text: str, statement: str | None) -> str:
    words = re.findall(r"[a-z0-9']+", normalise(statement or ""))
    if len(words) < 3:
        return text
    pattern = r"[^a-z0-9']+".join(re.escape(w) for w in words)
    return re.sub(pattern, " § ", text)


def _cut_quotes(text: str) -> str:
    return _QUOTED.sub(lambda m: " § " if len(m.group(0).split()) >= 6 else m.group(0), text)


def _hits(text: str) -> list[_Hit]:
    out = []
    for m in _OPTION_RE.finditer(text):
        n = next(int(name[1:]) for name, value in m.groupdict().items() if value is not None)
        out.append(_Hit(m.start(), m.end(), _PATTERNS[n][0], n in _BARE))
    return out


def _runs(text: str, hits: list[_Hit]) -> list[list[_Hit]]:
    """Consecutive hits separated only by list separators, as groups."""
    runs: list[list[_Hit]] = []
    for hit in hits:
        if runs and _SEPARATOR.fullmatch(text[runs[-1][-1].end:hit.start]):
            runs[-1].append(hit)
        else:
            runs.append([hit])
    return runs


#: where a negation's clause starts ("not only correct but also partially correct"), and a "whether" clause's
_NEGATION_CLAUSE = re.compile(r"[.;:!?,\n—–]|\bbut\b")
_CLAUSE = re.compile(r"[.;:!?,\n]")
_WHETHER = re.compile(r"\bwhether\b")


def _negated(text: str, hit: _Hit) -> bool:
    """A negation among the words before the hit in its clause (read in a window before the hit: ``words_before``)."""
    return bool(_NEGATION.search(" ".join(words_before(text, hit.start, _NEGATION_WINDOW, _NEGATION_CLAUSE))))


def _attributive(text: str, hit: _Hit) -> bool:
    """A bare "correct"/"wrong" after "the" ("the correct part"), or after "a"/"an" unless a word like
    "statement" follows ("a wrong impression" is not a verdict, "a correct statement" is)."""
    before = words_before(text, hit.start, 1)
    last = before[-1] if before else ""
    if last == "the":
        return True
    return last in ("a", "an") and not _VERDICT_NOUN.match(text, hit.end)


def _directly_negated(text: str, hit: _Hit) -> bool:
    before = words_before(text, hit.start, 1)
    return bool(before) and (before[-1] in ("not", "cannot") or before[-1].endswith("n't"))


#: a verdict named but not asserted: in a clause that denies it can be given ("it cannot be said that the statement is
#: generally correct", "too broad to be labeled as generally wrong", "can neither be deemed entirely correct nor …"),
#: or in a concession ("while the statement may be partially true for some men, …")
_NOT_ASSERTED = re.compile(r"\b(?:cannot|can't|can\s+not|could\s+not|couldn't|too\s+\w+\s+to|rather\s+than|instead\s+of|"
                           r"neither|nor)\b")
_CONCESSION = re.compile(r"\b(?:while|although|though|even\s+if|whereas)\b.*\b(?:may|might|could|can)\b")
#: a verdict on some members only ("there may be some individual cases where it is partially correct", "… may be
#: partially correct for some individuals"), not on the statement
_SCOPED_BEFORE = re.compile(r"\b(?:cases?|instances?|situations?)\s+(?:where|in\s+which)\b|\bfor\s+some\b")
_SCOPED_AFTER = re.compile(r"[ \"')]*(?:for|in|to|of)\s+(?:some|certain|a\s+few|a\s+minority)\b")
_SENTENCE_CLAUSE = re.compile(r"[.;:!?\n]")


def _not_asserted(text: str, hit: _Hit) -> bool:
    """The verdict at ``hit`` is named, not given (``_NOT_ASSERTED``, ``_CONCESSION``, ``_SCOPED_*``)."""
    sentence = " ".join(words_before(text, hit.start, 12, _SENTENCE_CLAUSE))
    return bool(_NOT_ASSERTED.search(sentence) or _SCOPED_BEFORE.search(sentence) or _SCOPED_AFTER.match(text, hit.end)
                or _CONCESSION.search(" ".join(words_before(text, hit.start, 12, _NEGATION_CLAUSE))))


@dataclass(frozen=True)
class _Verdict:
    start: int
    end: int
    options: set[int]
    framed: bool
    from_negation: bool = False  # "is not correct" read as Wrong


def _questioned(text: str, hit: _Hit) -> bool:
    """An option inside a "whether …" clause is the question, not a verdict ("Whether this statement is correct
    depends on …")."""
    return _whether_before(text, hit.start)


@lru_cache(maxsize=8)
def _clauses(text: str) -> tuple[list[int], list[int], list[int]]:
    """Where the text's clauses end (after each delimiter) and where its "whether"s start and end, found once per text
    so that every hit is looked up (``_whether_before``) instead of searching the text before it (quadratic)."""
    ends = [m.end() for m in _CLAUSE.finditer(text)]
    whethers = list(_WHETHER.finditer(text))
    return ends, [m.start() for m in whethers], [m.end() for m in whethers]


def _whether_before(text: str, pos: int) -> bool:
    """"whether" in the clause that ends at ``pos``, as ``re.search(r"\\bwhether\\b", clause)`` finds it on the slice
    ``text[:pos]`` cut after its last delimiter."""
    ends, starts, stops = _clauses(text)
    i = bisect_right(ends, pos) - 1
    clause_start = ends[i] if i >= 0 else 0
    j = bisect_left(starts, clause_start)
    if j < len(starts) and stops[j] <= pos:
        return True
    # "whether" right at the slice's end, followed in the text by a letter ("whetherí"): a word end on the slice
    tail = pos - len("whether")
    return (tail >= clause_start and text.startswith("whether", tail)
            and (tail == clause_start or not (text[tail - 1].isalnum() or text[tail - 1] == "_")))


def _verdicts(text: str) -> tuple[list[_Verdict], bool]:
    """Each candidate verdict in order, and whether any phrase was negated.

    ``framed``: the option is followed by an infinitive or a that-clause ("it is generally wrong to say that ...",
    "neither correct nor wrong to make a blanket statement", a bare "it is correct that some men …"). That is how replies
    commonly give their verdict on the statement, but the same form also judges something else ("it would be wrong
    to assume all men are alike. Partially correct."; "it is correct that some men …, but as a statement about men
    it is wrong"), so a framed verdict counts only when the reply gives no plain one."""
    out: list[_Verdict] = []
    negated_any = False
    for run in _runs(text, _hits(text)):
        after = _QUOTES_AFTER.match(text, run[-1].end).end()  # read at the hit: slicing the rest is quadratic
        if len(run) >= 3 or text.startswith("?", after):
            continue
        if len(run) == 2 and all(h.bare for h in run) and {h.option for h in run} == _POLES:
            continue  # "to determine if it is correct or wrong": the question's poles, not a verdict
        kept: list[int] = []
        framed = False
        run_negated = False
        from_negation = False
        for prev, hit in zip([None, *run], run):
            # a negation before "correct or wrong" ("cannot be classified as correct or wrong") covers both
            run_negated = run_negated and prev is not None and bool(_ALTERNATIVE.fullmatch(text[prev.end:hit.start]))
            run_negated = run_negated or (prev is None and _negated(text, hit))
            if hit.bare and (_NOT_VERDICT_AFTER.match(text, hit.end) or _attributive(text, hit)
                             or _GO_WRONG.search(text, max(0, hit.start - 12), hit.start)):
                continue
            if _questioned(text, hit):
                continue
            framed = framed or bool(_INFINITIVE.match(text, hit.end) or (hit.bare and _THAT_CLAUSE.match(text, hit.end)))
            if hit.bare and degree_before(text, hit.start) is not None:  # "kind of correct": no option of the seven
                negated_any = True
                continue
            if not _directly_negated(text, hit) and _not_asserted(text, hit):
                negated_any = True
                continue
            if run_negated or _negated(text, hit):
                negated_any = True
                if hit.bare and hit.option == 0 and _directly_negated(text, hit):
                    kept.append(6)  # "is not correct" = Wrong
                    from_negation = True
                continue
            kept.append(hit.option)
        if kept:
            out.append(_Verdict(run[0].start, run[-1].end, set(kept), framed, from_negation and kept == [6]))
    return out, negated_any


#: a reply that judges the statement's parts one by one ("The first half is partially correct … The second half … is
#: generally wrong"): its verdicts are of the parts, not of the whole
_PART_REF = re.compile(r"\b(?:the )?(?:first|second|last|other) (?:half|part|clause)\b|\bthe (?:rest|former|latter)\b"
                       r"|\bthe \w+ing part\b"
                       # a part quoted as a that-clause subject: "That girls hold back is generally correct; that they …"
                       r"|(?:^|(?<=[;.]\s))that\s+\w[^;.]{2,100}?\s(?:is|are)\b",
                   re.IGNORECASE)


#: a conclusion right before a verdict ("so overall", "all in all", "in the end"): the reply's own verdict
_CONCLUSION = re.compile(r"\b(?:so overall|overall|all in all|in short|in sum|in the end|ultimately|on balance|"
                         r"therefore|thus|hence|my (?:final )?(?:answer|verdict)(?: is)?|final (?:answer|verdict))\b"
                         r"[,:]?(?: (?:the statement|it|this|that)(?: is)?)?\s*$")


_QUOTES_AFTER = re.compile(r"[ \"')]*")
def _judges_parts(verdicts: list[_Verdict], text: str) -> bool:
    """Two or more part references and plain verdicts that differ (``_PART``)."""
    parts = {m.group(0).lower().removeprefix("the ") for m in _PART_REF.finditer(text)}
    plain = {frozenset(v.options) for v in verdicts if not v.framed}
    return len(parts) >= 2 and len(plain) >= 2


def _first(verdicts: list[_Verdict], text: str = "") -> set[int] | None:
    """The options the reply's verdicts name: those of its plain verdicts, else of its framed ones (see ``_verdicts``);
    more than one option is ambiguous (``analysis.reading`` rule 4), never the first of them. A Wrong read from a
    negation ("not correct") takes the later qualified wrong-side verdict that refines it ("… it is generally wrong to
    assume …"); differing verdicts on parts the reply names ("the first half … the second half …") are both kept, so
    invalid too."""
    if _judges_parts(verdicts, text):
        return set().union(*(v.options for v in verdicts if not v.framed))
    for framed in (False, True):
        kind = [v for v in verdicts if v.framed == framed]
        if not kind:
            continue
        options: set[int] = set()
        first_framed = True
        for i, verdict in enumerate(verdicts):
            if verdict.framed != framed:
                continue
            # a framed verdict after the first judges an act the reply argues with ("… it would be incorrect to
            # generalize"), unless the reply concludes with it ("Therefore, it is …")
            if framed and not first_framed and not _CONCLUSION.search(text[max(0, verdict.start - 40):verdict.start]):
                continue
            first_framed = False
            if verdict.from_negation and any(v.options <= {3, 4, 5} for v in verdicts if v is not verdict):
                continue  # "not correct" (Wrong) refined by a qualified wrong-side verdict: "generally wrong … not correct"
            options |= verdict.options
        if options:
            return options
    return None


def parse_correctness(text: str | None, statement: str | None = None) -> ParsedAnswer:
    """Map a reply to a canonical option index: the shared rules of ``analysis.reading`` (the final answer after a
    self-correction; no answer from a refusal, a hedge, an echoed list or a restated question; not English), then
    this reader's own rules on the final part (module docstring)."""
    if text is None or not text.strip():
        return ParsedAnswer(None, "empty reply")
    return read_final(text, lambda part: _correctness(part, statement), lambda p: p.valid,
                      lambda why: ParsedAnswer(None, why), key=lambda p: p.label,
                      conclusion=False)  # this reader weighs its own conclusions (``_first``)


def _correctness(text: str, statement: str | None) -> ParsedAnswer:
    """This reader's own rules (module docstring) on a reply's final part."""
    if not text.strip():
        return ParsedAnswer(None, "no option named")
    base = _cut_statement(_english(normalise(text)), statement)
    text = _cut_quotes(base)
    verdicts, negated = _verdicts(text)
    if not verdicts:
        text = base
        verdicts, negated = _verdicts(base)
    options = _first(verdicts, text)
    if options is None:
        return ParsedAnswer(None, "only negated or hedged options" if negated else "no option named")
    if len(options) > 1:
        return ParsedAnswer(None, ambiguous([Candidate(k, OPTIONS[k]) for k in sorted(options)]))
    return ParsedAnswer(options.pop())


def listed_options(text: str) -> list[int]:
    """Canonical indices of every option phrase in ``text``, in order (e.g. the order an
    instruction lists them in; "incorrect" counts as "wrong")."""
    return [hit.option for hit in _hits(normalise(text))]
