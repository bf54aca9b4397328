"""make mutants (tools/mutants.py): the operators make the mistakes they name, and a small fixed sample of
each lesson's mutants gets the verdicts the full run reported (the whole run is `make mutants`, minutes)."""
import pytest
from conftest import class_lessons
from mutation import report
from mutation.operators import mutants

CELL = '''def f(scores, keep, x):
    B, T, HD = x.shape
    ### BEGIN SOLUTION
    w = torch.softmax(scores.masked_fill(~keep, float("-inf")) / math.sqrt(self.head_dim), dim=-1)
    keep = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
    weights = safe(w)
    with torch.no_grad():
        y = self.dropout(weights) @ x.transpose(1, 2).contiguous().view(B, T, HD // 2)
    return y, weights
    ### END SOLUTION
'''


@pytest.fixture(scope="module")
def made():
    return {m.id: m for m in mutants(CELL, "ex")}


def _has(made, op, label, new_line):
    found = [m for m in made.values() if m.op == op and m.label == label]
    assert found, (op, label, sorted({(m.op, m.label) for m in made.values() if m.op == op}))
    added = [line[1:].replace(" ", "") for m in found for line in m.diff if line.startswith("+")]
    assert any(new_line in line for line in added), [m.diff for m in found]


@pytest.mark.parametrize("op,label,new_line", [
    ("axis", "-1 → -2", "dim=-2)"),
    ("tril", "tril → triu", ".triu()"),
    ("tril", "tril(diagonal=-1)", ".tril(diagonal=-1)"),
    ("invert", "~x → x", "masked_fill(keep,"),
    ("neg_inf", "-inf → -1e9", "masked_fill(~keep,-1e9)"),
    ("neg_inf", "-inf → finfo(dtype).min", "torch.finfo(scores.dtype).min"),
    ("neg_inf", "masked_fill → + mask * -inf", "(scores+(~keep)*float(\"-inf\"))"),
    ("move_call", "dropout(a) @ b → dropout(a @ b)", "self.dropout(weights@x"),
    ("drop_call", ".contiguous() dropped", "transpose(1,2).view("),
    ("drop_call", "sqrt() dropped", "/self.head_dim"),
    ("drop_keyword", "device= dropped", "dtype=torch.bool).tril()"),
    ("constant", "// → /", "HD/2"),
    ("swap_args", "arguments 2 and 3 swapped", "view(B,HD//2,T)"),
    ("swap_args", "elements 1 and 2 swapped", "returnweights,y"),
    ("block", "`with` unwrapped", "y=self.dropout"),
])
def test_each_operator_makes_its_mistake(made, op, label, new_line):
    _has(made, op, label, new_line)


def test_dropout_moved_onto_the_line_that_made_its_input(made):
    # weights = safe(w); … self.dropout(weights) … → weights = safe(self.dropout(w)): dropout before the softmax
    _has(made, "block", "dropout(…) moved onto `weights = safe(…)`", "weights=safe(self.dropout(w))")


def test_only_the_solution_region_is_mutated_and_each_code_once(made):
    assert all(m.line >= 1 for m in made.values())
    assert not any("B, T, HD = x.shape" in line for m in made.values() for line in m.diff if line.startswith("-"))
    assert len({m.code for m in made.values()}) == len(made)


def test_report_categories():
    base = {"visible": {"result": "pass", "keys": []}, "hidden": {"result": "pass"}, "equivalent": False, "later": []}
    assert "rubric_hole" in report.categories(base)
    assert report.categories({**base, "equivalent": True}) == {"generated", "equivalent"}
    worst = {**base, "hidden": {"result": "fail", "hint": "hint_x"}}
    assert "vis_pass_hid_fail" in report.categories(worst)
    disagree = {**worst, "visible": {"result": "hint", "keys": ["hint_y"]}}
    assert report.categories(disagree) >= {"caught_hint", "disagree"}


