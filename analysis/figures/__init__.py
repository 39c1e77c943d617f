"""Figures without the dashboard: the shared Plotly style and palette every method's figures use (``style``,
``palette``), and static export (``export``: SVG, PDF, PNG through kaleido). Each method's own figures are pure
functions of its report in ``analysis/methods/<m>/figures.py`` (``Method.figures``), so the CLI's ``figure`` and
``report`` commands and the report file draw them without importing the app."""
