"""A small expression type for the arithmetic of Coq goals: parsed from the goal's text, printed back.

Why its own type: a proposer's computed argument (a value, a witness, coefficients, a factor)
comes from a computer-algebra system, and whatever reaches Coq must be text we wrote ourselves,
never a string the CAS printed (docs/ARCHITECTURE.md §Proposers). So the goal's arithmetic is
parsed into `Expr`/`Prop` trees, converted to sympy (`to_sympy`) and back (`from_sympy`, which
accepts only the shapes below and raises `Unsupported` on anything else), and printed by
`coq` with full parentheses where precedence needs them and a scope delimiter on every printed
proposition (`(x = 19)%R`), so numerals mean what the proposer meant whatever scope the header
opened.

Shapes: numerals (integers; rationals print as `p / q`), variables, `+ - * / ^` (`^` with a nat
exponent), unary minus, `/ x` (Rinv), and the functions sqrt, ln, exp, Rabs, INR, IZR, `Z.of_nat`,
plus applications of the goal's own functions (`f x`, `a n`). Relations `= <> < <= > >=`, chained
`a <= b <= c`, and `/\\`, `\\/`, `~`. Anything else — `mod`, `Nat.gcd`, quantifiers, `fun` — is
`Unsupported`: a proposer that meets it proposes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Union


class Unsupported(ValueError):
    """The text or CAS result is outside the shapes this module reads and prints."""


#: functions of one real argument the printer and sympy both know (Coq name → sympy name)
REAL_FUNCTIONS = {"sqrt": "sqrt", "ln": "log", "exp": "exp", "Rabs": "Abs"}
#: casts into R or Z: transparent to the CAS (the argument's symbol carries its integrality)
CASTS = {"INR": "R", "IZR": "R", "Z.of_nat": "Z"}


@dataclass(frozen=True)
class Num:
    value: Fraction


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Neg:
    arg: "Expr"


@dataclass(frozen=True)
class Bin:
    """`left op right`, op one of + - * / ^."""

    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class App:
    """`func arg …`: a known function (sqrt, INR, …) or one of the goal's own (`f x`)."""

    func: str
    args: tuple["Expr", ...]


Expr = Union[Num, Var, Neg, Bin, App]


