"""The paper's persona attributes, levels and splits (Mannekote et al. 2025, App. A, Table 5).

Table 5 marks every trait and every level with the splits it belongs to (v = validation, tr = train,
te = test): a persona of split s has exactly the traits marked s, each at one of the levels marked
s. ``TABLE5`` transcribes the table (trait name, key, its levels with their marks); level order
is natural where the table's alphabetical order is not (age bands, Low < Moderate < High, ...).
The test split — the one every result of the paper uses (Sec. 3.2) — has ten traits: Age,
Conscientiousness, Family Structure At 16 (6 levels), Highest Degree Received (5), Openness To
Experience, Political Views (4), Religion (5), Same Residence Since 16 (3), US Citizenship Status
(2), Work Status (4). Its Big Five are Conscientiousness and Openness (the other three traits
belong to the train / validation splits). Table 3 reports nine of them (not Religion):
``TABLE3_ATTRIBUTES``, the default elicited attributes.

Descriptions in the paper's form (App. C.4: the persona is its attribute vector, Sec. 3.2): one
"Trait: level" line per trait of the persona's split (RoleScope's wording; the paper's persona
template was not released).
"""

from __future__ import annotations

from dataclasses import dataclass

SPLIT_MARKS: dict[str, str] = {"validation": "v", "train": "tr", "test": "te"}


@dataclass(frozen=True)
class Attribute:
    """One persona attribute: its levels (in a natural order) and one description phrase per level."""

    key: str
    label: str
    levels: tuple[str, ...]
    phrases: tuple[str, ...]
    big_five: bool = False

    def phrase(self, level: str) -> str:
        return self.phrases[self.levels.index(level)]


# (key, Table 5 trait name, Big Five?, trait marks, ((level, level marks), ...)); levels in natural order.
_LMH = (("Low", "tr"), ("Medium", "tr"), ("High", "tr"))
TABLE5: tuple[tuple[str, str, bool, str, tuple[tuple[str, str], ...]], ...] = (
    ("age", "Age", False, "te", (("18-29", "te"), ("30-44", "te"), ("45-64", "te"), ("65+", "te"))),
    ("agreeableness", "Agreeableness", True, "tr", _LMH),
    ("communication_quality", "Communication Quality", False, "v", (("Poor", "v"), ("Neutral", "v"), ("Excellent", "v"))),
    ("conscientiousness", "Conscientiousness", True, "te", (("Low", "te"), ("Moderate", "te"), ("High", "te"))),
    ("cultural_norms", "Cultural Norms", False, "tr", (("Collectivist", "tr"), ("Hybrid", "tr"), ("Individualist", "tr"))),
    ("ethnicity", "Ethnicity", False, "v", tuple((e, "v") for e in (
        "Arab", "Black African", "East Asian", "Indigenous American", "Latino", "Other", "South Asian", "Southeast Asian",
        "White"))),
    ("extraversion", "Extraversion", True, "v", (("Introverted", "v"), ("Ambivert", "v"), ("Extraverted", "v"))),
    ("family_structure_at_16", "Family Structure At 16", False, "tr,te", (
        ("Armed forces", "tr"), ("Both parents", "te"), ("Divorce", "tr"), ("Foster care", "te"), ("Grandparents", "te"),
        ("Institution", "tr"), ("Lived with parents", "tr"), ("Other guardian", "te"), ("Single parent - father", "te"),
        ("Single parent - mother", "te"))),
    ("general_activity_level", "General Activity Level", False, "v", tuple((a, "v") for a in (
        "Sedentary", "Lightly active", "Moderately active", "Very active", "Unstructured"))),
    ("highest_degree", "Highest Degree Received", False, "v,tr,te", (
        ("No high school diploma", "v"), ("High school diploma or GED", "v"), ("Some college or associate degree", "v"),
        ("Bachelor's degree", "v"), ("Graduate or professional degree", "v"),
        ("Less than high school", "tr,te"), ("High school", "tr,te"), ("Associate/junior college", "tr,te"),
        ("Bachelor's", "tr,te"), ("Graduate", "tr,te"))),
    ("marital_status", "Marital Status", False, "tr", tuple((m, "tr") for m in (
        "Divorced", "Married", "Never married", "Separated", "Widowed"))),
    ("neuroticism", "Neuroticism", True, "v", (("Low", "v"), ("Moderate", "v"), ("High", "v"))),
    ("openness", "Openness To Experience", True, "te", (("Low", "te"), ("Moderate", "te"), ("High", "te"))),
    ("political_views", "Political Views", False, "tr,te", (
        ("Extremely liberal", "tr,te"), ("Liberal", "tr"), ("Slightly liberal", "te"), ("Moderate, middle of the road", "tr"),
        ("Slightly conservative", "te"), ("Conservative", "tr"), ("Extremely conservative", "tr,te"))),
    ("race", "Race", False, "tr", (("Black", "tr"), ("Other", "tr"), ("White", "tr"))),
    ("religion", "Religion", False, "tr,te", (
        ("Buddhism", "tr"), ("Christian", "tr"), ("Hinduism", "tr"), ("Jewish", "te"), ("Muslim/Islam", "te"), ("None", "te"),
        ("Orthodox-Christian", "te"), ("Protestant", "te"))),
    ("same_residence_since_16", "Same Residence Since 16", False, "te", (
        ("Same city", "te"), ("Same state, different city", "te"), ("Different state", "te"))),
    ("sex", "Sex", False, "tr", (("Female", "tr"), ("Male", "tr"))),
    ("total_wealth", "Total Wealth", False, "tr", tuple((w, "tr") for w in (
        "Less than $20,000", "$20,000–$75,000", "$75,000–$250,000", "$250,000–$1 million", "$1 million–$5 million",
        "Above $5 million"))),
    ("disability", "Type Of Disability If Any", False, "v", tuple((d, "v") for d in (
        "None", "Cognitive or learning disability", "Mental health condition", "Physical disability",
        "Sensory disability (e.g., vision or hearing)"))),
    ("us_citizenship", "Us Citizenship Status", False, "te", (("A U.S. citizen", "te"), ("Not a U.S. citizen", "te"))),
    ("work_status", "Work Status", False, "tr,te", (
        ("Full time", "tr"), ("Part time", "tr"), ("Temporarily not working", "tr"), ("Unemployed", "tr"), ("In school", "te"),
        ("Keeping house", "te"), ("Retired", "te"), ("Other", "te"))),
)

# Table 3's nine attributes (its row names -> keys): the default elicited attributes of the paper set.
TABLE3_NAMES: dict[str, str] = {
    "Age": "age", "Conscientiousness": "conscientiousness", "Family Structure": "family_structure_at_16",
    "Highest Degree": "highest_degree", "Openness": "openness", "Political Views": "political_views",
    "Same Residence": "same_residence_since_16", "US Citizen": "us_citizenship", "Work Status": "work_status",
}
TABLE3_ATTRIBUTES: tuple[str, ...] = tuple(TABLE3_NAMES.values())


def _marked(marks: str, split: str) -> bool:
    return SPLIT_MARKS[split] in marks.split(",")


def paper_split(split: str) -> tuple[Attribute, ...]:
    """The traits of one split of Table 5, each with the levels marked for that split; phrases "Trait: level"."""
    out = []
    for key, label, big_five, marks, levels in TABLE5:
        if not _marked(marks, split):
            continue
        mine = tuple(level for level, level_marks in levels if _marked(level_marks, split))
        out.append(Attribute(key, label, mine, tuple(f"{label}: {lv}" for lv in mine), big_five))
    return tuple(out)