# A small fixed sample per lesson, each with the category the full run (make mutants) puts it in. Early cells, one
# grading seed and no later cells, so each lesson costs seconds; the full run is `make mutants`.
SAMPLE = {
    "01_attention": {"ex1_attention_scores:L2:drop_call:sqrt() dropped": "caught_hint",
                     "ex1_attention_scores:L2:swap_args:arguments 1 and 2 swapped": "equivalent",
                     "ex1_attention_scores:L2:constant:/ → //": "caught_hint",
                     "ex3_softmax_last:L1:swap_args:operands of - swapped": "caught_hint",
                     # the grader named "transpose K" from forward's error; now the layout, as the check
                     "ex5_attention_module:L1:swap_args:arguments 1 and 2 swapped": "caught_hint",
                     "ex5_attention_module:L10:drop_call:W_k() dropped": "caught_hint"},   # was caught without one
    "02_multihead": {"ex1_split_heads:L1:constant:// → /": "caught_hint",
                     "ex1_split_heads:L1:drop_call:.transpose() dropped": "caught_hint",
                     "ex3_mha_module:L12:drop_call:W_q() dropped": "caught_hint",
                     # ✔ then the lesson's next cell crashed on float64
                     "ex6_to_torch_mha:L2:drop_call:.to() dropped": "caught_hint",
                     # each was caught without a hint, or named "transpose K" for another cause
                     "ex1_split_heads:L1:axis:1 → 0": "caught_hint",
                     "ex2_merge_heads:L1:drop_call:.view() dropped": "caught_hint",
                     "ex3_mha_module:L17:drop_call:merge_heads() dropped": "caught_hint",
                     "ex6_to_torch_mha:L1:swap_args:arguments 1 and 2 swapped": "caught_hint"},
    "03_masks": {"ex1_causal_mask:L1:tril:tril(diagonal=-1)": "caught_hint",
                 "ex2_apply_mask:L1:neg_inf:-inf → -1e9": "caught_hint",
                 "ex2_apply_mask:L1:neg_inf:masked_fill → + mask * -inf": "caught_hint",
                 "ex3_mha_mask_to_sdpa:L1:compare:== → !=": "caught_hint",       # the hints disagreed
                 "ex6_causal_module:L17:constant:0.0 → 1.0": "caught_hint",      # visible ✔, hidden ✗
                 "ex6_causal_module:L20:move_call:dropout(a) @ b → dropout(a @ b)": "caught_hint",   # visible ✔, hidden ✗
                 "ex6_causal_module:L13:constant:& → |": "caught_hint"},   # was caught without one
    "04_gpt2": {"ex1_split_qkv:L1:swap_args:elements 1 and 2 swapped": "caught_hint",
                # both were visible ✔, hidden ✗ before the visible check tried them
                "ex2_gpt2_module:L19:move_call:dropout(a) @ b → dropout(a @ b)": "caught_hint",
                "ex3_gpt2_init:L7:block:statement dropped": "caught_hint",
                # the grader named a list for a tensor where its E hands split's tuple to c_attn whole
                "ex2_gpt2_module:L10:move_call:split_qkv(c_attn(…)) → c_attn(split_qkv(…))": "caught_hint"},
    "05_heads": {"ex1_train_step:L2:drop_call:.reshape() dropped": "caught_hint",
                 "ex3_loss_without_head:L2:constant:// → /": "caught_hint",
                 "ex4_head_answers:L4:drop_keyword:dim= dropped": "caught_hint",  # was visible ✔, hidden ✗
                 "ex4_head_answers:L4:drop_call:.mean() dropped": "caught_hint",  # was caught without one
                 # dropout=1.0 as the default: ✔ both sides, then the model built without dropout= never learned
                 "ex0_gpt2_attention:L2:constant:0.0 → 1.0": "caught_hint"},
    "06_costs": {"ex1_attention_flops:L4:constant:* → /#2": "caught_hint",       # "int please", for a wrong formula
                 "ex3_gqa:L5:swap_args:arguments 1 and 2 swapped": "caught_hint",  # the grader named "transpose K"
                 "ex5_attend_with_cache:L8:swap_args:operands of - swapped": "caught_hint",   # was visible ✔, hidden ✗
                 "ex5_attend_with_cache:L10:invert:~x → x": "caught_hint",                    # was visible ✔, hidden ✗
                 "ex5_attend_with_cache:L12:swap_args:elements 1 and 2 swapped#2": "caught_hint",  # (v, k) cached
                 "ex4_kv_cache_bytes:L2:constant:* → /": "caught_hint",        # was "int please" for a / of element
                 "ex2_tiled_attention:L7:swap_args:elements 1 and 2 swapped": "caught_hint",   # kb, vb swapped
                 "ex3_gqa:L1:constant:.embed_dim → .head_dim": "caught_hint"},  # an attribute __init__ never set
    # each was caught without a hint (the last: the check crashed on (None, y) from the SDPA path)
    "07_positions": {"ex0_gpt2_attention:L3:drop_call:.__init__() dropped": "caught_hint",
                     "ex1_permutation_error:L2:drop_call:fn() dropped": "caught_hint",
                     "ex2_sinusoidal_positions:L5:subscript:[…] dropped": "caught_hint",
                     "ex4_interleaved_to_half:L3:drop_call:.reshape() dropped": "caught_hint",
                     "ex5_relative_score:L1:subscript:[…] dropped#2": "caught_hint",
                     "ex0_gpt2_attention:L19:swap_args:elements 1 and 2 swapped": "caught_hint"},
    "08_deployed": {"ex1_mask_mods:L8:compare:>= → >": "caught_hint",          # a mask named by what it gets wrong
                    "ex6_sink_attention:L1:constant:/ → *": "caught_hint",
                    "ex10_paged_cache:L9:constant:- → +": "caught_hint",        # was visible ✔, hidden ✗
                    "ex12_cache_bytes:L2:constant:* → /": "caught_hint",        # the grader named the window for 4536.0
                    # both were visible ✔, hidden ✗: q_proj was square in the check, and eps went unchecked
                    "ex7_mla:L3:swap_args:arguments 1 and 2 swapped": "caught_hint",
                    "ex7_mla:L5:drop_keyword:eps= dropped": "caught_hint",
                    # this round's hints, each was caught without one: the ring unpacked (v, k), key_pos joined the
                    # other way round, the latent joined before the cache, softmax left out (every output NaN)
                    "ex4_rolling_cache:L5:swap_args:elements 1 and 2 swapped": "caught_hint",
                    "ex4_rolling_cache:L10:swap_args:elements 1 and 2 swapped": "caught_hint",
                    "ex8_mla_decode:L9:swap_args:elements 1 and 2 swapped#3": "caught_hint",
                    "ex4_rolling_cache:L14:drop_call:softmax() dropped": "caught_hint",   # the hints disagreed
                    # named apart: the check's sizes made a broadcast error, the grader's a view's or a matmul's
                    # (mla_decode's mask built (T_all, T_new), its cache not joined); the grader said "transpose K"
                    # for the ring replaced by a new tensor, the check named nothing
                    "ex8_mla_decode:L12:swap_args:arguments 1 and 2 swapped": "caught_hint",
                    "ex8_mla_decode:L8:block:`if` block dropped": "caught_hint",
                    "ex4_rolling_cache:L17:subscript:[…] dropped": "caught_hint"},
}


