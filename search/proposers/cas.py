"""The computer-algebra layer every computed proposer shares: a bounded CAS call, a per-goal cache,
the numeric check, and the reader of a goal's arithmetic into sympy.

Why here: a proposer's arguments come from sympy (a solution, a witness, coefficients), and sympy
can run for minutes on an innocent-looking system, so every call is bounded (`bounded`) and its
result cached per goal text (`per_goal`): one expansion asks every proposer about the same goal, and
the search meets the same goal text again after a failed sibling. A CAS answer is only a guess until
Coq checks it; the numeric check (`holds_numerically`, `consistent`) drops a proposed fact that is
false at the hypotheses' solutions or at sampled points, so a wrong guess costs no prover time.

The goal reader (`read_goal`) turns a `GoalContext` into typed sympy facts: each hypothesis and
premise (under its name after `intros`) and the conclusion, parsed by `search.proposers.expr`, with
the variables typed by `GoalContext.variables` (R → real, Z → integer, nat → nonnegative integer);
a fact that does not parse is skipped, never an error.

Cost: reading a goal is ~1–5 ms (cached); `bounded` adds ~10 µs around the call.
"""

from __future__ import annotations

import functools
import math
import random
import signal
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, TypeVar

from search.proposers.base import GoalContext
from search.proposers.expr import (CASTS, App, Bin, Conn, Expr, Neg, Not, Num, Prop, Unsupported, Var, parse_prop,
                                   to_sympy, variables)

T = TypeVar("T")

#: the default bound of one CAS call, seconds (the shared rule: the CAS ≤ ~0.5 s per goal)
CAS_SECONDS = 0.5
#: the Coq types the reader knows; anything else (a function type, Q, bool) is not a variable of the CAS
INTEGRAL = ("nat", "Z", "N", "positive")
NUMERIC_TYPES = ("R", *INTEGRAL)


class _Alarm(BaseException):
    """Raised by the timer inside the bounded call: a BaseException, so sympy's own broad
    `except Exception` blocks cannot swallow it; `bounded` turns it into `TimeoutError`."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Alarm()


_warm = False


def warm_up() -> None:
    """Import sympy and run one small solve and Gröbner basis, unbounded (~1 s, once per process):
    sympy's first calls build caches and import submodules, and a cold first call would otherwise
    spend its bound on that and time out. `bounded` calls it before its first bounded call."""
    global _warm
    if _warm:
        return
    import sympy
    x, y = sympy.symbols("x y", real=True)
    sympy.solve([x ** 2 - 4, x + y - 1], [x, y], dict=True)
    sympy.groebner([x ** 2 - 4, x * y - 1], y, x, order="lex")
    sympy.linsolve([x + y - 1], [x, y])
    _warm = True


def bounded(fn: Callable[..., T], seconds: float = CAS_SECONDS, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, stopped after `seconds` with `TimeoutError` (which `Proposer.tactics`
    treats as a skipped proposer).

    On the main thread (where searches run) a SIGALRM timer interrupts the computation itself; the
    previous handler and any outer timer are restored afterwards (an outer timer's remaining time
    shrinks by the time spent here; nested bounded calls work). Off the main thread signals are not
    available: the call runs in a daemon thread and we stop *waiting* after `seconds` — the thread
    may run on in the background until sympy finishes (its result is discarded). The process's
    first call warms sympy up first (`warm_up`), outside the bound."""
    warm_up()
    if threading.current_thread() is threading.main_thread():
        return _bounded_by_signal(fn, seconds, args, kwargs)
    return _bounded_by_thread(fn, seconds, args, kwargs)


def _bounded_by_signal(fn: Callable[..., T], seconds: float, args: tuple, kwargs: dict) -> T:
    outer_delay, _ = signal.getitimer(signal.ITIMER_REAL)
    if outer_delay and outer_delay <= seconds:  # an outer bound fires first: let it
        return fn(*args, **kwargs)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        try:
            return fn(*args, **kwargs)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Alarm:  # also an alarm that fires after `fn` returned, before the timer was cleared
        raise TimeoutError(f"CAS call over {seconds} s") from None
    finally:
        signal.signal(signal.SIGALRM, previous)
        if outer_delay:
            signal.setitimer(signal.ITIMER_REAL, max(1e-3, outer_delay - (time.monotonic() - started)))


