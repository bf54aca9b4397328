"""Mutation operators on a solution cell's syntax tree, chosen for the mistakes tensor code invites.

libcst (a concrete syntax tree) is used instead of the standard `ast`: a mutant keeps the learner's
formatting and comments, so the report's diff shows the one line that changed, as a person would
have written it. Only nodes inside the cell's `### BEGIN/END SOLUTION` region are mutated: the rest
of the cell is the template the learner was given.

    for m in mutants(source): m.id, m.op, m.line, m.code, m.diff

Each operator takes a node and returns [(label, replacement)], the label saying what was done
("-1 → -2"). A block operator rewrites a whole indented block (moving a call between statements,
dropping one, unwrapping a `with`).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

# Calls whose integer arguments are axes (or, for view/reshape, sizes: swapping them is the mistake).
AXIS_CALLS = {"transpose", "softmax", "log_softmax", "sum", "mean", "max", "min", "amax", "argmax", "permute",
              "cat", "stack", "unsqueeze", "squeeze", "flip", "chunk", "split", "size", "repeat_interleave",
              "norm", "var", "std", "cumsum", "logsumexp", "swapaxes", "movedim", "roll", "narrow", "select",
              "nan_to_num", "topk"}
# Calls that make a tensor from sizes: dropping them leaves a size, which is no mistake a person makes.
CREATORS = {"ones", "zeros", "full", "empty", "arange", "tensor", "randn", "rand", "randint", "ones_like",
            "zeros_like", "full_like", "Linear", "Dropout", "Embedding", "Parameter", "range", "len", "int",
            "float", "bool", "tuple", "list", "dict", "isinstance", "super", "print", "slice", "zip", "enumerate",
            "getattr", "setattr", "hasattr", "type", "sorted", "min", "max", "sum", "abs", "round", "no_grad",
            "MultiheadAttention", "device", "finfo", "Generator", "manual_seed", "register_buffer"}
# Module attributes that hold a size: a mix-up (√E for √D, n_head for head_dim) is a classic mistake.
SIZE_ATTRS = ("head_dim", "embed_dim", "n_head", "key_dim", "max_len", "n_embd", "d_model", "n_kv_head")
COMPARE_FLIPS = {cst.LessThan: (cst.LessThanEqual, cst.GreaterThan), cst.LessThanEqual: (cst.LessThan,),
                 cst.GreaterThan: (cst.GreaterThanEqual, cst.LessThan), cst.GreaterThanEqual: (cst.GreaterThan,),
                 cst.Equal: (cst.NotEqual,), cst.NotEqual: (cst.Equal,), cst.Is: (cst.IsNot,),
                 cst.IsNot: (cst.Is,)}
BINOP_SWAPS = {cst.FloorDivide: (cst.Divide,), cst.Divide: (cst.Multiply, cst.FloorDivide),
               cst.Multiply: (cst.Divide,), cst.Add: (cst.Subtract,), cst.Subtract: (cst.Add,),
               cst.BitAnd: (cst.BitOr,), cst.BitOr: (cst.BitAnd,)}
NON_COMMUTATIVE = (cst.MatrixMultiply, cst.Subtract, cst.Divide, cst.FloorDivide)


@dataclass
class Mutant:
    id: str          # "<cell>:L<line>:<op>:<label>": stable while the solution's text is
    cell: str
    op: str
    line: int        # line in the cell where the change starts (1-based)
    label: str
    code: str        # the whole mutated cell
    diff: list       # ["- old line", "+ new line", …]


def _code(node) -> str:
    return cst.Module(body=[]).code_for_node(node)


def paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    """A replacement keeps its meaning wherever it lands: an operation gets parentheses."""
    if isinstance(expr, (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation, cst.IfExp,
                         cst.BooleanOperation)) and not expr.lpar:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def _name(func) -> str:
    """The called name: softmax for torch.softmax, x.softmax and softmax."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return ""


def _is_function(call: cst.Call) -> bool:
    """A call whose first argument is its data: f(x), torch.softmax(x), self.dropout(x), not x.view(…) or a creator."""
    if _name(call.func) in CREATORS:
        return False
    func = call.func
    if isinstance(func, cst.Name):
        return True
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        return True   # self.dropout(x), self.W_o(y): a layer of the module
    while isinstance(func, cst.Attribute):
        func = func.value
    return isinstance(func, cst.Name) and func.value in ("torch", "F", "math", "nn", "course")


