"""Reading a KernelBench problem file without running it.

A KernelBench problem is a Python module: a ``Model(nn.Module)``, module-level constants (the
sizes), ``get_inputs()`` (the forward arguments, built with ``torch.randn(...)`` and friends) and
``get_init_inputs()`` (the constructor arguments). Executing untrusted problem files to learn
their shapes would need torch and run arbitrary code, so this module only *parses* them with
``ast`` and evaluates a tiny grammar of constant arithmetic itself.

What comes out (``Problem``):

- ``constants``: every top-level integer constant, lower-cased into an axis name (``N`` -> ``n``);
  a workload binds these values.
- ``inputs``: each forward argument with its symbolic shape (axis names, integers, or derived
  axes for expressions such as ``dim * 2``) and dtype.
- ``computation``: a digest of what the problem computes — the model and helper code with
  docstrings and comments removed, the constructor arguments, and the input signature — but not
  the constant values, so a problem-set version that only resized a problem keeps its digest,
  and one that changed the computation gets a new one.

A file that does not follow the pattern raises ``ProblemError`` with the reason; the importer
reports such problems and skips their timings.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

# torch factory functions whose positional arguments (or one tuple) are the shape.
# ``rand_mix`` is not torch's: one problem-set version (181539e) calls it; it is read as a factory
# like ``rand`` (positional shape, fp32).
_SHAPE_FACTORIES = {"randn", "rand", "ones", "zeros", "empty", "rand_mix"}
# torch functions of one tensor that keep its shape and dtype.
_SHAPE_KEEPING_FUNCTIONS = {"triu", "tril", "abs", "exp", "sigmoid", "softmax", "log_softmax", "relu", "clone", "tanh"}
# Methods on a tensor that keep its shape (and, except the casts below, its dtype).
_SHAPE_KEEPING_METHODS = {
    "cuda", "contiguous", "abs", "exp", "sigmoid", "softmax", "log_softmax", "relu", "clone", "detach",
    "requires_grad_", "clamp", "clamp_min", "clamp_max", "sign", "sqrt", "tanh", "normal_", "uniform_",
    "to", "float", "half", "bfloat16", "double", "long", "int", "bool", "__neg__",
}
_METHOD_DTYPES = {"float": "fp32", "half": "fp16", "bfloat16": "bf16", "double": "fp64", "long": "int64",
                  "int": "int32", "bool": "bool"}
_TORCH_DTYPES = {
    "float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16",
    "float64": "fp64", "double": "fp64", "int64": "int64", "long": "int64", "int32": "int32", "int": "int32",
    "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
}
_FILE_NAME = re.compile(r"^(\d+)_(.+)\.py$")
_CONSTANT_BINARY = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.Pow: lambda a, b: a ** b,
    ast.Div: lambda a, b: a / b,
}
MAX_SOURCE_BYTES = 200_000


class ProblemError(ValueError):
    """The file is not a KernelBench problem this reader understands; the message says why."""


@dataclass(frozen=True)
class Argument:
    name: str
    shape: tuple[int | str, ...] | None  # None: a scalar
    dtype: str


@dataclass(frozen=True)
class Problem:
    level: int
    file_name: str  # "1_Square_matrix_multiplication_.py"
    number: int
    name: str  # "Square_matrix_multiplication_"
    constants: dict[str, int]  # axis name -> value (sizes, but also e.g. a reduction dim)
    settings: dict[str, str]  # non-integer module constants (eps = 1e-5), as text
    derived: dict[str, str]  # axis name -> expression over the constants' axis names
    inputs: tuple[Argument, ...]
    init_arguments: tuple[str, ...]  # get_init_inputs()'s elements, as source text
    summary: str  # the Model class docstring, whitespace collapsed
    forward: str  # the forward method's body without its docstring
    computation: str = field(compare=False)  # sha256 hex of what it computes (module docstring)

    @property
    def key(self) -> str:
        """``level1/1_Square_matrix_multiplication_.py``: how timing files name the problem."""
        return f"level{self.level}/{self.file_name}"


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _constant_value(node: ast.expr, known: dict[str, int | float]) -> int | float | None:
    """The value of constant arithmetic over literals and earlier constants, else None."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _constant_value(node.operand, known)
        return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp) and type(node.op) in _CONSTANT_BINARY:
        left, right = _constant_value(node.left, known), _constant_value(node.right, known)
        if left is None or right is None:
            return None
        if isinstance(node.op, (ast.FloorDiv, ast.Mod, ast.Div)) and right == 0:
            return None
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1 << 20):
            return None
        value = _CONSTANT_BINARY[type(node.op)](left, right)
        return value if abs(value) < 1 << 62 else None
    return None


