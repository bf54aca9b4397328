"""Lesson 5: a training step, head entropy, ablating a head, the previous-token-head answer.

Visible checks (right code passes, each classic bug gets its own hint, in both languages),
hidden tests (probe in the kernel, judge in the grader: the reference passes, bugs fail),
and BUGS: one graded submission per classic bug, which tests/test_grading.py grades with
`make autograde`'s own code and docs/instructors.md's grade table shows.
"""
import inspect
import math

import pytest
import torch

import attn_course as course
from attn_course.checks import lesson5 as checks
from attn_course.messages import t
from attn_course.probes import lesson5 as probes
from attn_course.judging import hint_of
from attn_course.validate import CheckFailed
from conftest import check_names, fails, fails_with, judged, passes, reference


@pytest.fixture(scope="module")
def ref():
    return reference("lesson5")


def _step(zero="before", softmax=False, item=True):
    def train_step(model, optimizer, x, y):
        logits, _ = model(x)
        if softmax:
            logits = logits.softmax(-1)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=-100)
        if zero == "before":
            optimizer.zero_grad()
        loss.backward()
        if zero == "between":
            optimizer.zero_grad()
        optimizer.step()
        return loss.item() if item else loss
    return train_step


@pytest.mark.parametrize("bug,hint", [
    (dict(zero="never"), "hint_zero_grad"),
    (dict(zero="between"), "hint_train_order"),
    (dict(softmax=True), "hint_loss_softmax_twice"),
])
def test_train_step_bug_gets_its_hint(lang, ref, bug, hint):
    checks.check_train_step(_step())
    check_names(checks.check_train_step, _step(**bug), hint)


def test_train_step_returning_the_loss_tensor_fails_with_the_item_hint(lang, ref):
    # The lesson asks for a float: the training cell cannot draw tensors that still hold their graph.
    failure = fails_with(checks.check_train_step, _step(item=False), "hint_loss_item")
    assert t("returned_not_number", name="train_step", kind="Tensor") in str(failure)


def test_head_entropy_bugs_get_their_hints(lang, ref):
    checks.check_head_entropy(ref.head_entropy)
    fails_with(checks.check_head_entropy, lambda w: -(w * w.log()).sum(-1).mean(dim=(0, 2)), "hint_entropy_nan")
    fails_with(checks.check_head_entropy, lambda w: ref.head_entropy(w) / math.log(2), "hint_entropy_log2")
    # Summing over the wrong axis first changes nothing once everything is averaged, so it is not a bug here.
    checks.check_head_entropy(lambda w: -torch.special.xlogy(w, w).sum(-2).mean(dim=(0, 2)))
    fails_with(checks.check_head_entropy, lambda w: -ref.head_entropy(w), "hint_entropy_sign")
    fails_with(checks.check_head_entropy, lambda w: -torch.special.xlogy(w, w).sum(-1).mean(dim=(0, 1)),
               "hint_entropy_mean_axes")


def _ablate(where="input", cut="head", remove=True):
    def loss_without_head(model, x, y, layer, head):
        attn = model.blocks[layer].attn
        D = attn.c_proj.in_features // attn.n_head
        lo, hi = {"head": (head * D, (head + 1) * D), "column": (head, head + 1),
                  "minus": (head * D, (head - 1) * D)}[cut]   # minus: make mutants' (head - 1) * D

        def zero(t_):
            t_ = t_.clone()
            t_[..., lo:hi] = 0
            return t_
        if where == "input":
            handle = attn.c_proj.register_forward_pre_hook(lambda m, inputs: (zero(inputs[0]),))
        else:
            handle = attn.c_proj.register_forward_hook(lambda m, inputs, out: zero(out))
        with torch.no_grad():
            loss = course.data.toy_loss(model(x)[0], y).item()
        if remove:
            handle.remove()
        return loss
    return loss_without_head


def test_loss_without_head_bugs_get_their_hints(lang, ref):
    check = checks.check_loss_without_head
    check(_ablate())
    check(ref.loss_without_head)
    fails_with(check, _ablate(where="output"), "hint_ablation_output")
    fails_with(check, _ablate(cut="column"), "hint_ablation_slice")
    fails_with(check, _ablate(remove=False), "hint_ablation_remove")
    fails_with(check, _ablate(cut="minus"), "hint_ablation_columns")


@pytest.mark.parametrize("seed", [0, 1, 2, 20261123])
def test_hidden_names_ablation_columns_off_by_a_head(ref, seed):
    # make mutants' (head - 1) * D: with two heads, head 0's slice 0:-D is head 0's own and head 1's D:0 zeroes
    # nothing, which is what the grader then says; with more heads, head 0's slice zeroes every head but the last.
    from attn_course.probes import Draws
    n_head = probes.sizes(Draws(seed, "lesson5.loss_without_head"))[0]["n_head"]
    want = "hint_ablation_columns" if n_head > 2 else "hint_ablation_nothing"
    assert fails(probes.loss_without_head, _ablate(cut="minus"), seed=seed).hint == want


