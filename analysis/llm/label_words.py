"""Response labels of the questionnaires in Spanish, Chinese, Japanese, German and French, as the English labels the
option readers match (issue 56): the PVQ's "… like me" scale and the IPIP's "… accurate" scale. A reply answering in
another language ("Se parece un poco a mí.", "有点像我", "やや当てはまる") is read through this table exactly as its
English label would be, with the same rules after it (negation, degree words, letters that disagree); a phrase not in
the table stays unread ("not English: not read"), never guessed.

``translated(text, labels)`` rewrites only the phrases of labels the question showed, most specific first within a
language ("不像我" before "像我", "muy impreciso" before "impreciso"), so a longer phrase is never read as a shorter
label it contains. Shared code: it names scales, never a method.
"""

from __future__ import annotations

import re

#: English label (lower case) -> its phrases per language, most specific labels first
_PVQ: tuple[tuple[str, str], ...] = (
    ("not like me at all", r"nada\s+parecid[oa]\s+a\s+mí|no\s+se\s+parece\s+(?:nada|en\s+nada)\s+a\s+mí|"
                           r"完全不像我|一点也不像我|一点都不像我|まったく似てい(?:ない|ません)|全く似てい(?:ない|ません)|全然似てい(?:ない|ません)|"
                           r"(?:まったく|全く|全然)私に似てい(?:ない|ません)|überhaupt\s+nicht\s+wie\s+ich|pas\s+du\s+tout\s+comme\s+moi"),
    ("not like me", r"no\s+se\s+parece\s+a\s+mí|no\s+(?:es\s+)?como\s+yo|no\s+parecid[oa]\s+a\s+mí|不像我|"
                    r"私に似てい(?:ない|ません)|似てい(?:ない|ません)|nicht\s+wie\s+ich|pas\s+comme\s+moi"),
    ("a little like me", r"un\s+poco\s+parecid[oa]\s+a\s+mí|se\s+parece\s+un\s+poco\s+a\s+mí|un\s+poco\s+como\s+yo|"
                         r"有一点像我|有点像我|稍微像我|少し私に似てい(?:る|ます)|少し似てい(?:る|ます)|ein\s+bisschen\s+wie\s+ich|"
                         r"ein\s+wenig\s+wie\s+ich|un\s+peu\s+comme\s+moi"),
    ("somewhat like me", r"algo\s+parecid[oa]\s+a\s+mí|se\s+parece\s+algo\s+a\s+mí|algo\s+como\s+yo|"
                         r"有些像我|比较像我|某种程度上像我|ある程度私に似てい(?:る|ます)|ある程度似てい(?:る|ます)|やや似てい(?:る|ます)|"
                         r"einigermaßen\s+wie\s+ich|etwas\s+wie\s+ich|assez\s+comme\s+moi|plutôt\s+comme\s+moi"),
    ("very much like me", r"muy\s+parecid[oa]\s+a\s+mí|se\s+parece\s+mucho\s+a\s+mí|非常像我|很像我|"
                          r"とても私に似てい(?:る|ます)|とても似てい(?:る|ます)|非常に似てい(?:る|ます)|sehr\s+wie\s+ich|tout\s+à\s+fait\s+comme\s+moi"),
    ("like me", r"parecid[oa]\s+a\s+mí|se\s+parece\s+a\s+mí|como\s+yo|像我|私に似てい(?:る|ます)|似てい(?:る|ます)|wie\s+ich|comme\s+moi"),
)
_IPIP: tuple[tuple[str, str], ...] = (
    ("neither accurate nor inaccurate", r"ni\s+precis[oa]\s+ni\s+imprecis[oa]|ni\s+exact[oa]\s+ni\s+inexact[oa]|"
                                        r"既不准确也不(?:是)?不准确|どちらとも言えない|どちらともいえない|どちらでもない|"
                                        r"weder\s+zutreffend\s+noch\s+unzutreffend|ni\s+exact\s+ni\s+inexact"),
    ("moderately inaccurate", r"moderadamente\s+(?:imprecis[oa]|inexact[oa])|algo\s+imprecis[oa]|比较不准确|有点不准确|"
                              r"较不准确|やや不正確|あまり当てはまらない|eher\s+unzutreffend|plutôt\s+inexact"),
    ("very inaccurate", r"muy\s+(?:imprecis[oa]|inexact[oa])|非常不准确|很不准确|完全不符合|非常に不正確|"
                        r"(?:まったく|全く)当てはまらない|sehr\s+unzutreffend|très\s+inexact"),
    ("moderately accurate", r"moderadamente\s+(?:precis[oa]|exact[oa])|bastante\s+precis[oa]|比较准确|较准确|"
                            r"やや正確|やや当てはまる|eher\s+zutreffend|plutôt\s+exact"),
    ("very accurate", r"muy\s+(?:precis[oa]|exact[oa])|非常准确|很准确|非常に正確|とても当てはまる|非常に当てはまる|"
                      r"sehr\s+zutreffend|très\s+exact"),
)
#: word edges for Latin letters only (Chinese and Japanese run their words together)
_EDGE_BEFORE, _EDGE_AFTER = r"(?<![A-Za-zÀ-ÿ])", r"(?![A-Za-zÀ-ÿ])"
_TABLE = tuple((english, re.compile(_EDGE_BEFORE + "(?:" + pattern + ")" + _EDGE_AFTER, re.IGNORECASE))
               for english, pattern in (*_PVQ, *_IPIP))


def translated(text: str, labels: list[str]) -> str:
    """``text`` with the foreign phrases of the shown ``labels`` written as those labels (lower case, spaced)."""
    shown = {label.strip().lower() for label in labels}
    for english, pattern in _TABLE:
        if english in shown:
            text = pattern.sub(f" {english} ", text)
    return text
