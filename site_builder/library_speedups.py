"""The builder's reaches into jinja2, markupsafe and pydantic internals, in one place behind one switch.

Each speedup below does what a public API does, faster, by relying on how the library does it
inside. A minor release may change those insides without notice, so each is named, can be turned
off, and is kept only while it saves at least a second of a cold build of 100,000 synthetic runs
(``benchmarks/library_speedups.py`` measures them; benchmarks/RESULTS.md has the figures).
pyproject.toml pins the minor versions of jinja2, markupsafe and pydantic they were checked against;
``tests/site/test_library_speedups.py`` builds the bundled data with them on and off and requires
every output file to be byte-identical.

The switch: ``build_site(library_speedups=...)`` takes the names to use (``ALL``, ``NONE``, or any
set of ``NAMES``); ``kernelindex build`` reads it from ``KERNELINDEX_LIBRARY_SPEEDUPS``: ``1`` or
unset for all, ``0`` for none, or a comma-separated list of names (used to measure each alone).
With none the builder uses only the libraries' public API: a plain ``jinja2.Environment`` and
``Template.render``, ``markupsafe.escape``, and ``Model.model_construct``.

The speedups, what each relies on, and why it exists:

``fast_escape``
    Printed values go straight to markupsafe's C escaper (the private ``markupsafe._escape_inner``,
    which ``escape`` calls) when they are ``str``, and through ``fast_escape`` otherwise, by
    overriding the code generator's private ``_output_child_pre`` / ``_output_child_post``: the
    ``Markup`` a public ``escape`` returns is built by a Python-level ``__new__`` and then only
    joined into the page. The row helpers of render.py (``value_html``, ``observed_html``) escape
    the same way.
``direct_calls``
    ``{{ f(x) }}`` compiles to ``fast_call`` (an override of the generator's ``visit_Call``) instead
    of ``Context.call``: macros without ``caller``/varargs/kwargs are called through the private
    ``Macro._func`` and ``Macro._argument_count`` (what ``Macro.__call__`` does for them), and plain
    functions directly. ``Context.call`` and ``Macro.__call__`` find out what to pass by a dozen
    attribute checks per call.
``direct_render``
    ``render_template`` makes the context itself from a plain dict of the template's globals and
    calls the template's ``root_render_func`` with ``Environment.concat`` and
    ``handle_exception`` (what ``Template.render`` does, without merging the globals' ChainMap
    into a new dict on every page).
``unchecked_views``
    ``unchecked`` / ``unchecked_page`` fill a pydantic model's four instance slots (``__dict__``,
    ``__pydantic_fields_set__``, ``__pydantic_extra__``, ``__pydantic_private__``) directly, as
    ``model_construct`` fills them, for views built from facts already checked: the ledger makes
    them by the hundred thousand, and ``model_construct`` looks up aliases field by field.

Measured and dropped (each saved less than a second of that build; benchmarks/RESULTS.md): a
block's output gathered in a list and yielded once (a ``blockvisit`` override), ``x.name``
compiled to the builtin ``getattr`` (``visit_Getattr``), loaded templates kept in a plain dict
(``Environment._load_template``), and imported macros' module asked for without the page's
context (``Template._get_default_module``). Jinja's own code does those.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from datetime import date
from types import BuiltinFunctionType, FunctionType, MethodType
from typing import Any, TypeVar

from jinja2 import Environment, Template, nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.runtime import Context, Macro, missing
from markupsafe import Markup, escape

try:  # the C escaper behind ``escape``, without Markup
    from markupsafe import _escape_inner
except ImportError:  # pragma: no cover - a markupsafe without it: the public escaper
    def _escape_inner(text: str) -> str:
        return str(escape(text))

ENV_VAR = "KERNELINDEX_LIBRARY_SPEEDUPS"
NAMES = ("fast_escape", "direct_calls", "direct_render", "unchecked_views")
ALL = frozenset(NAMES)
NONE: frozenset[str] = frozenset()
# Those that change how templates compile, or which environment class loads them.
_JINJA = ALL - {"direct_render", "unchecked_views"}

_active = ALL


def parse_setting(value: str | None) -> frozenset[str]:
    """What ``KERNELINDEX_LIBRARY_SPEEDUPS`` asks for: unset or ``1`` all, ``0`` none, else the
    comma-separated names (an unknown name is a ValueError that lists the known ones)."""
    if value is None or value.strip() in ("", "1"):
        return ALL
    if value.strip() == "0":
        return NONE
    names = frozenset(name.strip() for name in value.split(",") if name.strip())
    unknown = sorted(names - ALL)
    if unknown:
        raise ValueError(f"{ENV_VAR}: unknown speedup {', '.join(unknown)}; use 1, 0 or names from: {', '.join(NAMES)}")
    return names


@contextmanager
def only(names: Collection[str]) -> Iterator[None]:
    """Use ``names`` (and no other speedup) until the block ends. Render workers forked within it
    inherit the choice."""
    global _active, _fast_escape_on, _unchecked_on
    unknown = set(names) - ALL
    if unknown:
        raise ValueError(f"unknown library speedups: {', '.join(sorted(unknown))}")
    saved = _active
    _active = frozenset(names)
    _fast_escape_on, _unchecked_on = "fast_escape" in _active, "unchecked_views" in _active
    try:
        yield
    finally:
        _active = saved
        _fast_escape_on, _unchecked_on = "fast_escape" in _active, "unchecked_views" in _active


def active() -> frozenset[str]:
    return _active


def compiled_tag() -> str:
    """A suffix for the folder of compiled templates: templates compiled with another set of the
    code generator's speedups must not be reused."""
    used = sorted(_active & _JINJA)
    return "" if len(used) == len(_JINJA) else "-" + ("".join(name[0] + name[-1] for name in used) or "plain")