def _int(expr) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and \
            isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.value)
    return None


def _int_node(n: int) -> cst.BaseExpression:
    return cst.Integer(str(n)) if n >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-n)))


def _is_neg_inf(expr) -> bool:
    code = _code(expr).replace(" ", "").replace("'", '"')
    return code in ('float("-inf")', "-float(\"inf\")", "-math.inf", "-torch.inf", "float(\"-Infinity\")")


def _positional(call: cst.Call) -> list:
    return [i for i, a in enumerate(call.args) if a.keyword is None and not a.star]


def _with_arg(call: cst.Call, i: int, value) -> cst.Call:
    args = list(call.args)
    args[i] = args[i].with_changes(value=value)
    return call.with_changes(args=args)


def _without_arg(call: cst.Call, i: int) -> cst.Call:
    args = list(call.args)
    del args[i]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


# --------------------------------------------------------------------------- expression operators
def op_axis(node):
    """Axes: -1 → -2, 1 → -1, …, in transpose/softmax/sum/permute/…: the wrong axis, or a sign lost."""
    if not isinstance(node, cst.Call) or _name(node.func) not in AXIS_CALLS:
        return []
    out = []
    for i, arg in enumerate(node.args):
        if arg.keyword is not None and arg.keyword.value not in ("dim", "dims", "dim0", "dim1"):
            continue
        k = _int(arg.value)
        if k is None:
            continue
        for new in sorted({-k, k - 1, k + 1} - {k}):
            if new < -4 or new > 3 or (k >= 0 and new < -1 and new != -k):
                continue
            out.append((f"{k} → {new}", _with_arg(node, i, _int_node(new))))
    return out


def op_tril(node):
    """tril ↔ triu, and a diagonal moved by one."""
    if not isinstance(node, cst.Call) or _name(node.func) not in ("tril", "triu"):
        return []
    name = _name(node.func)
    other = "triu" if name == "tril" else "tril"
    func = node.func.with_changes(attr=cst.Name(other)) if isinstance(node.func, cst.Attribute) else cst.Name(other)
    out = [(f"{name} → {other}", node.with_changes(func=func))]
    diag = next((i for i, a in enumerate(node.args) if a.keyword is not None and a.keyword.value == "diagonal"), None)
    if diag is None and isinstance(node.func, cst.Attribute) and not _positional(node):
        for d in (1, -1):
            arg = cst.Arg(_int_node(d), keyword=cst.Name("diagonal"),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))
            out.append((f"{name}(diagonal={d})", node.with_changes(args=[*node.args, arg])))
    elif diag is not None and (k := _int(node.args[diag].value)) is not None:
        for d in (k - 1, k + 1):
            out.append((f"diagonal={k} → {d}", _with_arg(node, diag, _int_node(d))))
    return out


def op_compare(node):
    """< ↔ <=, < ↔ >, == ↔ !=, is ↔ is not."""
    if not isinstance(node, cst.Comparison):
        return []
    out = []
    for i, target in enumerate(node.comparisons):
        for new in COMPARE_FLIPS.get(type(target.operator), ()):
            targets = list(node.comparisons)
            targets[i] = target.with_changes(operator=new())
            out.append((f"{_code(target.operator).strip()} → {_code(new()).strip()}",
                        node.with_changes(comparisons=targets)))
    return out


def op_invert(node):
    """~keep → keep, not x → x: the mask's meaning turned round."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.BitInvert, cst.Not)):
        return [(f"{_code(node.operator).strip()}x → x", paren(node.expression))]
    return []


def op_neg_inf(node):
    """A -inf fill replaced by 0, by -1e9, or by the dtype's most negative number."""
    if isinstance(node, cst.Call) and _name(node.func) == "masked_fill" and isinstance(node.func, cst.Attribute):
        pos = _positional(node)
        if len(pos) >= 2 and _is_neg_inf(node.args[pos[1]].value):
            recv = _code(node.func.value)
            out = []
            for label, new in (("-inf → 0.0", "0.0"), ("-inf → -1e9", "-1e9"),
                               ("-inf → finfo(dtype).min", f"torch.finfo({recv}.dtype).min")):
                out.append((label, _with_arg(node, pos[1], cst.parse_expression(new))))
            # The additive form of the same mask: 0 * -inf is NaN where the mask is False.
            mask = _code(paren(node.args[pos[0]].value))
            out.append(("masked_fill → + mask * -inf", paren(cst.parse_expression(
                f"{_code(paren(node.func.value))} + {mask} * {_code(node.args[pos[1]].value)}"))))
            return out
    return []


