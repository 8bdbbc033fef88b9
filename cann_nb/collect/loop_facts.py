"""Which loops of the user's source carry state from one pass to the next, read from the source's data flow.

A loop whose passes are independent (``out[i] = f(x[i])``, ``total += g(x[i])``) can be replaced by one
whole-array operation; a loop that feeds a pass's result into the next (``theta = step(theta)``, a
Markov chain, a filter's state, a recurrent cell) cannot: only the work that does not depend on the carried
state can leave it (random draws made up front, a projection of all inputs at once). The advisor's loop
rules (analyze/rules/host.py) keep the dependent work's time when they estimate what vectorising saves.

Per loop (``for``/``while``, functions included, nested loops each on their own), from its body in source
order, without running anything:

* carried: names (and ``name.attr``) read in a pass before the pass assigns them, so the value read is the
  previous pass's; the loop's own targets are fresh each pass. A training loop (a backward pass and an
  optimizer step in the body) carries the parameters the optimizer updates in place, which no name shows:
  every line of it is dependent;
* reductions: carried names whose every update combines the old value with something that does not read
  it (``acc += v``, ``acc = acc * v``, ``best = max(best, v)``) and that nothing else in the body reads:
  an order-free accumulation, which a whole-array reduction replaces;
* scans: carried names updated as reductions are whose every value the body also uses (a running total or
  maximum: ``running = np.maximum(running, x[t]); dd[t] = x[t] - running``): a cumulative op (cumsum,
  np.maximum.accumulate, torch.cummax) computes them for all passes, so they are not sequential either;
* dependent: the lines of statements that read the remaining (sequential) carried state, or a name such a
  statement assigned, or that run under a condition that does (two passes over the body, so a flow
  through the next pass is seen);
* vectorisable_inner: the loops of independent passes nested in a sequential one (whose lines leave its
  dependent ones: within each outer pass they run whole-array);
* hoistable: on dependent lines, the calls none of whose inputs depend on the carried state (the last
  part of the called name: ``normal`` for ``rng.normal(0, 1, size=3)``): they could be made for all passes
  before the loop;
* search: the line of an ``if item_key == key: ... break`` in a ``for`` loop's body (``search_line``): a
  linear search stopping at the first match.

Every loop is reported (``carried`` empty for one whose passes are independent: a loop nested in a
sequential one can still be vectorised within its pass), comprehensions too (``comprehension``: their passes
are independent). An unreadable source says nothing.
"""

from __future__ import annotations

import ast
import linecache

MAX_LOOPS = 200   # per file: bounds the meta's size
_REDUCING_OPS = (ast.Add, ast.Mult, ast.BitOr, ast.BitAnd, ast.BitXor)
_SKIP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
OPTIMIZER_STATE = "(parameters: updated by the optimizer)"
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def file_loops(filename: str) -> list[dict]:
    """The loops of a file (module docstring): ``{file, line, end, carried, reductions, dependent: [line, ...],
    hoistable: {line: [call name, ...]}}``; ``carried`` is empty when the passes are independent."""
    src = "".join(linecache.getlines(filename))
    if not src:
        return []
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            facts = {"file": filename, **loop_facts(node)}
            found = search_line(node)
            if found:
                facts["search"] = found
            out.append(facts)
        elif isinstance(node, _COMPREHENSIONS) and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(node)):
            # a comprehension's passes are independent (no statement can carry a value to the next one;
            # an assignment expression could, so one with ``:=`` is not said)
            out.append({"file": filename, "line": node.lineno, "end": node.end_lineno or node.lineno, "carried": [],
                        "reductions": [], "scans": [], "dependent": [], "hoistable": {}, "comprehension": True})
        if len(out) >= MAX_LOOPS:
            break
    return _vectorisable_inside(out)