# --- markupsafe: escaping ----------------------------------------------------------------------

_fast_escape_on = True


def escape_text(text: str) -> str:
    """``str(escape(text))`` for a ``str``."""
    return _escape_inner(text) if _fast_escape_on else str(escape(text))


def fast_escape(value: Any) -> str:
    """``str(escape(value))``. What a template prints is only ever joined into the page, so the
    Markup wrapper buys nothing; the characters escaped are the same: ints and floats print
    digits, signs, dots and letters only, dates digits and dashes, and Markup is already escaped."""
    if not _fast_escape_on:
        return str(escape(value))
    kind = type(value)
    if kind is str:
        return _escape_inner(value)
    if kind is Markup:
        return value
    if kind is int or kind is float or kind is date:
        return str(value)
    return escape(value)


# --- jinja2: calls -----------------------------------------------------------------------------

def fast_call(context: Context, callee: Any, *args: Any, **kwargs: Any) -> Any:
    """``context.call(callee, *args, **kwargs)``, with the macros our templates define and plain
    functions called straight."""
    kind = type(callee)
    if kind is Macro and not (callee.caller or callee.catch_kwargs or callee.catch_varargs or callee.explicit_caller
                              or len(args) > callee._argument_count):
        return _call_macro(context, callee, args, kwargs)
    if (kind is FunctionType or kind is MethodType or kind is BuiltinFunctionType) \
            and not hasattr(callee, "jinja_pass_arg"):  # takes no context, as Context.call finds
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        try:
            return callee(*args, **kwargs)
        except StopIteration:  # as Context.call says it
            return context.environment.undefined("value was undefined because a callable raised a"
                                                 " StopIteration exception")
    return context.call(callee, *args, **kwargs)


def _call_macro(context: Context, macro: Macro, args: tuple, kwargs: dict[str, Any]) -> Any:
    """What Macro.__call__ does for a macro without ``caller``, ``varargs`` or ``kwargs``: its
    arguments by position, then by name, ``missing`` for the rest (its defaults), and its text as
    Markup when the template escapes."""
    kwargs.pop("_block_vars", None)
    kwargs.pop("_loop_vars", None)
    arguments = list(args)
    if kwargs or len(arguments) < macro._argument_count:
        arguments.extend(kwargs.pop(name, missing) for name in macro.arguments[len(arguments):])
        if kwargs:  # a name the macro does not take: Macro.__call__ says so
            return macro(context.eval_ctx, *args, **kwargs)
    text = macro._func(*arguments)
    return Markup(text) if context.eval_ctx.autoescape else text


# --- jinja2: the code generator, template and environment ---------------------------------------

