"""Generated mistakes for every solution cell (make mutants): operators, the in-process harness, the report.

    operators.py   mutations of a solution cell's syntax tree, chosen for tensor code (libcst)
    harness.py     one lesson's solution notebook in process: each mutant's visible check, hidden judge,
                   equivalence and the cells after it
    report.py      counts per lesson and exercise, the markdown table and the JSON
"""