def op_move_call(node):
    """A call moved past its neighbour: x.a().b() → x.b().a(); f(g(x)) → g(f(x)); f(a @ b) → f(a) @ b and back."""
    out = []
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Call) \
            and isinstance(node.func.value.func, cst.Attribute):
        inner = node.func.value
        x = inner.func.value
        swapped = inner.with_changes(func=inner.func.with_changes(
            value=node.with_changes(func=node.func.with_changes(value=x))))
        out.append((f".{inner.func.attr.value}().{node.func.attr.value}() swapped", swapped))
    if isinstance(node, cst.Call) and _is_function(node) and _positional(node)[:1] == [0]:
        first = node.args[0].value
        if isinstance(first, cst.Call) and _is_function(first) and _positional(first)[:1] == [0]:
            moved = first.with_changes(args=[first.args[0].with_changes(
                value=_with_arg(node, 0, first.args[0].value)), *first.args[1:]])
            out.append((f"{_name(node.func)}({_name(first.func)}(…)) → {_name(first.func)}({_name(node.func)}(…))",
                        moved))
        if isinstance(first, cst.BinaryOperation):
            op = _code(first.operator).strip()
            out.append((f"{_name(node.func)}(a {op} b) → {_name(node.func)}(a) {op} b",
                        paren(first.with_changes(left=_with_arg(node, 0, first.left), lpar=[], rpar=[]))))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.left, cst.Call) and not node.lpar:
        f = node.left
        if _is_function(f) and _positional(f)[:1] == [0]:
            inner = node.with_changes(left=f.args[0].value, lpar=[], rpar=[])
            out.append((f"{_name(f.func)}(a) {_code(node.operator).strip()} b → "
                        f"{_name(f.func)}(a {_code(node.operator).strip()} b)", _with_arg(f, 0, inner)))
    return out


def op_drop_call(node):
    """A call dropped: x.contiguous() → x, self.dropout(w) → w, math.sqrt(D) → D, x.item() → x, K.mT → K."""
    if isinstance(node, cst.Attribute) and node.attr.value in ("T", "mT"):
        return [(f".{node.attr.value} dropped", node.value)]
    if not isinstance(node, cst.Call) or _name(node.func) in CREATORS:
        return []
    name = _name(node.func)
    if isinstance(node.func, cst.Attribute) and not (isinstance(node.func.value, cst.Name)
                                                      and node.func.value.value in ("torch", "F", "math", "nn", "course")) \
            and not (isinstance(node.func.value, cst.Name) and node.func.value.value == "self"):
        return [(f".{name}() dropped", paren(node.func.value))]   # a method of the tensor: x.view(…) → x
    pos = _positional(node)
    if pos[:1] == [0]:
        return [(f"{name}() dropped", paren(node.args[0].value))]
    return []


def op_drop_keyword(node):
    """A keyword argument dropped: device=, dtype=, persistent=, bias=, dim=, batch_first=, training=, …"""
    if not isinstance(node, cst.Call):
        return []
    return [(f"{a.keyword.value}= dropped", _without_arg(node, i))
            for i, a in enumerate(node.args) if a.keyword is not None]


def op_swap_args(node):
    """Two neighbouring arguments, list or tuple elements, or the operands of @ - / // swapped."""
    out = []
    if isinstance(node, cst.Call):
        pos = _positional(node)
        for a, b in zip(pos, pos[1:]):
            va, vb = node.args[a].value, node.args[b].value
            if _code(va) != _code(vb):
                out.append((f"arguments {a + 1} and {b + 1} swapped", _with_arg(_with_arg(node, a, vb), b, va)))
    if isinstance(node, (cst.List, cst.Tuple)):
        els = node.elements
        for i in range(len(els) - 1):
            if _code(els[i].value) != _code(els[i + 1].value):
                new = list(els)
                new[i], new[i + 1] = els[i].with_changes(value=els[i + 1].value), els[i + 1].with_changes(value=els[i].value)
                out.append((f"elements {i + 1} and {i + 2} swapped", node.with_changes(elements=new)))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, NON_COMMUTATIVE) \
            and _code(node.left) != _code(node.right):
        out.append((f"operands of {_code(node.operator).strip()} swapped",
                    node.with_changes(left=paren(node.right), right=paren(node.left))))
    return out