class PageCodeGenerator(CodeGenerator):
    """Jinja's code generator with the speedups in use (``fast_escape``, ``direct_calls``), each
    leaving every page's text as it was."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        self.writeline(f"from {__name__} import _escape_inner as escape_text, fast_call, fast_escape")
        super().visit_Template(node, frame)

    # Printed values: text straight to the C escaper, anything else through fast_escape (the value
    # is held in a local, _v, so that it is computed once).
    def _fast_output(self, frame: Frame, finalize: Any) -> bool:
        return ("fast_escape" in _active and frame.eval_ctx.autoescape and not frame.eval_ctx.volatile
                and finalize.src is None)

    def _output_child_pre(self, node: nodes.Expr, frame: Frame, finalize: Any) -> None:
        if self._fast_output(frame, finalize):
            self.write("(escape_text(_v) if type(_v := ")
        else:
            super()._output_child_pre(node, frame, finalize)

    def _output_child_post(self, node: nodes.Expr, frame: Frame, finalize: Any) -> None:
        if self._fast_output(frame, finalize):
            self.write(") is str else fast_escape(_v))")
        else:
            super()._output_child_post(node, frame, finalize)

    @optimizeconst
    def visit_Call(self, node: nodes.Call, frame: Frame, forward_caller: bool = False) -> None:
        # ``f(x)``: Jinja's own call (``context.call(f, x, ...)``, the same arguments), through fast_call.
        if "direct_calls" not in _active or self.environment.is_async or self.environment.sandboxed:
            return super().visit_Call(node, frame, forward_caller=forward_caller)
        self.write("fast_call(context, ")
        self.visit(node.node, frame)
        extra_kwargs = {"caller": "caller"} if forward_caller else {}
        if frame.loop_frame:
            extra_kwargs["_loop_vars"] = "_loop_vars"
        if frame.block_frame:
            extra_kwargs["_block_vars"] = "_block_vars"
        self.signature(node, frame, extra_kwargs or None)
        self.write(")")

class PageEnvironment(Environment):
    code_generator_class = PageCodeGenerator


def environment(**options: Any) -> Environment:
    """A Jinja environment with ``options``: ``PageEnvironment`` when a speedup of Jinja's is in
    use, else Jinja's own."""
    return PageEnvironment(**options) if _active & _JINJA else Environment(**options)


def render_template(template: Template, template_globals: Mapping[str, Any], variables: dict[str, Any]) -> str:
    """``template.render(**variables)``; ``template_globals`` is ``dict(template.globals)``, made
    once per template by the caller."""
    if "direct_render" not in _active:
        return template.render(**variables)
    env = template.environment
    # No ``globals``: they only tell an imported template (our macros) which globals it lacks, and
    # every template here has the environment's.
    context = env.context_class(env, {**template_globals, **variables}, template.name, template.blocks)
    try:
        return env.concat(template.root_render_func(context))
    except Exception:
        return env.handle_exception()


# --- pydantic: views made without checks --------------------------------------------------------

V = TypeVar("V")
_new = object.__new__
_set = object.__setattr__
_unchecked_on = True


def unchecked(cls: type[V], **fields: Any) -> V:
    """``cls.model_construct(**fields)``, given every field of ``cls`` by name: nothing is checked
    or converted (an int stays an int). For views built from facts already checked."""
    if not _unchecked_on:
        return cls.model_construct(**fields)  # type: ignore[attr-defined]
    view = _new(cls)
    _set(view, "__dict__", fields)
    _set(view, "__pydantic_fields_set__", set(fields))
    _set(view, "__pydantic_extra__", None)
    _set(view, "__pydantic_private__", None)
    return view


def unchecked_page(cls: type[V], **fields: Any) -> V:
    """``cls.model_construct(**fields)`` for a page, or any view some of whose fields keep their
    defaults: those are filled in and left out of the fields set, and every field is in the
    class's order. (A field whose default a factory makes must be given, else KeyError.)"""
    if not _unchecked_on:
        return cls.model_construct(**fields)  # type: ignore[attr-defined]
    order, defaults = _DEFAULTS.get(cls) or _defaults_of(cls)
    view = _new(cls)
    _set(view, "__dict__", {name: fields[name] if name in fields else defaults[name] for name in order})
    _set(view, "__pydantic_fields_set__", set(fields))
    _set(view, "__pydantic_extra__", None)
    _set(view, "__pydantic_private__", None)
    return view


# Per view class: its field names in order, and the plain defaults of those that have one.
_DEFAULTS: dict[type, tuple[list[str], dict[str, Any]]] = {}


def _defaults_of(cls: Any) -> tuple[list[str], dict[str, Any]]:
    found = _DEFAULTS[cls] = (list(cls.model_fields), {
        name: field.default for name, field in cls.model_fields.items()
        if not field.is_required() and field.default_factory is None})
    return found