def _bounded_by_thread(fn: Callable[..., T], seconds: float, args: tuple, kwargs: dict) -> T:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as error:  # handed to the caller below
            box["error"] = error

    worker = threading.Thread(target=run, name="cas-bounded", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError(f"CAS call over {seconds} s (the thread runs on)")
    if "error" in box:
        raise box["error"]
    return box["value"]


def per_goal(maxsize: int = 2048) -> Callable[[Callable[[GoalContext], T]], Callable[[GoalContext], T]]:
    """A decorator caching a function of one goal by the goal's text (LRU, `maxsize` goals).
    Exceptions are cached too (a goal out of the shape is not read again), except `TimeoutError`:
    a CAS call that ran out of time on a loaded machine is tried again when the goal comes back."""

    def wrap(fn: Callable[[GoalContext], T]) -> Callable[[GoalContext], T]:
        cache: OrderedDict[str, tuple[bool, Any]] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(fn)
        def cached(context: GoalContext) -> T:
            key = context.text
            with lock:
                if key in cache:
                    cache.move_to_end(key)
                    ok, value = cache[key]
                    if ok:
                        return value
                    raise value
            try:
                result: tuple[bool, Any] = (True, fn(context))
            except TimeoutError:
                raise
            except Exception as error:
                result = (False, error)
            with lock:
                cache[key] = result
                while len(cache) > maxsize:
                    cache.popitem(last=False)
            if result[0]:
                return result[1]
            raise result[1]

        cached.cache_clear = cache.clear  # type: ignore[attr-defined]
        return cached

    return wrap


# ---------------------------------------------------------------- the numeric check

Number = float | int | Fraction
#: relative tolerance of a numeric `=` (values computed in floats; sqrt and division round)
TOLERANCE = 1e-7


def evaluate(node: Expr, point: Mapping[str, Number], types: Mapping[str, str] | None = None) -> Fraction | float:
    """The value of an expression at a point — exact (a `Fraction`) while only rationals and integer
    powers are involved, a float once sqrt/ln/exp are — with Coq's conventions where they differ from
    the textbook: `sqrt` of a negative is 0, `ln` of a non-positive is 0, nat subtraction truncates
    at 0. `Unsupported` for an unknown variable or function, a division by zero, an integer division,
    a power that overflows."""
    types = types or {}

    def walk(n: Expr) -> Fraction | float:
        if isinstance(n, Num):
            return n.value
        if isinstance(n, Var):
            if n.name not in point:
                raise Unsupported(f"no value for {n.name}")
            value = point[n.name]
            return Fraction(value) if isinstance(value, (int, Fraction)) else float(value)
        if isinstance(n, Neg):
            return -walk(n.arg)
        if isinstance(n, Bin):
            return _binary(n, walk(n.left), walk(n.right), types)
        if isinstance(n, App) and len(n.args) == 1:
            return _apply(n.func, walk(n.args[0]))
        raise Unsupported(f"cannot evaluate {n!r}")

    return walk(node)


def _binary(n: Bin, a: Fraction | float, b: Fraction | float, types: Mapping[str, str]) -> Fraction | float:
    if n.op == "+":
        return a + b
    if n.op == "-":
        return max(a - a, a - b) if _is_nat(n, types) else a - b
    if n.op == "*":
        return a * b
    if n.op == "/":
        if b == 0 or _is_integral(n, types):
            raise Unsupported("division by zero or integer division")
        return a / b
    if isinstance(b, Fraction) and b.denominator == 1 and 0 <= b <= 4096 and (
            not isinstance(a, Fraction) or abs(a.numerator) < 2 ** 64):
        return a ** int(b)
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError, ZeroDivisionError) as error:
        raise Unsupported(f"power: {error}") from None


def _apply(func: str, x: Fraction | float) -> Fraction | float:
    if func in CASTS:
        return x
    if func == "sqrt":
        if x <= 0:
            return Fraction(0)
        if isinstance(x, Fraction):
            p, q = math.isqrt(x.numerator), math.isqrt(x.denominator)
            if p * p == x.numerator and q * q == x.denominator:
                return Fraction(p, q)
        return math.sqrt(x)
    if func == "ln":
        return math.log(x) if x > 0 else Fraction(0)
    if func == "exp":
        try:
            return math.exp(x)
        except OverflowError:
            raise Unsupported("exp overflows") from None
    if func == "Rabs":
        return abs(x)
    raise Unsupported(f"cannot evaluate {func}")


def _is_integral(node: Expr, types: Mapping[str, str]) -> bool:
    names = variables(node)
    return bool(names) and all(types.get(name) in INTEGRAL for name in names) and not _has_cast(node)


def _is_nat(node: Expr, types: Mapping[str, str]) -> bool:
    names = variables(node)
    return bool(names) and all(types.get(name) == "nat" for name in names) and not _has_cast(node)


def _has_cast(node: Expr) -> bool:
    if isinstance(node, App):
        return node.func in CASTS or any(_has_cast(a) for a in node.args)
    if isinstance(node, Neg):
        return _has_cast(node.arg)
    if isinstance(node, Bin):
        return _has_cast(node.left) or _has_cast(node.right)
    return False


def holds_numerically(prop: Prop, point: Mapping[str, Number], types: Mapping[str, str] | None = None,
                      tolerance: float = TOLERANCE) -> bool | None:
    """Whether a proposition holds at a point: exactly where both sides are rational, else in floats
    with `=` within a relative `tolerance` and strict inequalities given the same slack (a float
    boundary case is "holds", never a false drop); None when it cannot be evaluated there (an
    unknown name, a division by zero)."""
    try:
        return _holds(prop, point, types or {}, tolerance)
    except Unsupported:
        return None