@pytest.mark.parametrize("stem", sorted(SAMPLE))
def test_a_fixed_sample_of_mutants_keeps_its_verdicts(stem):
    from mutants import run_lesson
    ids = list(SAMPLE[stem])
    records = run_lesson(class_lessons()[stem], seeds=(0,), ids=ids, later=False)
    assert sorted(r["id"] for r in records) == sorted(ids), "a sampled mutant is no longer made: the solution changed?"
    for record in records:
        got = report.categories(record)
        assert SAMPLE[stem][record["id"]] in got, (record["id"], got, record["visible"], record["hidden"])
        assert not got & {"vis_pass_hid_fail", "rubric_hole", "disagree"}, (record["id"], got)


def test_the_readme_table_keeps_the_rows_of_lessons_not_run(tmp_path):
    # A lesson run alone (make mutants LESSON=04_gpt2) must not drop the other lessons' rows from README's table.
    import json
    from mutants import update_readme
    old = report.readme_table({"01_attention": {"generated": 73, "equivalent": 5, "caught_hint": 61,
                                                "caught_no_hint": 7},
                               "03_masks": {"generated": 91, "disagree": 1}})
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n<!-- mutants -->\n{old}<!-- /mutants -->\nafter\n", encoding="utf-8")
    base = {"cell": "ex1", "visible": {"result": "hint", "keys": ["hint_x"]}, "hidden": {"result": "fail"},
            "equivalent": False, "later": []}
    folder = tmp_path / "mutants"
    folder.mkdir()
    (folder / "03_masks.json").write_text(json.dumps({"mutants": [base, {**base, "equivalent": True}]}))
    update_readme(folder, readme)
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("before\n<!-- mutants -->\n| lesson |") and text.endswith("<!-- /mutants -->\nafter\n")
    rows = report.parse_readme_table(text)
    assert list(rows) == ["01_attention", "03_masks"]   # the lessons' order, not the order they were run in
    assert rows["01_attention"] == {"generated": 73, "equivalent": 5, "caught_hint": 61, "caught_no_hint": 7,
                                    "vis_pass_hid_fail": 0, "rubric_hole": 0, "later_fails": 0, "disagree": 0}
    assert (rows["03_masks"]["generated"], rows["03_masks"]["equivalent"], rows["03_masks"]["caught_hint"],
            rows["03_masks"]["disagree"]) == (2, 1, 1, 0)


def test_later_cells_are_reached_through_the_notebook_names_a_cell_binds():
    # A cell's function locals are no notebook names: lesson 7's exercise 0 (B, T, E = x.shape inside forward) re-ran
    # every later cell that reads a T or an x, the training of five models among them, once per mutant it passed.
    from mutation.harness import names
    reads, writes = names("import torch.nn as nn\nclass A(nn.Module):\n    def forward(self, x):\n"
                          "        B, T = x.shape\n        return apply_rope(x) + T\n\nrows = [f(z) for z in zs]\n")
    assert writes == {"nn", "A", "rows"}
    assert reads == {"nn", "apply_rope", "f", "zs"}   # a global read inside a method is read when it is called


def test_the_demonstrations_trainings_are_shortened_in_the_harness():
    import short_demos
    from mutation.harness import Notebook
    nb = Notebook(class_lessons()["07_positions"], seeds=(0,))
    calls = [call for cell in nb.cells for call in short_demos.calls(cell.source)]
    assert calls and all(f"steps={short_demos.STEPS}" in call for call in calls), calls
    assert any("steps=600" in cell.source for cell in nb.cells)   # train's own default is left as it is
