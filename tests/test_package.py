"""The shape of the package: no import cycles, no hidden modules, complete ``__all__``, docstrings.

Everything here reads the source (``ast``) or imports each module by name; nothing is compared
with a list typed into this file except the modules other developers own in this phase.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import types
from pathlib import Path

import pytest

import posenc_lib as pe

PACKAGE = Path(pe.__file__).resolve().parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
#: What each module needs beyond numpy to be imported.
NEEDS = {
    "nn": "torch",
    "hessian": "torch",
    "attention": "torch",
    "experiments": "torch",
    "scaled_rotary": "torch",
    "alibi_falcon": "torch",
}


def _tree(module: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))


def _imported_siblings(module: str) -> set[str]:
    """Every ``posenc_lib`` module that ``module`` imports, at top level or inside a function."""
    found = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:  # from .x import ...
                found.add(node.module.split(".")[0])
            elif node.level == 1:  # from . import x
                found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("posenc_lib."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("posenc_lib."):
                    found.add(alias.name.split(".")[1])
    return found & set(MODULES)


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_cycles():
    graph = {module: _imported_siblings(module) for module in MODULES}
    assert graph["encoding"] >= {
        "angle_addition",
        "layouts",
    }  # the scan sees real imports
    assert _find_cycle(graph) is None


@pytest.mark.parametrize("module", MODULES)
def test_import_module_as_gives_a_module(module):
    """``import posenc_lib.<module> as K`` binds the module, never a function of that name."""
    if module in NEEDS:
        pytest.importorskip(NEEDS[module])
    namespace: dict[str, object] = {}
    exec(f"import posenc_lib.{module} as K", namespace)  # the statement a reader types
    assert isinstance(namespace["K"], types.ModuleType)
    assert namespace["K"].__name__ == f"posenc_lib.{module}"


def _defined_public_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def _declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return None


@pytest.mark.parametrize("module", MODULES)
def test_all_lists_exactly_the_public_names(module):
    tree = _tree(module)
    declared = _declared_all(tree)
    assert declared is not None, f"{module} has no __all__"
    assert len(declared) == len(set(declared))
    assert set(declared) == _defined_public_names(tree)


def test_package_all_is_the_core():
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    imported = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert set(pe.__all__) == imported
    for name in pe.__all__:
        assert getattr(pe, name) is not None


#: Docstrings that are another developer's work in this phase (issue 11): ``nn`` (developer
#: torch), ``notebook`` (frozen), and the command line of ``experiments`` (developer rel).
OTHERS = {"nn", "notebook"}
OTHER_FUNCTIONS = {"experiments.main"}


def _public_functions():
    for module in MODULES:
        if module in OTHERS or module.startswith("_"):
            continue
        if module in NEEDS and importlib.util.find_spec(NEEDS[module]) is None:
            continue
        mod = importlib.import_module(f"posenc_lib.{module}")
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) and f"{module}.{name}" not in OTHER_FUNCTIONS:
                yield pytest.param(obj, id=f"{module}.{name}")


@pytest.mark.parametrize("function", list(_public_functions()))
def test_public_functions_have_numpydoc_with_examples(function):
    doc = inspect.getdoc(function) or ""
    sections = {line.strip() for line in doc.splitlines()}
    if inspect.signature(function).parameters:
        assert "Parameters" in sections, function.__qualname__
    assert "Returns" in sections, function.__qualname__
    assert "Examples" in sections and ">>> " in doc, function.__qualname__


def test_every_module_is_in_the_chapter_table():
    """The package docstring's chapter -> module table names every public module."""
    for module in MODULES:
        if module.startswith("_"):
            continue
        assert f":mod:`~posenc_lib.{module}`" in pe.__doc__, module