def axis_name(constant: str) -> str:
    name = re.sub(r"[^a-z0-9_]", "_", constant.lower())
    return name if re.match(r"^[a-z_]", name) else f"_{name}"


@dataclass
class _Reader:
    path: str
    constants: dict[str, int | float]  # Python name -> value
    axes: dict[str, str]  # Python name -> axis name
    tuples: dict[str, tuple[ast.expr, ...]]  # module-level tuple constants (input_shape = (4096,))
    derived: dict[str, str] = field(default_factory=dict)
    local: dict[str, "Argument | ProblemError"] = field(default_factory=dict)  # get_inputs()'s tensors so far

    def dim(self, node: ast.expr, where: str) -> int | str:
        value = _constant_value(node, self.constants)
        if value is None or type(value) is not int:
            raise ProblemError(f"{where}: dimension {ast.unparse(node)!r} is not constant integer arithmetic")
        if isinstance(node, ast.Constant):
            return value
        if isinstance(node, ast.Name):
            return self.axes[node.id]
        text = self._expression(node, where)
        name = self.derived_name(text)
        self.derived[name] = text
        return name

    def derived_name(self, text: str) -> str:
        for name, existing in self.derived.items():
            if existing == text:
                return name
        return f"d{len(self.derived)}"

    def _expression(self, node: ast.expr, where: str) -> str:
        """The dimension as an axis expression (integer grammar of ``schemas.expressions``)."""
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return str(node.value)
        if isinstance(node, ast.Name) and node.id in self.axes:
            return self.axes[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"-({self._expression(node.operand, where)})"
        symbols = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
        if isinstance(node, ast.BinOp) and type(node.op) in symbols:
            return f"({self._expression(node.left, where)} {symbols[type(node.op)]} {self._expression(node.right, where)})"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            # `a / b` of integers that divide exactly (the value was checked integral by the caller
            # only for the whole dimension): written as floor division, exact when it divides.
            return f"({self._expression(node.left, where)} // {self._expression(node.right, where)})"
        raise ProblemError(f"{where}: dimension {ast.unparse(node)!r} is not integer arithmetic")

    def shape(self, nodes: list[ast.expr], where: str) -> tuple[int | str, ...]:
        if len(nodes) == 1 and isinstance(nodes[0], ast.Attribute) and nodes[0].attr == "shape" \
                and isinstance(nodes[0].value, ast.Name):
            # `torch.randint(0, 2, x.shape)`: the shape of an earlier local tensor.
            earlier = self.local.get(nodes[0].value.id)
            if isinstance(earlier, Argument) and earlier.shape is not None:
                return earlier.shape
            raise ProblemError(f"{where}: {nodes[0].value.id}.shape is not the shape of a tensor read earlier")
        if len(nodes) == 1 and isinstance(nodes[0], ast.Name) and nodes[0].id in self.tuples:
            nodes = list(self.tuples[nodes[0].id])
        if len(nodes) == 1 and isinstance(nodes[0], (ast.Tuple, ast.List)):
            nodes = list(nodes[0].elts)
        expanded: list[ast.expr] = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                if not (isinstance(node.value, ast.Name) and node.value.id in self.tuples):
                    raise ProblemError(f"{where}: *{ast.unparse(node.value)} is not a module-level tuple")
                expanded.extend(self.tuples[node.value.id])
            else:
                expanded.append(node)
        nodes = expanded
        if len(nodes) > 8:
            raise ProblemError(f"{where}: more than 8 dimensions")
        return tuple(self.dim(node, where) for node in nodes)

    def tensor(self, node: ast.expr, local: dict[str, Argument | ProblemError], where: str, depth: int = 0) -> Argument:
        if depth > 20:
            raise ProblemError(f"{where}: expression nested too deeply")
        self.local = local
        if isinstance(node, ast.Name):
            if node.id in local:
                value = local[node.id]
                if isinstance(value, ProblemError):
                    raise value
                return value
            if node.id in self.constants:
                value = self.constants[node.id]
                return Argument(where, None, "int64" if type(value) is int else "fp64")
            raise ProblemError(f"{where}: {node.id!r} is neither a local tensor nor a module constant")
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return Argument(where, None, "int64" if type(node.value) is int else "fp64")
        if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
            inner = self.tensor(node.value, local, where, depth + 1)
            if inner.shape is None or len(inner.shape) < 2:
                raise ProblemError(f"{where}: .{node.attr} of a tensor with fewer than 2 dimensions")
            shape = inner.shape[::-1] if node.attr == "T" else (*inner.shape[:-2], inner.shape[-1], inner.shape[-2])
            return Argument(where, shape, inner.dtype)
        if isinstance(node, ast.BinOp):
            # `torch.randn(...) * 2`, `(B + B.T) / 2`: the first tensor operand's shape (KernelBench's
            # inputs combine only same-shaped tensors).
            for side in (node.left, node.right):
                if _constant_value(side, self.constants) is None:
                    return self.tensor(side, local, where, depth + 1)
            raise ProblemError(f"{where}: arithmetic without a tensor")
        if isinstance(node, ast.UnaryOp):
            return self.tensor(node.operand, local, where, depth + 1)
        if not isinstance(node, ast.Call):
            raise ProblemError(f"{where}: {type(node).__name__} is not a tensor this reader understands")
        function = node.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "torch":
            if function.attr in _SHAPE_KEEPING_FUNCTIONS and node.args:
                inner = self.tensor(node.args[0], local, where, depth + 1)
                return Argument(where, inner.shape, inner.dtype)
            return self._factory(function.attr, node, where)
        if isinstance(function, ast.Attribute) and function.attr in _SHAPE_KEEPING_METHODS:
            inner = self.tensor(function.value, local, where, depth + 1)
            dtype = _METHOD_DTYPES.get(function.attr, inner.dtype)
            if function.attr == "to":
                dtype = _dtype_keyword(node, where) or _dtype_positional(node) or dtype
            return Argument(where, inner.shape, dtype)
        raise ProblemError(f"{where}: {ast.unparse(node.func)}(...) is not a tensor factory this reader understands")

    def _factory(self, name: str, call: ast.Call, where: str) -> Argument:
        dtype = _dtype_keyword(call, where)
        if name in _SHAPE_FACTORIES:
            size = _keyword(call, "size")
            shape = self.shape([size] if size is not None else list(call.args), where)
            return Argument(where, shape, dtype or "fp32")
        if name == "randint":
            size = _keyword(call, "size")
            if size is None:
                if not call.args:
                    raise ProblemError(f"{where}: torch.randint without a size")
                size = call.args[-1]
            return Argument(where, self.shape([size], where), dtype or "int64")
        if name == "full":
            if not call.args:
                raise ProblemError(f"{where}: torch.full without a size")
            return Argument(where, self.shape([call.args[0]], where), dtype or "fp32")
        raise ProblemError(f"{where}: torch.{name}(...) is not a tensor factory this reader understands")


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((keyword.value for keyword in call.keywords if keyword.arg == name), None)


def _dtype_node(node: ast.expr | None, where: str) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
        if node.attr in _TORCH_DTYPES:
            return _TORCH_DTYPES[node.attr]
    raise ProblemError(f"{where}: dtype {ast.unparse(node)!r} is not one this reader knows")


def _dtype_keyword(call: ast.Call, where: str) -> str | None:
    return _dtype_node(_keyword(call, "dtype"), where)


def _dtype_positional(call: ast.Call) -> str | None:
    for argument in call.args:
        if isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name) \
                and argument.value.id == "torch" and argument.attr in _TORCH_DTYPES:
            return _TORCH_DTYPES[argument.attr]
    return None