def _loss_slip(slip):
    """train_step and loss_without_head's loss with one slip make mutants found (each raises in torch)."""
    def train_step(model, optimizer, x, y):
        out = model(x)
        logits = out[1] if slip == "pair" else out[0]
        flat, target = logits.reshape(-1, logits.size(-1)), y.reshape(-1)
        if slip == "no_reshape":
            flat = logits
        if slip == "swapped":
            flat, target = target, flat
        loss = torch.nn.functional.cross_entropy(flat, target, ignore_index=-100, reduction=
                                                 "none" if slip == "not_scalar" else "mean")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()
    return train_step


@pytest.mark.parametrize("slip,hint", [("no_reshape", "hint_loss_layout"), ("swapped", "hint_loss_argument_order"),
                                       ("not_scalar", "hint_loss_scalar"), ("pair", "hint_model_pair")])
def test_a_loss_that_raises_names_its_slip_visible_and_hidden(lang, ref, slip, hint):
    fails_with(checks.check_train_step, _loss_slip(slip), hint)
    assert fails(probes.train_step, _loss_slip(slip)).hint == hint


def test_an_ablation_that_raises_names_its_slip(lang, ref):
    def float_width(model, x, y, layer, head):
        attn = model.blocks[layer].attn
        D = attn.c_proj.in_features / attn.n_head
        return ref.loss_without_head(model, x, y, layer, head) + x[..., int(head * D):(head + 1) * D].sum().item()
    fails_with(checks.check_loss_without_head, float_width, "hint_head_width_int")
    assert fails(probes.loss_without_head, float_width).hint == "hint_head_width_int"


@pytest.fixture(scope="module")
def trained(ref):
    model = _trained(ref)
    x, _ = course.data.toy_batch(512, 12, 16, torch.Generator().manual_seed(1))
    with torch.no_grad():
        prev = course.previous_token_weight(model(x)[1][0].double())
    return model, x, prev


def test_head_answers_are_checked_on_the_trained_model(lang, ref, trained):
    model, x, prev = trained
    check = checks.check_head_answers
    check(model, int(prev.argmax()), float(prev.max()))
    check_names(lambda a: check(model, *a), (int(prev.argmin()), float(prev.max())), "hint_prev_argmax")
    # .mean() without dim: one number over every head, whose argmax is head 0
    check_names(lambda a: check(model, *a), (0, float(prev.mean())), "hint_prev_mean_heads")
    check_names(lambda a: check(model, *a), (int(prev.argmax()), float(prev.max()) - 0.2), "hint_prev_index")
    torch.manual_seed(0)
    untrained = ref.TinyDecoder().eval()
    failure = check_names(lambda a: check(untrained, *a), (0, 0.1), "hint_prev_untrained", key="prev_untrained")
    assert "演習 1" in str(failure) or "연습 문제 1" in str(failure)


def test_hidden_names_the_same_head_answer_slips(ref, trained):
    model, _, prev = trained
    failure = fails(probes.head_answers, model, 0, float(prev.mean()), key="prev_answer_differs")
    assert failure.hint == "hint_prev_mean_heads"
    assert fails(probes.head_answers, model, int(prev.argmin()), float(prev.max())).hint == "hint_prev_argmax"


def test_a_head_number_that_is_no_head_is_named_by_both(lang, ref, trained):
    # make mutants: argmax over (B, H, T) or (H, T) gave a flat position past the last head, and float(…) a 0.0;
    # the check said only "an integer from 0 to 1", and the grader blamed the query and key indices.
    model, x, prev = trained
    for head, hint in ((int(prev.argmax()) + 2 * 7, "hint_prev_flat_argmax"),
                       (float(int(prev.argmax())), "hint_head_not_int")):
        check_names(lambda a: checks.check_head_answers(model, *a), (head, float(prev.max())), hint,
                    key="answer_head_range")
        assert fails(probes.head_answers, model, head, float(prev.max()), key="answer_head_range").hint == hint


@pytest.mark.parametrize("head,weight,key", [(None, 0.9, "answer_head_range"), (2, 0.9, "answer_head_range"),
                                             (-1, 0.9, "answer_head_range"), (True, 0.9, "answer_head_range"),
                                             (0, None, "answer_not_number"), (0, 1.5, "answer_weight_range")])
def test_answers_of_the_wrong_form_fail_both_alike(lang, ref, trained, head, weight, key):
    model, _, _ = trained
    with pytest.raises(CheckFailed) as info:
        checks.check_head_answers(model, head, weight)
    assert info.value.mismatch.key == key
    fails(probes.head_answers, model, head, weight, key=key)


