"""What make mutants reports: per lesson and exercise, the counts the issue's targets are about, and a
table a person can read (the mutant's diff, what the visible check said, what the grader said).

Categories (a mutant can be in several):
    equivalent        same results as the solution on every grading seed: not a mistake
    caught_hint       the visible check fails and names a likely mistake
    caught_no_hint    the visible check fails without one (or the check itself crashed)
    cell_error        the mutated cell raises on its own, before any check (Python's message)
    vis_pass_hid_fail the check passes, the grader takes points: the worst case for a learner
    rubric_hole       both pass, and the mutant is not equivalent: a wrong answer that scores
    later_fails       the check passes, then a later cell of the lesson fails
    disagree          the check and the grader name different mistakes
    rejects_equivalent an equivalent mutant the visible check fails
"""
from __future__ import annotations

import json
from collections import Counter

COLUMNS = ("generated", "equivalent", "caught_hint", "caught_no_hint", "cell_error", "vis_pass_hid_fail",
           "rubric_hole", "later_fails", "disagree", "rejects_equivalent")
HEADERS = ("exercise", "generated", "equivalent", "caught with hint", "caught without", "own cell raises",
           "visible ✔ / hidden ✗", "both ✔, not equivalent", "✔ then a later cell fails", "hints disagree",
           "equivalent but ✗")


def categories(record: dict) -> set:
    visible, hidden = record["visible"]["result"], record["hidden"]["result"]
    out = {"generated"}
    equivalent = record["equivalent"]
    if equivalent:
        out.add("equivalent")
    caught = visible in ("hint", "no_hint", "crash")
    if caught and equivalent:
        out.add("rejects_equivalent")
    if caught and not equivalent:
        out.add("caught_hint" if visible == "hint" else "caught_no_hint")
        hint = record["hidden"].get("hint")
        if visible == "hint" and hint and hint not in record["visible"]["keys"]:
            out.add("disagree")
    if visible == "cell_error":
        out.add("cell_error")
    if visible == "pass" and hidden != "pass":
        out.add("vis_pass_hid_fail")
    if visible == "pass" and hidden == "pass" and not equivalent:
        out.add("rubric_hole")
    if visible == "pass" and record["later"]:
        out.add("later_fails")
    return out


def counts(records: list) -> dict:
    """{exercise: Counter of categories}, and "all" for the lesson."""
    table: dict = {}
    for record in records:
        for where in (record["cell"], "all"):
            table.setdefault(where, Counter()).update(categories(record))
    return table


def _cell(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[:limit - 1] + "…"
    return text.replace("|", "\\|")


def _diff(record: dict) -> str:
    return "<br>".join(f"`{_cell(line, 110)}`" for line in record["diff"][:6])


def _visible(record: dict) -> str:
    v = record["visible"]
    if v["result"] == "pass":
        return "✔"
    keys = ", ".join(v.get("keys") or [])
    mark = {"hint": "✗", "no_hint": "✗ (no hint)", "crash": "✗ (check crashed)", "cell_error": "cell raises"}
    return f"{mark[v['result']]} {keys} — {_cell(v.get('message', ''))}"


def _hidden(record: dict) -> str:
    h = record["hidden"]
    if h["result"] == "pass":
        return "✔ (equivalent)" if record["equivalent"] else "✔"
    seeds = f" ({h['seeds_failed']} of {record['seeds']} seeds)" if h["result"] == "unstable" else ""
    return f"✗{seeds} {h.get('hint') or '(no hint)'} — {_cell(h.get('message', ''))}"


def _later(record: dict) -> str:
    if not record["later"]:
        return ""
    first = record["later"][0]
    more = f" (+{len(record['later']) - 1})" if len(record["later"]) > 1 else ""
    return f"{first['cell']} {first['kind']}: {_cell(first['message'], 100)}{more}"


def _rows(records: list) -> list:
    rows = ["| mutant | diff | visible | hidden | later |", "|---|---|---|---|---|"]
    for r in records:
        rows.append(f"| `{_cell(r['id'], 90)}` | {_diff(r)} | {_visible(r)} | {_hidden(r)} | {_later(r)} |")
    return rows


def summary_table(table: dict, order: list) -> list:
    rows = ["| " + " | ".join(HEADERS) + " |", "|---" * len(HEADERS) + "|"]
    for where in [*order, "all"]:
        c = table.get(where, Counter())
        rows.append(f"| {where} | " + " | ".join(str(c.get(k, 0)) for k in COLUMNS) + " |")
    return rows


SECTIONS = (
    ("vis_pass_hid_fail", "Visible ✔, hidden ✗ (target 0)"),
    ("rubric_hole", "Both ✔, not equivalent: rubric holes (target 0, or a sentence in the lesson)"),
    ("later_fails", "✔, then a later cell fails (target 0)"),
    ("disagree", "The check and the grader name different mistakes (target 0)"),
    ("caught_no_hint", "Caught without a hint (target: under 10% of caught)"),
    ("rejects_equivalent", "Equivalent, but the visible check fails"),
)


def markdown(stem: str, records: list, meta: dict) -> str:
    order = list(dict.fromkeys(r["cell"] for r in records))
    table = counts(records)
    out = [f"# Mutants of lesson {stem}", "",
           f"{len(records)} mutants of the solution cells; hidden tests judged on grading seeds "
           f"{', '.join(map(str, meta['seeds']))}; {meta['seconds']:.0f} s (load average {meta['load']}).", "",
           *summary_table(table, order), ""]
    for category, title in SECTIONS:
        chosen = [r for r in records if category in categories(r)]
        if chosen:
            out += [f"## {title}: {len(chosen)}", "", *_rows(chosen), ""]
    out += ["## Every mutant", "", *_rows(records), ""]
    return "\n".join(out)


def write(folder, stem: str, records: list, meta: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.md").write_text(markdown(stem, records, meta), encoding="utf-8")
    (folder / f"{stem}.json").write_text(json.dumps({"meta": meta, "mutants": records}, ensure_ascii=False, indent=1),
                                         encoding="utf-8")


README_COLUMNS = ("generated", "equivalent", "caught_hint", "caught_no_hint", "vis_pass_hid_fail", "rubric_hole",
                  "later_fails", "disagree")


def readme_table(summaries: dict) -> str:
    """One row per lesson, from each lesson's counts: the README's mutant table."""
    rows = ["| lesson | generated | equivalent | caught with hint | caught without | visible ✔ / hidden ✗ "
            "| both ✔, not equivalent | ✔ then a later cell fails | hints disagree |",
            "|---|---|---|---|---|---|---|---|---|"]
    for stem, c in summaries.items():
        rows.append(f"| {stem} | " + " | ".join(str(c.get(k, 0)) for k in README_COLUMNS) + " |")
    return "\n".join(rows) + "\n"


def parse_readme_table(table: str) -> dict:
    """The README's mutant table back to {stem: counts}: the rows of lessons not run this time are kept."""
    out = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == len(README_COLUMNS) + 1 and all(c.isdigit() for c in cells[1:]):
            out[cells[0]] = Counter(dict(zip(README_COLUMNS, map(int, cells[1:]))))
    return out