def _function(module: ast.Module, name: str) -> ast.FunctionDef | None:
    return next((node for node in module.body if isinstance(node, ast.FunctionDef) and node.name == name), None)


def _returned(function: ast.FunctionDef, where: str, reader: "_Reader | None" = None
              ) -> tuple[list[ast.expr], dict[str, Argument | ProblemError]]:
    """The elements of the list a get_* function returns, and its local tensors, read in order
    (so ``B = (B + B.T) / 2`` reads the earlier ``B``)."""
    local: dict[str, Argument | ProblemError] = {}
    for statement in function.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            if reader is not None:
                name = statement.targets[0].id
                try:
                    local[name] = reader.tensor(statement.value, local, f"{where} {name}")
                except ProblemError as error:
                    local[name] = error
        elif isinstance(statement, ast.Return):
            value = statement.value
            if isinstance(value, (ast.List, ast.Tuple)):
                return list(value.elts), local
            raise ProblemError(f"{where}: does not return a list literal")
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        else:
            raise ProblemError(f"{where}: line {statement.lineno}: only assignments and one return are read")
    raise ProblemError(f"{where}: returns nothing")


def _forward(model: ast.ClassDef) -> ast.FunctionDef:
    forward = next((node for node in model.body if isinstance(node, ast.FunctionDef) and node.name == "forward"), None)
    if forward is None:
        raise ProblemError("class Model has no forward method")
    return forward