def search_line(loop) -> int | None:
    """The line of ``if <item's key> == <a key from outside>: ... break`` (or ``return``) directly in a ``for``
    loop's body: a linear search that stops at the first match (``for c in customers: if c["id"] == cid:``),
    which a dict built once answers in one lookup. None for any other loop."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    item = _stored(loop.target)
    for st in loop.body:
        if not (isinstance(st, ast.If) and isinstance(st.test, ast.Compare) and len(st.test.ops) == 1
                and isinstance(st.test.ops[0], ast.Eq)):
            continue
        sides = [_reads(st.test.left), _reads(st.test.comparators[0])]
        if sum(bool(r & item) for r in sides) != 1:   # one side the item's, the other from outside the loop
            continue
        if any(isinstance(n, (ast.Break, ast.Return)) for b in st.body for n in ast.walk(b)):
            return st.lineno
    return None


def _vectorisable_inside(loops: list[dict]) -> list[dict]:
    """A loop of independent passes nested in a sequential one runs whole-array within each outer pass (the
    max over the previous step's scores for every tag at once, in a Viterbi step): its lines leave the outer
    loop's dependent ones, though they read the carried state; what stays is one pass of the outer loop
    each."""
    for outer in loops:
        if not outer["dependent"] or OPTIMIZER_STATE in outer["carried"]:
            continue
        inner = [(lp["line"], lp["end"]) for lp in loops if not lp["carried"]
                 and outer["line"] < lp["line"] and lp["end"] <= outer["end"]]
        if inner:
            outer["dependent"] = [n for n in outer["dependent"] if not any(a <= n <= b for a, b in inner)]
            outer["vectorisable_inner"] = [a for a, _ in inner]
    return loops


def loop_facts(loop) -> dict:
    steps = _steps(loop)
    targets = _stored(loop.target) if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    written = set().union(*(s["writes"] for s in steps)) - targets
    carried, seen = set(), set()
    for s in steps:
        carried |= {n for n in s["reads"] if n in written and n not in seen}
        seen |= s["writes"]
    reductions = {n for n in carried if _is_reduction(n, steps)}
    scans = {n for n in carried - reductions if _is_scan(n, steps)}
    sequential = carried - reductions - scans
    if _trains(loop):
        # the optimizer updates the parameters in place, and the next pass's forward reads them: a
        # dependence no name shows (the model and the optimizer alias the same tensors)
        return {"line": loop.lineno, "end": loop.end_lineno or loop.lineno,
                "carried": sorted(sequential | {OPTIMIZER_STATE}), "reductions": sorted(reductions),
                "scans": sorted(scans), "dependent": sorted({s["line"] for s in steps}), "hoistable": {}}
    if not sequential:   # independent passes: said too, so a loop nested in a sequential one is seen as free
        return {"line": loop.lineno, "end": loop.end_lineno or loop.lineno, "carried": [],
                "reductions": sorted(reductions), "scans": sorted(scans), "dependent": [], "hoistable": {}}
    tainted, dependent = set(sequential), set()
    for _ in range(2):   # a flow through the next pass needs a second look
        for i, s in enumerate(steps):
            if i in dependent or s["reads"] & tainted or any(c in dependent for c in s["under"]):
                dependent.add(i)
                tainted |= s["writes"] | s["mutates"]
    hoistable: dict[str, list] = {}
    for i in sorted(dependent):
        calls = set(_independent_calls(steps[i]["exprs"], tainted))
        if calls:
            key = str(steps[i]["line"])
            hoistable[key] = sorted(set(hoistable.get(key, ())) | calls)
    return {"line": loop.lineno, "end": loop.end_lineno or loop.lineno, "carried": sorted(sequential),
            "reductions": sorted(reductions), "scans": sorted(scans),
            "dependent": sorted({steps[i]["line"] for i in dependent}),
            "hoistable": hoistable}


def _steps(loop) -> list[dict]:
    """The loop body as a flat list of steps in source order: each simple statement, and each compound
    statement's header (an ``if``'s test, an inner loop's iterable and target), with the names it reads and
    writes, the objects whose items or attributes it assigns, its expressions and the headers it runs under."""
    steps: list[dict] = []
    if isinstance(loop, ast.While):   # the condition is read at the start of every pass
        steps.append(_step(loop.lineno, [loop.test], set(), set(), ()))

    def walk(body, under):
        for st in body:
            if isinstance(st, _SKIP):
                continue
            if isinstance(st, (ast.If, ast.While)):
                steps.append(_step(st.lineno, [st.test], set(), set(), under))
                inner = under + (len(steps) - 1,)
                walk(st.body, inner)
                walk(st.orelse, inner)
            elif isinstance(st, (ast.For, ast.AsyncFor)):
                steps.append(_step(st.lineno, [st.iter], _stored(st.target), set(), under))
                inner = under + (len(steps) - 1,)
                walk(st.body, inner)
                walk(st.orelse, inner)
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                steps.append(_step(st.lineno, [i.context_expr for i in st.items],
                                   set().union(*(_stored(i.optional_vars) for i in st.items if i.optional_vars)),
                                   set(), under))
                walk(st.body, under + (len(steps) - 1,))
            elif isinstance(st, ast.Try):
                walk(st.body, under)
                for h in st.handlers:
                    walk(h.body, under)
                walk(st.orelse, under)
                walk(st.finalbody, under)
            elif isinstance(st, ast.Match):
                steps.append(_step(st.lineno, [st.subject], set(), set(), under))
                inner = under + (len(steps) - 1,)
                for case in st.cases:
                    walk(case.body, inner)
            else:
                writes, mutates, exprs = set(), set(), []
                if isinstance(st, ast.Assign):
                    for t in st.targets:
                        writes |= _stored(t)
                        mutates |= _mutated(t)
                        exprs += _target_reads(t)
                    exprs.append(st.value)
                elif isinstance(st, ast.AugAssign):
                    writes |= _stored(st.target)
                    mutates |= _mutated(st.target)
                    # x += v reads x: as the expression x + v, which is what a reduction is checked on
                    old = ast.Name(id=_name_of(st.target), ctx=ast.Load()) if _stored(st.target) else st.target
                    exprs.append(ast.BinOp(left=old, op=st.op, right=st.value))
                    exprs += _target_reads(st.target)
                elif isinstance(st, ast.AnnAssign):
                    writes |= _stored(st.target)
                    exprs += [st.value] if st.value is not None else []
                else:
                    exprs.append(st)
                    for n in ast.walk(st):   # a method call may change its object: x.append(v), rng.normal()
                        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                            base = _name_of(n.func.value)
                            if base:
                                mutates.add(base)
                steps.append(_step(st.lineno, exprs, writes, mutates, under))

    walk(loop.body, ())
    return steps


def _step(line: int, exprs: list, writes: set, mutates: set, under: tuple) -> dict:
    reads = set()
    for e in exprs:
        for n in ast.walk(e):
            if isinstance(n, _SKIP):
                continue
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                reads.add(n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and _name_of(n):
                reads.add(_name_of(n))
            elif isinstance(n, ast.NamedExpr):
                writes = writes | {n.target.id}
    return {"line": line, "reads": reads, "writes": set(writes), "mutates": set(mutates), "exprs": exprs,
            "under": under}


def _name_of(node) -> str | None:
    """``x`` for a name, ``x.attr`` for an attribute of a name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _stored(target) -> set:
    """Names (and ``x.attr``) a target rebinds: ``a``, ``a, b``, ``self.h``; not ``a[i]`` (an item)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_stored(t) for t in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return _stored(target.value)
    got = _name_of(target)
    return {got} if got and isinstance(target, (ast.Name, ast.Attribute)) else set()


def _mutated(target) -> set:
    """The objects a target changes in place: ``a`` for ``a[i] = v``."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_mutated(t) for t in target.elts)) if target.elts else set()
    if isinstance(target, ast.Subscript):
        got = _name_of(target.value)
        return {got} if got else set()
    return set()


def _target_reads(target) -> list:
    """What assigning a target reads: the index and object of ``a[i] = v`` (``i`` and ``a``)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [e for t in target.elts for e in _target_reads(t)]
    if isinstance(target, ast.Subscript):
        return [target.slice]
    return []


def _reads(node) -> set:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and _name_of(n):
            out.add(_name_of(n))
    return out


def _is_reduction(name: str, steps: list) -> bool:
    """Every step that writes ``name`` combines its old value with something not reading it, and no other
    step reads it."""
    for s in steps:
        if name not in s["writes"]:
            if name in s["reads"]:
                return False
            continue
        if not any(_combines(e, name) for e in s["exprs"]):
            return False
    return True


def _is_scan(name: str, steps: list) -> bool:
    """Every step that writes ``name`` combines its old value with something not reading it (as a
    reduction), and the steps that read it without writing it only use it: a running total or maximum
    whose every prefix the body uses (``running = np.maximum(running, x[t]); dd[t] = x[t] - running``),
    which a cumulative op (cumsum, cumprod, np.maximum.accumulate, torch.cummax) computes for all passes."""
    writers = [s for s in steps if name in s["writes"]]
    return bool(writers) and all(any(_combines(e, name) for e in s["exprs"]) for s in writers)


def _combines(expr, name: str) -> bool:
    """``name op other`` / ``other op name`` with an order-free op, or ``max(name, other)`` / ``min``,
    where ``other`` does not read ``name`` (``name += other`` is seen as ``name + other``)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _REDUCING_OPS):
        for a, b in ((expr.left, expr.right), (expr.right, expr.left)):
            if _name_of(a) == name and name not in _reads(b):
                return True
    pairwise = (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("max", "min")) \
        or (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in ("maximum", "minimum", "fmax", "fmin"))   # np.maximum, torch.maximum
    if pairwise and len(expr.args) == 2 and not expr.keywords:
        a, b = expr.args
        return (_name_of(a) == name and name not in _reads(b)) or (_name_of(b) == name and name not in _reads(a))
    return False


def _independent_calls(exprs: list, tainted: set) -> list[str]:
    """The names of the calls in ``exprs`` that read nothing tainted (their function, object and arguments),
    with the calls nested in them."""
    out = []

    def visit(n):
        if isinstance(n, _SKIP):
            return
        if isinstance(n, ast.Call) and not (_reads(n) & tainted):
            for c in ast.walk(n):   # the call and the calls inside it: math.log(rng.uniform())
                if isinstance(c, ast.Call):
                    f = c.func
                    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                    if name:
                        out.append(name)
            return
        for c in ast.iter_child_nodes(n):
            visit(c)

    for e in exprs:
        if isinstance(e, ast.AST):
            visit(e)
    return out


def _trains(loop) -> bool:
    """The body runs a backward pass and an optimizer step (``loss.backward()``, ``opt.step()``): a training
    loop, each pass reading the parameters the previous one updated."""
    calls = set()
    stack = list(loop.body)
    while stack:
        n = stack.pop()
        if isinstance(n, _SKIP):
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            calls.add(n.func.attr)
        stack.extend(ast.iter_child_nodes(n))
    return "step" in calls and "backward" in calls
