"""Building Python values from the C parser's events: ruamel.yaml's safe loader without a node tree.

ruamel.yaml's C extension scans and parses, but its safe loader then composes a node tree and
walks it with Python constructors, which is most of the load's cost. Data files use a
small part of YAML: mappings, sequences and scalars, no tags, anchors, merge keys or duplicate
keys. For those this module builds the values straight from the parser's events, resolving each
plain scalar with ruamel's own resolver and constructing non-strings with ruamel's own
constructors, or for plainly written numbers with ``int`` and ``float``, which is what those
constructors come down to (and remembering the answers: the same words recur in every file).

Anything outside that subset, and every error, is handed to the stock loader, which produces
the value or the error it always did. ``tests/scale/test_fastyaml.py`` checks both give the same
result on every data file in the repository and on generated documents.
"""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.nodes import ScalarNode

_PREFIX = "tag:yaml.org,2002:"
_STR = _PREFIX + "str"
_INT, _FLOAT = _PREFIX + "int", _PREFIX + "float"
# Tags whose constructors return a plain immutable value from the scalar alone.
_SCALAR_TAGS = {_STR, _PREFIX + "null", _PREFIX + "bool", _INT, _FLOAT, _PREFIX + "timestamp"}
# Numbers written plainly. Under YAML 1.2 the resolver tags a plain scalar of the first form int
# and one of the second float: of its patterns, only its int one (``[-+]?[0-9_]+``) matches the
# first form (each float pattern needs a '.', an exponent, .inf or .nan; a timestamp, a '-' after
# four digits), and only its first float one the second (int patterns allow no '.'). Its
# constructors return Python's ``int`` and ``float`` of such text (they only strip '_', handle
# 0x/0o/0b, .inf and .nan, and look for 1.1's sexagesimal and octal forms, none of which match
# here). Numbers rarely repeat, so they skip the memo, and the patterns: resolving a number and
# remembering it costs more than reading it, for an answer seldom asked for again.
_PLAIN_INT = re.compile(r"[-+]?[0-9]+\Z")
_PLAIN_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?\Z")
_MEMO_LIMIT = 200_000


class _Outside(Exception):
    """The document uses something this module leaves to the stock loader."""


class EventLoader:
    """Loads with the same resolver and constructor objects the stock ``yaml`` loader uses."""

    def __init__(self, yaml: YAML):
        self.stock = yaml
        self.parser_class = yaml.Parser
        self.resolver = yaml.Resolver(loader=None)
        self.constructor = yaml.constructor
        # (text, implicit) -> (value,): a plain scalar's value depends on nothing else.
        self.memo: dict[tuple[str, tuple[bool, bool]], tuple[Any]] = {}
        # tag -> a scalar node whose value is set before each use: a new node turns its tag into a
        # Tag object, which the constructor turns back into text, costing more than the
        # constructor itself.
        self.nodes: dict[str, ScalarNode] = {}
        # First character -> the resolver's (tag, pattern's match) to try, in its order. The table
        # is this resolver's own, for its one version: it never changes once built. Asking it for
        # every scalar, and each pattern through its lazy wrapper, cost more than the matching.
        self.candidates: dict[str, list[tuple[str, Any]]] = {}
        # The C parser's resolver always answers 1.2 (``yaml_reading._CParserResolver``); path resolvers
        # (none, here) would tag by position rather than by text.
        self.plain_numbers = (self.constructor.resolver.processing_version == (1, 2)
                              and not self.resolver.yaml_path_resolvers)

    def load(self, text: str) -> Any:
        try:
            return self._load(text)
        except Exception:  # noqa: BLE001 - whatever went wrong, the stock loader decides
            return self.stock.load(text)

    def _new_scalar(self, event: ScalarEvent) -> Any:
        """The value of a plain scalar not in the memo yet, which is remembered unless it is a
        number written plainly (see ``_PLAIN_INT``)."""
        if self.plain_numbers and event.implicit[0]:
            if _PLAIN_INT.match(event.value):
                return int(event.value)
            if _PLAIN_FLOAT.match(event.value):
                return float(event.value)
        tag = self._resolve(event.value, event.implicit)
        if tag == _STR:
            value = event.value
        elif tag in _SCALAR_TAGS:
            value = self._construct(tag, event.value)
        else:
            raise _Outside(tag)  # merge keys ("<<"), value keys ("="), ...
        if len(self.memo) >= _MEMO_LIMIT:
            self.memo.clear()
        self.memo[(event.value, event.implicit)] = (value,)
        return value

    def _construct(self, tag: str, text: str) -> Any:
        """The stock constructor's value for a scalar of one of ``_SCALAR_TAGS``."""
        node = self.nodes.get(tag)
        if node is None:
            node = self.nodes[tag] = ScalarNode(tag, None)
        node.value = text
        return self.constructor.construct_non_recursive_object(node, tag)

    def _resolve(self, value: str, implicit: tuple[bool, bool]) -> str:
        """``str(resolver.resolve(ScalarNode, value, implicit))`` without building a Tag object:
        the same table of (tag, pattern) by first character, tried in the same order."""
        resolver = self.resolver
        if resolver.yaml_path_resolvers:
            return str(resolver.resolve(ScalarNode, value, implicit))
        if implicit[0]:
            first = value[0] if value else ""
            candidates = self.candidates.get(first)
            if candidates is None:
                table = resolver.versioned_resolver
                candidates = self.candidates[first] = [
                    (tag, pattern.match) for tag, pattern in table.get(first, []) + table.get(None, [])]
            for tag, match in candidates:
                if match(value):
                    return tag
        return _STR

    def _load(self, text: str) -> Any:
        parser = self.parser_class(text)
        get = parser.get_event
        get()  # StreamStartEvent
        if type(get()) is not DocumentStartEvent:
            raise _Outside("no document")
        remembered, new_scalar = self.memo.get, self._new_scalar
        # Each open collection: [container, pending key, whether a key is pending].
        stack: list[list[Any]] = []
        root = None
        while True:
            event = get()
            kind = type(event)
            # ``ctag`` is the tag as parsed; ``tag``, a property, only turns it into text.
            if kind is ScalarEvent:
                if event.ctag is not None or event.anchor is not None:
                    raise _Outside("tag or anchor")
                known = remembered((event.value, event.implicit))
                value = known[0] if known is not None else new_scalar(event)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                if event.ctag is not None or event.anchor is not None:
                    raise _Outside("tag or anchor")
                stack.append([{} if kind is MappingStartEvent else [], None, False])
                continue
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                value = stack.pop()[0]
            elif kind is DocumentEndEvent:
                break
            else:
                raise _Outside(kind.__name__)  # aliases, and anything unforeseen
            if not stack:
                root = value
                continue
            top = stack[-1]
            container = top[0]
            if type(container) is list:
                container.append(value)
            elif top[2]:
                container[top[1]] = value
                top[2] = False
            else:
                # Only scalar keys, each once: the stock loader reports duplicates and handles the rest.
                if type(value) in (dict, list) or value in container:
                    raise _Outside("key")
                top[1] = value
                top[2] = True
        if type(get()) is not StreamEndEvent:
            raise _Outside("more than one document")
        return root
