"""The MBTI method's colours."""

#: The seven MBTI options, Correct (green) .. Wrong (red), neutral grey in the middle.
MBTI_OPTION_COLORS = ("#1a9850", "#66bd63", "#a6d96a", "#bdbdbd", "#fdae61", "#f46d43", "#d73027")