# --------------------------------------------------------------------------- one case, one diagnosis (issue 40)
# The check runs the grader's own probe and procedure (attn_course.probes.lesson5) on a seed of its own, and both read
# the notebook's sizes by one rule (attn_course.sizes).
def _zero_grad_after_step(model, optimizer, x, y):
    loss = course.data.toy_loss(model(x)[0], y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()


def test_zero_grad_after_step_fails_both_with_one_hint(lang, ref):
    # Right on a model without gradients (the check's first case), wrong on the grader's, which has some left.
    fails_with(checks.check_train_step, _zero_grad_after_step,
               "hint_zero_grad_after_step")
    for seed in range(4):
        assert fails(probes.train_step, _zero_grad_after_step, seed=seed).hint == "hint_zero_grad_after_step"


def _notebook_function(source: str):
    """The function source defines, where the notebook's globals are: its V = 16 and T = 12."""
    namespace = {"V": 16, "T": 12, "torch": torch, "F": torch.nn.functional}
    exec(source, namespace)
    return namespace[source.split("(", 1)[0].removeprefix("def ")]


READS_T = _notebook_function(
    "def train_step(model, optimizer, x, y):\n"
    "    logits, _ = model(x)\n"
    "    loss = F.cross_entropy(logits.reshape(x.size(0) * T * 2, -1), y.reshape(-1), ignore_index=-100)\n"
    "    optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()\n    return loss.item()\n")
READS_V = _notebook_function(
    "def loss_without_head(model, x, y, layer, head):\n"
    "    attn = model.blocks[layer].attn\n    D = attn.c_proj.in_features // attn.n_head\n"
    "    def zero_head(module, inputs):\n"
    "        heads = inputs[0].clone()\n        heads[..., head * D:(head + 1) * D] = 0\n        return (heads,)\n"
    "    handle = attn.c_proj.register_forward_pre_hook(zero_head)\n"
    "    try:\n        with torch.no_grad():\n            logits, _ = model(x)\n"
    "        return F.cross_entropy(logits.reshape(-1, V), y.reshape(-1), ignore_index=-100).item()\n"
    "    finally:\n        handle.remove()\n")


def test_code_reading_the_notebooks_sizes_fails_on_every_seed_with_its_hint(lang, ref):
    """The notebook binds V = 16 and T = 12; no case of the check or the grader has either size (before, the
    grader drew a max_len of 12 on some seeds, where a loss reshaped with the notebook's T got full marks)."""
    fails_with(checks.check_train_step, READS_T, "hint_global_size", names="T = 12")
    fails_with(checks.check_loss_without_head, READS_V, "hint_global_size",
               names="V = 16")
    from attn_course.probes import Draws
    for seed in range(20):
        s, _ = probes.sizes(Draws(seed, "lesson5.train_step"))
        assert s["max_len"] not in (12, 16) and s["vocab"] not in (12, 16), (seed, s)
    for seed in range(6):
        assert fails(probes.train_step, READS_T, seed=seed).hint == ("hint_global_size", {"names": "T = 12"}), seed
        assert fails(probes.loss_without_head, READS_V, seed=seed).hint == \
            ("hint_global_size", {"names": "V = 16"}), seed


def test_entropy_in_float32_is_checked_as_the_grader_checks_it(lang, ref):
    underflows = lambda w: -(w * w.clamp_min(1e-50).log()).sum(-1).mean(dim=(0, 2))  # noqa: E731 - 0 in float32
    fails_with(checks.check_head_entropy, underflows, "hint_entropy_nan_float32")
    assert fails(probes.head_entropy, underflows).hint == "hint_entropy_nan_float32"
    in_float64 = lambda w: ref.head_entropy(w.double())  # noqa: E731
    check_names(checks.check_head_entropy, in_float64, "hint_entropy_dtype", key="hidden_dtype")
    assert fails(probes.head_entropy, in_float64, key="hidden_dtype").hint == "hint_entropy_dtype"
    # Right answers written other ways pass both.
    for right in (lambda w: -(w * w.clamp_min(1e-12).log()).sum(-1).mean(dim=(0, 2)),
                  lambda w: torch.where(w > 0, -w * w.log(), 0.0).sum(-1).mean(dim=(0, 2))):
        checks.check_head_entropy(right)
        passes(probes.head_entropy, right)


# --------------------------------------------------------------------------- hidden tests
def _trained(ref, steps=300):
    torch.manual_seed(0)
    model = ref.TinyDecoder()
    g = torch.Generator().manual_seed(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(steps):
        ref.train_step(model, optimizer, *course.data.toy_batch(64, 12, 16, g))
    return model.eval()


def test_reference_passes_its_own_hidden_tests(ref):
    passes(probes.train_step, ref.train_step)
    passes(probes.head_entropy, ref.head_entropy)
    passes(probes.loss_without_head, ref.loss_without_head)
    model = _trained(ref)
    x, _ = course.data.toy_batch(512, 12, 16, torch.Generator().manual_seed(1))
    with torch.no_grad():
        prev = course.previous_token_weight(model(x)[1][0])
    passes(probes.head_answers, model, int(prev.argmax()), float(prev.max()))
    fails(probes.head_answers, model, int(prev.argmin()), float(prev.max()), key="prev_answer_differs")
    fails(probes.head_answers, model, int(prev.argmax()), float(prev.max()) - 0.2, key="prev_answer_differs")


def test_hidden_catches_accumulated_gradients_and_an_untrained_model(ref):
    def no_zero_grad(model, optimizer, x, y):
        loss = course.data.toy_loss(model(x)[0], y)
        loss.backward()
        optimizer.step()
        return loss.item()
    fails(probes.train_step, no_zero_grad)
    failure = fails(probes.train_step, _step(item=False), key="returned_not_number")
    assert failure.hint == "hint_loss_item"
    torch.manual_seed(0)
    fails(probes.head_answers, ref.TinyDecoder().eval(), 0, 0.1, key="prev_untrained")


def test_hidden_catches_nan_entropy_and_a_hook_left_behind(ref):
    fails(probes.head_entropy, lambda w: -(w * w.log()).sum(-1).mean(dim=(0, 2)))
    fails(probes.loss_without_head, _ablate(remove=False))


@pytest.mark.parametrize("seed", [1, 2, 17])
def test_graded_answer_holds_for_other_training_seeds(ref, seed):
    # Seed 17 makes head 1 the previous-token head, so a grader fixed on head 0 would fail it.
    import seeds
    row = seeds.run(seed, ref)
    assert row["graded"] == "pass", row
    assert row["prev_weight"] > 0.9 and row["other_head_prev_weight"] < 0.1
    assert min(row["loss_without_head"]) > 100 * row["loss"]


# --------------------------------------------------------------------------- one exercise, one procedure
# Wrong answers of each exercise, as the learner objects its check and its probe take (given the reference and the
# trained model, its answers).
WRONG = {
    "train_step": {
        "no_zero_grad": lambda ref, tr: (_step(zero="never"),),
        "softmax_twice": lambda ref, tr: (_step(softmax=True),),
        "zero_grad_after_step": lambda ref, tr: (_zero_grad_after_step,),
        "loss_tensor": lambda ref, tr: (_step(item=False),),
        "loss_swapped": lambda ref, tr: (_loss_slip("swapped"),),
    },
    "head_entropy": {
        "log2": lambda ref, tr: (lambda w: ref.head_entropy(w) / math.log(2),),
        "plain_log": lambda ref, tr: (lambda w: -(w * w.log()).sum(-1).mean(dim=(0, 2)),),
        "mean_axes": lambda ref, tr: (lambda w: -torch.special.xlogy(w, w).sum(-1).mean(dim=(0, 1)),),
        "float64": lambda ref, tr: (lambda w: ref.head_entropy(w.double()),),
    },
    "loss_without_head": {
        "output": lambda ref, tr: (_ablate(where="output"),),
        "column": lambda ref, tr: (_ablate(cut="column"),),
        "left": lambda ref, tr: (_ablate(remove=False),),
    },
    "head_answers": {
        "argmin": lambda ref, tr: (tr[0], int(tr[2].argmin()), float(tr[2].max())),
        "mean": lambda ref, tr: (tr[0], 0, float(tr[2].mean())),
        "flat": lambda ref, tr: (tr[0], int(tr[2].argmax()) + 14, float(tr[2].max())),
    },
}
CHECKS = {"train_step": checks.check_train_step, "head_entropy": checks.check_head_entropy,
          "loss_without_head": checks.check_loss_without_head, "head_answers": checks.check_head_answers}


@pytest.mark.parametrize("exercise,wrong", [(e, w) for e, ws in WRONG.items() for w in ws])
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(ref, lang, trained, exercise, wrong):
    """The visible check and the grader run one procedure: on the check's seed, the grader with the hidden reference
    reaches the very verdict the check reached with the course's right answer (its message key, fields and hint)."""
    objs = WRONG[exercise][wrong](ref, trained)
    with pytest.raises(CheckFailed) as info:
        CHECKS[exercise](*objs)
    seed = checks.SEEDS[exercise]
    source = inspect.getsource(objs[0]) if inspect.isfunction(objs[0]) else ""
    graded = judged(getattr(probes, exercise), *objs, seed=seed, source=source)
    seen = info.value.mismatch
    # repr: a NaN error (0 · log 0) is the same verdict on both sides, though NaN != NaN.
    assert repr((graded.key, graded.fields, hint_of(graded))) == repr((seen.key, seen.fields, hint_of(seen)))
    assert hint_of(seen)[0], (exercise, wrong, seen.key)