def op_constant(node, sizes: tuple = ()):
    """A constant changed: // → /, / → *, self.head_dim → self.embed_dim, n → n ± 1, True ↔ False, a if c else b → a."""
    out = []
    if isinstance(node, cst.BinaryOperation):
        for new in BINOP_SWAPS.get(type(node.operator), ()):
            out.append((f"{_code(node.operator).strip()} → {_code(new()).strip()}", node.with_changes(operator=new())))
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.attr.value in SIZE_ATTRS:
        for other in sizes:
            if other != node.attr.value:
                out.append((f".{node.attr.value} → .{other}", node.with_changes(attr=cst.Name(other))))
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        other = "False" if node.value == "True" else "True"
        out.append((f"{node.value} → {other}", cst.Name(other)))
    if isinstance(node, cst.IfExp):
        out.append(("a if c else b → a", paren(node.body)))
        out.append(("a if c else b → b", paren(node.orelse)))
    if isinstance(node, cst.Float) and float(node.value) in (0.0, 1.0):
        other = "1.0" if float(node.value) == 0.0 else "0.0"
        out.append((f"{node.value} → {other}", cst.Float(other)))
    return out


def op_subscript(node):
    """An index dropped: self.causal[:T, :T] → self.causal, x[:, None, None, :] → x[:, None, :]."""
    if not isinstance(node, cst.Subscript):
        return []
    out = [("[…] dropped", node.value)]
    els = node.slice
    if len(els) > 1:
        for i, el in enumerate(els):
            if isinstance(el.slice, cst.Index) and _code(el.slice.value) == "None" or \
                    isinstance(el.slice, cst.Slice) and el.slice.lower is None and el.slice.upper is None:
                new = list(els[:i]) + list(els[i + 1:])
                new[-1] = new[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                out.append((f"index {i + 1} ({_code(el.slice).strip()}) dropped", node.with_changes(slice=new)))
    return out


def op_answer_float(node):
    """An answer asked for as an integer given as a float: answer_x = float(…)."""
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
            and node.targets[0].target.value.startswith("answer_") and _code(node.value) != "None":
        return [("answer as float(…)", node.with_changes(value=cst.parse_expression(f"float({_code(node.value)})")))]
    return []


EXPRESSION_OPS = {"axis": op_axis, "tril": op_tril, "compare": op_compare, "invert": op_invert,
                  "neg_inf": op_neg_inf, "move_call": op_move_call, "drop_call": op_drop_call,
                  "drop_keyword": op_drop_keyword, "swap_args": op_swap_args, "constant": op_constant,
                  "subscript": op_subscript, "answer_float": op_answer_float}


# --------------------------------------------------------------------------- block operators
def _assigned(stmt) -> str | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        targets = stmt.body[0].targets
        if len(targets) == 1 and isinstance(targets[0].target, cst.Name):
            return targets[0].target.value
    return None


class _Find(cst.CSTVisitor):
    def __init__(self, test):
        self.test, self.found = test, []

    def on_visit(self, node) -> bool:
        if self.test(node):
            self.found.append(node)
        return True


def _calls_on(name: str, stmt) -> list:
    """Calls f(name, …) in stmt whose first argument is just that name: the call a move can take upstream."""
    finder = _Find(lambda n: isinstance(n, cst.Call) and _positional(n)[:1] == [0]
                   and isinstance(n.args[0].value, cst.Name) and n.args[0].value.value == name
                   and _name(n.func) not in CREATORS)
    stmt.visit(finder)
    return finder.found


def op_block(block: cst.IndentedBlock, in_region):
    """Statement-level mistakes: a call moved to the line that made its input (dropout on the scores, not the
    weights), a call statement or a re-assignment dropped, `with torch.no_grad():` unwrapped, an `if` dropped."""
    body = list(block.body)
    out = []
    seen: set = set()
    for i, stmt in enumerate(body):
        if not in_region(stmt):
            name = _assigned(stmt)
            seen.add(name)
            continue
        name = _assigned(stmt)
        # Move a call f(name) from a later line onto the line that assigned name = g(a, …): name = g(f(a), …).
        value = stmt.body[0].value if name else None
        if isinstance(value, cst.Call) and _positional(value)[:1] == [0]:
            for j in range(i + 1, min(i + 4, len(body))):
                if not in_region(body[j]):
                    break
                for call in _calls_on(name, body[j]):
                    moved = call.with_changes(args=[call.args[0].with_changes(value=value.args[0].value), *call.args[1:]])
                    new_i = stmt.deep_replace(value, value.with_changes(
                        args=[value.args[0].with_changes(value=moved), *value.args[1:]]))
                    new_body = body[:i] + [new_i] + body[i + 1:j] + [body[j].deep_replace(call, cst.Name(name))] + body[j + 1:]
                    out.append((body[i], f"{_name(call.func)}(…) moved onto `{name} = {_name(value.func)}(…)`",
                                block.with_changes(body=new_body)))
                if _assigned(body[j]) == name:
                    break
        # Drop a statement that only calls something, or re-assigns a name already made.
        is_call = isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and \
            isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.Call)
        if is_call or (name and name in seen):
            rest = body[:i] + body[i + 1:] or [cst.SimpleStatementLine([cst.Pass()])]
            out.append((stmt, "statement dropped", block.with_changes(body=rest)))
        if isinstance(stmt, cst.With):
            inner = list(stmt.body.body)
            out.append((stmt, "`with` unwrapped", block.with_changes(body=body[:i] + inner + body[i + 1:])))
        if isinstance(stmt, cst.If) and stmt.orelse is None:
            rest = body[:i] + body[i + 1:] or [cst.SimpleStatementLine([cst.Pass()])]
            out.append((stmt, "`if` block dropped", block.with_changes(body=rest)))
        seen.add(name)
    return out