@dataclass(frozen=True)
class Rel:
    """`left op right`, op one of = <> < <= > >=."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Conn:
    """`left op right`, op `/\\` or `\\/`."""

    op: str
    left: "Prop"
    right: "Prop"


@dataclass(frozen=True)
class Not:
    arg: "Prop"


Prop = Union[Rel, Conn, Not]

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*)|(<>|<=|>=|/\\|\\/|[-+*/^()=<>~,%]))")
_RELATIONS = ("=", "<>", "<", "<=", ">", ">=")
_SCOPES = ("R", "Z", "nat", "N", "Q", "positive")
#: binding powers (Coq levels, inverted: higher binds tighter)
_INFIX = {"+": (10, "left"), "-": (10, "left"), "*": (20, "left"), "/": (20, "left"), "^": (40, "right")}
_KEYWORDS = {"forall", "exists", "fun", "let", "in", "if", "then", "else", "match", "with", "end", "mod", "div"}


def tokenize(text: str) -> list[str]:
    """The tokens of an arithmetic text; `Unsupported` on a character outside the grammar.
    Scope delimiters (`%R`, `%Z`, `%nat`) are dropped: `to_sympy` types by the variables."""
    tokens, pos, text = [], 0, text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise Unsupported(f"unexpected text {text[pos:pos + 12]!r}")
        tokens.append(match.group(match.lastindex))
        pos = match.end()
        if tokens[-1] == "%":
            tokens.pop()
            scope = _TOKEN.match(text, pos)
            if not scope or scope.group(2) not in _SCOPES:
                raise Unsupported("unknown scope delimiter")
            pos = scope.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise Unsupported(f"expected {expected or 'a token'}, found {token!r}")
        self.pos += 1
        return token

    def done(self) -> None:
        if self.peek() is not None:
            raise Unsupported(f"unexpected {self.peek()!r}")

    # propositions: \/ (85, right) > /\ (80, right) > ~ (75) > relations (70)
    def prop(self) -> Prop:
        left = self.conj()
        if self.peek() == "\\/":
            self.take()
            return Conn("\\/", left, self.prop())
        return left

    def conj(self) -> Prop:
        left = self.negation()
        if self.peek() == "/\\":
            self.take()
            return Conn("/\\", left, self.conj())
        return left

    def negation(self) -> Prop:
        if self.peek() == "~":
            self.take()
            return Not(self.negation())
        if self.peek() == "(" and self._parenthesised_prop():
            self.take("(")
            inner = self.prop()
            self.take(")")
            return inner
        return self.relation()

    def _parenthesised_prop(self) -> bool:
        """Whether the `(` here opens a proposition: its matching `)` encloses a relation or connective."""
        depth = 0
        for token in self.tokens[self.pos:]:
            depth += token == "("
            depth -= token == ")"
            if depth == 0:
                return False
            if depth == 1 and token in (*_RELATIONS, "/\\", "\\/", "~"):
                return True
        return False

    def relation(self) -> Prop:
        left = self.expr()
        op = self.peek()
        if op not in _RELATIONS:
            raise Unsupported(f"expected a relation, found {op!r}")
        self.take()
        middle = self.expr()
        if self.peek() in ("<", "<=") and op in ("<", "<="):  # a <= b <= c
            op2 = self.take()
            return Conn("/\\", Rel(op, left, middle), Rel(op2, middle, self.expr()))
        return Rel(op, left, middle)

    def expr(self, min_power: int = 0) -> Expr:
        left = self.prefix()
        while (op := self.peek()) in _INFIX:
            power, assoc = _INFIX[op]
            if power < min_power:
                break
            self.take()
            right = self.expr(power + 1 if assoc == "left" else power)
            left = Bin(op, left, right)
        return left

    def prefix(self) -> Expr:
        token = self.peek()
        if token == "-":
            self.take()
            return Neg(self.expr(30))  # Coq: `- x` at level 35, above * and /, below ^
        if token == "/":
            self.take()
            return Bin("/", Num(Fraction(1)), self.expr(30))
        return self.application()

    def application(self) -> Expr:
        head = self.atom()
        if isinstance(head, Var):
            args = []
            while self.peek() is not None and (self.peek() == "(" or _is_name(self.peek()) or self.peek()[0].isdigit()):
                args.append(self.atom())
            if args:
                return App(head.name, tuple(args))
        return head

    def atom(self) -> Expr:
        token = self.take()
        if token == "(":
            inner = self.expr()
            self.take(")")
            return inner
        if token[0].isdigit():
            if "." in token:
                raise Unsupported("decimal literal")
            return Num(Fraction(int(token)))
        if _is_name(token):
            return Var(token)
        raise Unsupported(f"unexpected {token!r}")


def _is_name(token: str) -> bool:
    return bool(re.match(r"[A-Za-z_]", token)) and token not in _KEYWORDS


def parse_expr(text: str) -> Expr:
    """An arithmetic expression; `Unsupported` when the text is not one."""
    parser = _Parser(text)
    out = parser.expr()
    parser.done()
    return out


def parse_prop(text: str) -> Prop:
    """A proposition over arithmetic expressions; `Unsupported` otherwise."""
    parser = _Parser(text)
    out = parser.prop()
    parser.done()
    return out


def number(value: Fraction | int) -> Expr:
    """A signed rational as a tree: `Num` for v >= 0, `Neg(Num(-v))` below (`Num` holds no sign)."""
    value = Fraction(value)
    return Num(value) if value >= 0 else Neg(Num(-value))


def one_of(left: Expr, values) -> Prop:
    """`left = v1 \\/ (left = v2 \\/ …)`: the right-nested disjunction a case split destructs."""
    values = list(values)
    prop: Prop = Rel("=", left, number(values[-1]))
    for value in reversed(values[:-1]):
        prop = Conn("\\/", Rel("=", left, number(value)), prop)
    return prop


def substitute(node, values: dict[str, Expr]):
    """A tree (expression or proposition) with the named variables replaced by their values."""
    if isinstance(node, Var):
        return values.get(node.name, node)
    if isinstance(node, (Neg, Not)):
        return type(node)(substitute(node.arg, values))
    if isinstance(node, (Bin, Rel, Conn)):
        return type(node)(node.op, substitute(node.left, values), substitute(node.right, values))
    if isinstance(node, App):
        return App(node.func, tuple(substitute(a, values) for a in node.args))
    return node


def variables(node: Expr | Prop) -> list[str]:
    """The variable names of a tree, in order of first appearance (function names excluded)."""
    out: dict[str, None] = {}

    def walk(n) -> None:
        if isinstance(n, Var):
            out.setdefault(n.name)
        elif isinstance(n, (Neg, Not)):
            walk(n.arg)
        elif isinstance(n, (Bin, Rel, Conn)):
            walk(n.left)
            walk(n.right)
        elif isinstance(n, App):
            for arg in n.args:
                walk(arg)

    walk(node)
    return list(out)


def functions(node: Expr | Prop) -> list[str]:
    """Names applied as functions in a tree (sqrt, INR, the goal's own `f`), first appearance first."""
    out: dict[str, None] = {}

    def walk(n) -> None:
        if isinstance(n, App):
            out.setdefault(n.func)
            for arg in n.args:
                walk(arg)
        elif isinstance(n, (Neg, Not)):
            walk(n.arg)
        elif isinstance(n, (Bin, Rel, Conn)):
            walk(n.left)
            walk(n.right)

    walk(node)
    return list(out)


# ---------------------------------------------------------------- printing


def _num(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator) if value >= 0 else f"- {-value.numerator}"
    sign = "- " if value < 0 else ""
    return f"{sign}{abs(value.numerator)} / {value.denominator}"


def _power(node: Expr) -> int:
    """The binding power of a node's top operator (higher binds tighter)."""
    if isinstance(node, Bin):
        return _INFIX[node.op][0]
    if isinstance(node, Neg) or (isinstance(node, Num) and node.value < 0):
        return 30
    if isinstance(node, Num) and node.value.denominator != 1:
        return 20
    if isinstance(node, App):
        return 50
    return 60


def coq(node: Expr) -> str:
    """Coq text of an expression, parenthesised where Coq's levels need it."""
    if isinstance(node, Num):
        return _num(node.value)
    if isinstance(node, Var):
        return node.name
    if isinstance(node, Neg):
        inner = coq(node.arg)
        return f"- {inner}" if _power(node.arg) > 30 else f"- ({inner})"
    if isinstance(node, App):
        return node.func + "".join(" " + (coq(a) if _power(a) > 50 else f"({coq(a)})") for a in node.args)
    power, assoc = _INFIX[node.op]
    left, right = coq(node.left), coq(node.right)
    left_power, right_power = _power(node.left), _power(node.right)
    if left_power < power or (assoc == "right" and left_power == power):
        left = f"({left})"
    if right_power < power or (assoc == "left" and right_power == power):
        right = f"({right})"
    if node.op == "^" and not (isinstance(node.right, Num) and node.right.value.denominator == 1
                               and node.right.value >= 0):
        raise Unsupported("a power's exponent must be a nat numeral")
    return f"{left} {node.op} {right}"


def coq_prop(node: Prop, scope: str | None = None) -> str:
    """Coq text of a proposition; with `scope` (R, Z, nat) wrapped as `(…)%scope`, so its numerals
    and operators are read in that scope whatever the file opened."""
    if isinstance(node, Rel):
        text = f"{coq(node.left)} {node.op} {coq(node.right)}"
    elif isinstance(node, Not):
        text = f"~ ({coq_prop(node.arg)})"
    else:
        text = f"({coq_prop(node.left)}) {node.op} ({coq_prop(node.right)})"
    return f"({text})%{scope}" if scope else text


def coq_scoped(node: Expr, scope: str) -> str:
    """An expression as `(…)%scope`: a term argument (`exists`, `pose proof (H 3)`) read in a scope."""
    return f"({coq(node)})%{scope}"


# ---------------------------------------------------------------- sympy


def to_sympy(node: Expr | Prop, types: dict[str, str]):
    """The sympy form of a tree. `types` maps variable names to Coq types (R, Z, nat): an R
    variable becomes a real symbol, a Z one an integer, a nat one a nonnegative integer. A
    proposition becomes a sympy relational / boolean. The goal's own functions become
    undefined sympy functions."""
    import sympy

    def symbol(name: str):
        kind = types.get(name, "R")
        if kind == "nat":
            return sympy.Symbol(name, integer=True, nonnegative=True)
        if kind in ("Z", "N", "positive"):
            return sympy.Symbol(name, integer=True)
        return sympy.Symbol(name, real=True)

    def walk(n):
        if isinstance(n, Num):
            return sympy.Rational(n.value.numerator, n.value.denominator)
        if isinstance(n, Var):
            return symbol(n.name)
        if isinstance(n, Neg):
            return -walk(n.arg)
        if isinstance(n, Bin):
            a, b = walk(n.left), walk(n.right)
            if n.op == "/" and _integral(n, types):
                raise Unsupported("integer division")
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
                    "^": lambda: a ** b}[n.op]()
        if isinstance(n, App):
            if n.func in CASTS and len(n.args) == 1:
                return walk(n.args[0])
            if n.func in REAL_FUNCTIONS and len(n.args) == 1:
                return getattr(sympy, REAL_FUNCTIONS[n.func])(walk(n.args[0]))
            return sympy.Function(n.func)(*(walk(a) for a in n.args))
        if isinstance(n, Rel):
            a, b = walk(n.left), walk(n.right)
            return {"=": sympy.Eq, "<>": sympy.Ne, "<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt,
                    ">=": sympy.Ge}[n.op](a, b, evaluate=False)
        if isinstance(n, Conn):
            return (sympy.And if n.op == "/\\" else sympy.Or)(walk(n.left), walk(n.right), evaluate=False)
        if isinstance(n, Not):
            return sympy.Not(walk(n.arg), evaluate=False)
        raise Unsupported(f"unknown node {n!r}")

    return walk(node)