def _holds(prop: Prop, point: Mapping[str, Number], types: Mapping[str, str], tolerance: float) -> bool:
    if isinstance(prop, Not):
        return not _holds(prop.arg, point, types, tolerance)
    if isinstance(prop, Conn):
        left = _holds(prop.left, point, types, tolerance)
        if prop.op == "/\\":
            return left and _holds(prop.right, point, types, tolerance)
        return left or _holds(prop.right, point, types, tolerance)
    a, b = evaluate(prop.left, point, types), evaluate(prop.right, point, types)
    slack = 0 if isinstance(a, Fraction) and isinstance(b, Fraction) else tolerance * (1.0 + abs(a) + abs(b))
    equal = abs(a - b) <= slack
    return {"=": equal, "<>": not equal, "<": a < b + slack, "<=": a <= b + slack, ">": a > b - slack,
            ">=": a >= b - slack}[prop.op]


def consistent(facts: Iterable[Prop], point: Mapping[str, Number], types: Mapping[str, str] | None = None) -> bool:
    """Whether no fact is definitely false at a point (an unevaluable fact does not count against it)."""
    return all(holds_numerically(fact, point, types) is not False for fact in facts)


def sample_points(facts: list[Prop], types: Mapping[str, str], names: list[str], count: int = 8,
                  tries: int = 400, seed: int = 0) -> list[dict[str, Number]]:
    """Up to `count` points where every fact holds (rejection sampling: reals in [-10, 10] with a bias
    to small integers, Z in [-20, 20], nat in [0, 30]); fewer when the facts are rarely true."""
    rng = random.Random(seed)
    found: list[dict[str, Number]] = []
    for _ in range(tries):
        point: dict[str, Number] = {}
        for name in names:
            kind = types.get(name, "R")
            if kind == "nat":
                point[name] = rng.randint(0, 30)
            elif kind in INTEGRAL:
                point[name] = rng.randint(-20, 20)
            else:
                point[name] = rng.randint(-10, 10) if rng.random() < 0.3 else rng.uniform(-10, 10)
        if all(holds_numerically(fact, point, types) for fact in facts):
            found.append(point)
            if len(found) >= count:
                break
    return found


# ---------------------------------------------------------------- the goal, read into sympy


@dataclass(frozen=True)
class Fact:
    """One arithmetic proposition of a goal: its name after `intros` (None for the conclusion), its
    tree and its sympy form."""

    name: str | None
    prop: Prop
    sym: Any


@dataclass(frozen=True)
class ArithGoal:
    """A goal's arithmetic: the typed variables, the hypotheses that parse, the conclusion if it does.

    Fields:
      types:      name → Coq type (R, Z, nat, …) of every numeric variable in scope after `intros`.
      hypotheses: the context's propositions and the premises (named as after `intros`) that parse.
      conclusion: the conclusion, or None when it does not parse.
      prefix:     `intros; ` when the target still has binders or premises, else empty: a tactic
                  written for the introduced goal begins with it.
    """

    types: dict[str, str]
    hypotheses: tuple[Fact, ...]
    conclusion: Fact | None
    prefix: str

    def symbols(self) -> dict[str, Any]:
        """name → the sympy symbol of every typed variable (as `to_sympy` makes it)."""
        return {name: to_sympy(Var(name), self.types) for name in self.types}

    def scope(self, names: Iterable[str]) -> str:
        """`R` when any of the names is real (or none is typed), `Z` when any is Z, else `nat`."""
        kinds = {self.types.get(name, "R") for name in names}
        if "R" in kinds or not kinds:
            return "R"
        return "Z" if kinds & {"Z", "N", "positive"} else "nat"


def _fact(name: str | None, text: str, types: dict[str, str]) -> Fact | None:
    try:
        prop = parse_prop(text)
        return Fact(name, prop, to_sympy(prop, types))
    except (Unsupported, ValueError, TypeError, ArithmeticError, RecursionError):
        return None
    except Exception:  # sympy's own errors on an odd tree
        return None


@functools.lru_cache(maxsize=2048)
def _read(text: str, context: GoalContext) -> ArithGoal:
    types = {name: kind for name, kind in context.variables.items() if kind in NUMERIC_TYPES}
    hyps = tuple(f for f in (_fact(name, prop, types) for name, prop in context.facts_after_intros()) if f)
    return ArithGoal(types=types, hypotheses=hyps, conclusion=_fact(None, context.conclusion, types),
                     prefix="" if context.introduced else "intros; ")


def read_goal(context: GoalContext) -> ArithGoal:
    """The goal's arithmetic, read once per goal text (see `ArithGoal`)."""
    return _read(context.text, context)


__all__ = ["ArithGoal", "CAS_SECONDS", "Fact", "bounded", "consistent", "evaluate", "holds_numerically", "per_goal",
           "read_goal", "sample_points", "warm_up"]