# --------------------------------------------------------------------------- mutants of one cell
def regions(source: str) -> list[tuple[int, int]]:
    """The spans of lines (1-based, inclusive) between each pair of solution markers."""
    lines = [line.strip() for line in source.splitlines()]
    begins = [i + 2 for i, line in enumerate(lines) if line == BEGIN]
    ends = [i for i, line in enumerate(lines) if line == END]
    return list(zip(begins, ends))


class _Collect(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self):
        self.nodes = []
        self.blocks = []

    def on_visit(self, node) -> bool:
        pos = self.get_metadata(PositionProvider, node, None)
        if pos is not None:
            self.nodes.append((node, pos.start.line, pos.end.line))
            if isinstance(node, cst.IndentedBlock):
                self.blocks.append(node)
        return True


def _diff(before: str, after: str) -> list:
    return [line.rstrip() for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def mutants(source: str, cell: str) -> list[Mutant]:
    """Every mutant of the cell's solution region, once each (two operators that give the same code: the first)."""
    spans = regions(source)
    if not spans:
        return []
    wrapper = MetadataWrapper(cst.parse_module(source))
    module = wrapper.module
    collect = _Collect()
    wrapper.visit(collect)
    where = {id(node): (start, end) for node, start, end in collect.nodes}
    sizes = tuple(a for a in SIZE_ATTRS if f"self.{a}" in source or f".{a}" in source)

    def inside(start: int, end: int) -> bool:
        return any(lo <= start and end <= hi for lo, hi in spans)

    def in_region(node) -> bool:
        return inside(*where.get(id(node), (0, 0)))

    candidates = []
    for node, start, end in collect.nodes:
        if not inside(start, end):
            continue
        for op, fn in EXPRESSION_OPS.items():
            found = fn(node, sizes) if op == "constant" else fn(node)
            candidates += [(op, start, label, node, new) for label, new in found]
    for block in collect.blocks:
        for stmt, label, new in op_block(block, in_region):
            candidates.append(("block", where[id(stmt)][0], label, block, new))
    out, codes, counts = [], {source}, {}
    for op, line, label, node, new in candidates:
        try:
            code = module.deep_replace(node, new).code
            compile(code, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError, cst.CSTValidationError):
            continue
        if code in codes:
            continue
        codes.add(code)
        # Lines count from the first solution line, so a change to the template above does not renumber them.
        key = f"{cell}:L{line - spans[0][0] + 1}:{op}:{label}"
        counts[key] = counts.get(key, 0) + 1
        if counts[key] > 1:
            key += f"#{counts[key]}"
        out.append(Mutant(key, cell, op, line - spans[0][0] + 1, label, code, _diff(source, code)))
    return out