def _argument_names(forward: ast.FunctionDef, count: int) -> list[str]:
    names = [argument.arg for argument in forward.args.args[1:]]
    names = [axis_name(name) for name in names]
    if len(names) < count:
        # forward(*args) or fewer named arguments than get_inputs returns: positional names.
        names += [f"input{index}" for index in range(len(names), count)]
    return names[:count]


def parse_problem(source: str, level: int, file_name: str) -> Problem:
    """The ``Problem`` a file's text declares; ``ProblemError`` (with the reason) when it is not one."""
    match = _FILE_NAME.match(file_name)
    if not match:
        raise ProblemError(f"{file_name}: not named <number>_<name>.py")
    if len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise ProblemError(f"{file_name}: larger than {MAX_SOURCE_BYTES} bytes")
    try:
        module = ast.parse(source)
    except SyntaxError as error:
        raise ProblemError(f"{file_name}:{error.lineno}: not valid Python: {error.msg}") from None
    model = next((node for node in module.body if isinstance(node, ast.ClassDef) and node.name == "Model"), None)
    if model is None:
        raise ProblemError(f"{file_name}: no class Model")

    constants: dict[str, int | float] = {}
    settings: dict[str, str] = {}
    code: list[ast.stmt] = []
    tuples: dict[str, tuple[ast.expr, ...]] = {}
    for statement in module.body:
        if isinstance(statement, ast.Assign) and all(isinstance(target, ast.Name) for target in statement.targets):
            # `height = width = 128` binds both names.
            for target in statement.targets:
                name = target.id  # type: ignore[attr-defined]
                value = _constant_value(statement.value, constants)
                if value is not None:
                    constants[name] = value
                elif isinstance(statement.value, ast.Tuple):
                    tuples[name] = tuple(statement.value.elts)
                    settings[name] = ast.unparse(statement.value)[:300]
                else:
                    settings[name] = ast.unparse(statement.value)[:300]
            continue
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Tuple) \
                and isinstance(statement.value, ast.Tuple) and len(statement.targets[0].elts) == len(statement.value.elts) \
                and all(isinstance(target, ast.Name) for target in statement.targets[0].elts):
            # `D, H, W = 24, 32, 32`
            for target, element in zip(statement.targets[0].elts, statement.value.elts):
                value = _constant_value(element, constants)
                if value is not None:
                    constants[target.id] = value  # type: ignore[attr-defined]
                else:
                    settings[target.id] = ast.unparse(element)[:300]  # type: ignore[attr-defined]
            continue
        if isinstance(statement, ast.FunctionDef) and statement.name in ("get_inputs", "get_init_inputs"):
            continue
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        code.append(statement)

    integer_constants = {name: value for name, value in constants.items() if type(value) is int}
    for name, value in constants.items():
        if type(value) is float:
            settings[name] = repr(value)
    axes: dict[str, str] = {}
    for name in integer_constants:
        axis = axis_name(name)
        while axis in axes.values():
            axis += "_"
        axes[name] = axis
    reader = _Reader(file_name, constants, axes, tuples)

    get_inputs = _function(module, "get_inputs")
    if get_inputs is None:
        raise ProblemError(f"{file_name}: no get_inputs()")
    elements, local = _returned(get_inputs, f"{file_name}: get_inputs()", reader)
    forward = _forward(model)
    names = _argument_names(forward, len(elements))
    inputs = []
    for name, element in zip(names, elements):
        argument = reader.tensor(element, local, f"{file_name}: get_inputs() {name}")
        inputs.append(Argument(name, argument.shape, argument.dtype))
    if not inputs:
        raise ProblemError(f"{file_name}: get_inputs() returns no inputs")

    get_init = _function(module, "get_init_inputs")
    init_elements = _returned(get_init, f"{file_name}: get_init_inputs()")[0] if get_init else []
    init_arguments = tuple(ast.unparse(element) for element in init_elements)

    summary = " ".join((ast.get_docstring(model) or "").split())
    forward_body = _strip_docstrings(ast.parse(ast.unparse(forward))).body[0].body  # type: ignore[attr-defined]
    forward_text = "\n".join(ast.unparse(statement) for statement in forward_body)

    stripped = _strip_docstrings(ast.Module(body=[ast.parse(ast.unparse(node)).body[0] for node in code], type_ignores=[]))
    identity = "\n".join([
        ast.dump(stripped, annotate_fields=False),
        "init:" + "|".join(init_arguments),
        "inputs:" + "|".join(f"{a.name}:{a.dtype}:{a.shape}" for a in inputs),
        "derived:" + "|".join(f"{k}={v}" for k, v in sorted(reader.derived.items())),
        # The axes a workload binds: a constant added or removed is a new signature.
        "axes:" + "|".join(sorted(axes.values())),
    ])
    return Problem(
        level=level, file_name=file_name, number=int(match.group(1)), name=match.group(2),
        constants={axes[name]: value for name, value in integer_constants.items()},
        settings=dict(sorted(settings.items())), derived=dict(reader.derived), inputs=tuple(inputs),
        init_arguments=init_arguments, summary=summary, forward=forward_text,
        computation=hashlib.sha256(identity.encode("utf-8")).hexdigest(),
    )


def read_problem(path: Path, level: int) -> Problem:
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ProblemError(f"{path.name}: cannot be read: {error}") from None
    return parse_problem(source, level, path.name)


def read_problem_set(root: Path) -> tuple[dict[str, Problem], dict[str, str]]:
    """Every problem under ``root/level<N>/`` by key, and the reasons the others could not be read."""
    problems: dict[str, Problem] = {}
    failures: dict[str, str] = {}
    for folder in sorted(root.glob("level*")):
        level_text = folder.name[len("level"):]
        if not folder.is_dir() or not level_text.isdigit():
            continue
        for path in sorted(folder.glob("*.py")):
            key = f"{folder.name}/{path.name}"
            try:
                problems[key] = read_problem(path, int(level_text))
            except ProblemError as error:
                failures[key] = str(error)
    return problems, failures