def _integral(node: Expr, types: dict[str, str]) -> bool:
    """Whether an expression is of an integer type (nat/Z): no real variable, cast or function."""
    names = variables(node)
    if any(f in REAL_FUNCTIONS or CASTS.get(f) == "R" for f in functions(node)):
        return False
    return bool(names) and all(types.get(n, "R") in ("nat", "Z", "N", "positive") for n in names)


def from_sympy(value, names: dict[str, str] | None = None) -> Expr:
    """An `Expr` from a sympy expression of the supported shapes, else `Unsupported`: integers,
    rationals, symbols, +, *, integer powers (negative ones as division), sqrt, log (ln), exp, Abs.
    `names` maps sympy symbol names back to Coq names (default: the same)."""
    import sympy

    names = names or {}

    def walk(v) -> Expr:
        if v.is_Rational:
            return number(Fraction(int(v.p), int(v.q)))
        if v.is_Symbol:
            return Var(names.get(v.name, v.name))
        if v.is_Add:
            terms = sorted(v.args, key=sympy.default_sort_key)
            out = walk(terms[0])
            for term in terms[1:]:
                coefficient, rest = term.as_coeff_Mul()
                if coefficient < 0:
                    out = Bin("-", out, walk(-term))
                else:
                    out = Bin("+", out, walk(term))
            return out
        if v.is_Mul:
            coefficient, rest = v.as_coeff_Mul()
            if coefficient < 0:
                return Neg(walk(-v))
            numerator, denominator = sympy.fraction(v)
            if denominator != 1:
                return Bin("/", walk(numerator), walk(denominator))
            factors = sorted(v.args, key=lambda f: (not f.is_Number, sympy.default_sort_key(f)))
            out = walk(factors[0])
            for factor in factors[1:]:
                out = Bin("*", out, walk(factor))
            return out
        if v.is_Pow:
            base, exponent = v.args
            if exponent == sympy.Rational(1, 2):
                return App("sqrt", (walk(base),))
            if exponent.is_Integer and exponent > 0:
                return Bin("^", walk(base), Num(Fraction(int(exponent))))
            if exponent.is_Integer and exponent < 0:
                return Bin("/", Num(Fraction(1)), walk(base ** -exponent))
            raise Unsupported(f"power {exponent}")
        if isinstance(v, sympy.log) and len(v.args) == 1:
            return App("ln", (walk(v.args[0]),))
        if isinstance(v, sympy.exp):
            return App("exp", (walk(v.args[0]),))
        if isinstance(v, sympy.Abs):
            return App("Rabs", (walk(v.args[0]),))
        raise Unsupported(f"sympy shape {type(v).__name__}")

    return walk(sympy.sympify(value))


__all__ = ["App", "Bin", "Conn", "Expr", "Neg", "Not", "Num", "Prop", "Rel", "Unsupported", "Var", "coq",
           "coq_prop", "coq_scoped", "from_sympy", "functions", "number", "one_of", "parse_expr", "parse_prop",
           "substitute", "to_sympy", "variables"]
