"""A training's printed arguments (`Namespace(lr=0.1, ...)`, `{'lr': 0.1, ...}`) -> a config dict.

Text logs print their run's arguments as Python writes them: argparse's `Namespace(...)` repr
(fairseq up to 0.10) or a dict repr (newer fairseq prints its config dict, which may hold a
`Namespace(...)` under a key). A JSON object is read as JSON. Nothing is evaluated: the text is
parsed (`ast.parse`, which runs no code) and only literals are taken, typed as Python's literal
syntax gives them (strings, numbers, booleans, None -> null, lists and tuples -> lists, nested
dicts and Namespaces -> nested objects, as the input contract's `config` allows).

A value that is no literal (`inf`, `device(type='cuda')`, `<function f at 0x...>`) is kept as its
text, a string, and its key is named in `ConfigDump.raw_keys`. A dump that does not parse as a
whole (such a `<...>` repr, a line cut short) is read item by item at its top level, so one bad
value loses nothing else; what could not be read at all is named in `ConfigDump.problems`.
"""

from __future__ import annotations

import ast
import io
import json
import math
import re
import tokenize
from dataclasses import dataclass, field

_NAMESPACE_ITEM = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)", re.DOTALL)
_DICT_ITEM = re.compile(r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*:(.*)""", re.DOTALL)
_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


@dataclass
class ConfigDump:
    """What a dump gave: the config, its form, and what it could not type or read."""

    config: dict = field(default_factory=dict)
    form: str = "unknown"  # namespace | dict | json | unknown
    raw_keys: list[str] = field(default_factory=list)  # values that are no literals, kept as their text
    problems: list[str] = field(default_factory=list)  # what was not read at all

    @property
    def complete(self) -> bool:
        return not self.raw_keys and not self.problems


def parse_config_dump(text: str) -> ConfigDump:
    """The config a printed Namespace, dict or JSON object states (never raises)."""
    text = text.strip()
    form = "namespace" if text.startswith("Namespace(") else "dict" if text.startswith("{") else "unknown"
    if form == "dict":
        try:
            loaded = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            loaded = None
        if isinstance(loaded, dict) and _encodable(json.dumps(loaded, ensure_ascii=False)):
            return ConfigDump(loaded, "json")
    if form == "unknown":
        return ConfigDump(form=form, problems=["not a Namespace(...) or {...} dump"])
    dump = ConfigDump(form=form)
    try:
        tree = ast.parse(text, mode="eval")
    except _PARSE_ERRORS:
        tree = None
    if tree is not None:
        value = _Converter(text, dump).convert(tree.body, "")
        if isinstance(value, dict):
            dump.config = value
            return dump
        dump.raw_keys.clear()
    _read_items(text, dump)
    return dump


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


class _Converter:
    """Literal AST nodes -> JSON values; anything else -> its source text (named in raw_keys)."""

    def __init__(self, text: str, dump: ConfigDump) -> None:
        self.text = text
        self.dump = dump

    def raw(self, node: ast.AST, key: str) -> str:
        self.dump.raw_keys.append(key or "(the whole dump)")
        return ast.get_source_segment(self.text, node) or ""

    def convert(self, node: ast.AST, key: str):
        if isinstance(node, ast.Constant):
            return self.constant(node, key)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = node.operand
            if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
                number = -operand.value if isinstance(node.op, ast.USub) else operand.value
                if math.isfinite(number):
                    return number
            return self.raw(node, key)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return [self.convert(item, f"{key}[{index}]") for index, item in enumerate(node.elts)]
        if isinstance(node, ast.Dict):
            out = {}
            for key_node, value_node in zip(node.keys, node.values, strict=True):
                if isinstance(key_node, ast.Constant) and isinstance(key_node.value, str | int | float | bool):
                    name = str(key_node.value)
                else:  # `**spread` or a key that is no literal: the whole item as text
                    name = ast.get_source_segment(self.text, key_node) if key_node is not None else "**"
                out[name] = self.convert(value_node, _join(key, name))
            return out
        if self.is_namespace(node):
            return {kw.arg: self.convert(kw.value, _join(key, kw.arg)) for kw in node.keywords}
        return self.raw(node, key)

    def constant(self, node: ast.Constant, key: str):
        value = node.value
        if isinstance(value, str) and not _encodable(value):
            return self.raw(node, key)  # a lone surrogate: JSON text in UTF-8 cannot hold it
        if value is None or isinstance(value, bool | int | str):
            return value
        if isinstance(value, float) and math.isfinite(value):
            return value
        return self.raw(node, key)  # bytes, complex, Ellipsis, 1e999

    @staticmethod
    def is_namespace(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Namespace"
            and not node.args
            and all(kw.arg is not None for kw in node.keywords)
        )


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def _read_items(text: str, dump: ConfigDump) -> None:
    """Item by item at the top level of a dump that does not parse as a whole."""
    items, complete = _top_level_items(text)
    pattern = _NAMESPACE_ITEM if dump.form == "namespace" else _DICT_ITEM
    for item in items:
        if not item.strip():
            continue
        match = pattern.fullmatch(item)
        if not match:
            dump.problems.append(f"unreadable item {_shorten(item.strip())!r}")
            continue
        name = match.group(1) if dump.form == "namespace" else ast.literal_eval(match.group(1))
        value_text = match.group(2).strip()
        try:
            tree = ast.parse(value_text, mode="eval")
        except _PARSE_ERRORS:
            dump.raw_keys.append(name)
            dump.config[name] = value_text
            continue
        dump.config[name] = _Converter(value_text, dump).convert(tree.body, name)
    if not complete:
        dump.problems.append("the dump ends before its closing bracket (a cut line?): its last item is not read")


def _top_level_items(text: str) -> tuple[list[str], bool]:
    """The texts between the top-level commas of `Namespace(...)` or `{...}`; and whether the
    closing bracket was reached (a cut line loses its last, unfinished item)."""
    items: list[str] = []
    depth, start = 0, None
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.OP or token.start[0] != 1:
                continue
            if token.string in "([{":
                depth += 1
                if depth == 1:
                    start = token.end[1]
            elif token.string in ")]}":
                depth -= 1
                if depth == 0:
                    items.append(text[start : token.start[1]])
                    return items, True
            elif token.string == "," and depth == 1:
                items.append(text[start : token.start[1]])
                start = token.end[1]
    except (tokenize.TokenError, SyntaxError):
        pass
    return items, False


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
