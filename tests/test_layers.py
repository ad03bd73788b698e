"""The package's folders are its layers: each imports only from the ones below it, and no
module imports itself back through others (imports inside functions and under TYPE_CHECKING
count too, so a cycle cannot hide in a function body).

    app  ->  api, session  ->  processes  ->  search  ->  model  ->  vault  ->  infra
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "braniac"

# lowest first; a module may import from its own layer (without a cycle) and from any below
LAYERS = ["infra", "vault", "model", "search", "processes", "facade", "app", "root"]
FACADE = {"api", "session"}
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or parts[1] == "__main__":
        return "root"
    if parts[1] in FACADE:
        return "facade"
    if parts[1] not in LAYERS:
        raise AssertionError(f"{module} is in no layer: put it in one of {LAYERS[:-1]}")
    return parts[1]


def imports_of(module: str) -> set[str]:
    """Every braniac module `module` imports, at any depth of its code."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("braniac"):
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                found.add(sub if sub in MODULES else source)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("braniac"))
    found.discard(module)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def test_every_import_resolves_to_a_module():
    missing = sorted(f"{m} -> {d}" for m, deps in GRAPH.items() for d in deps if d not in MODULES)
    assert not missing, missing


def test_no_import_runs_up_a_layer():
    upward = []
    for module, deps in GRAPH.items():
        rank = LAYERS.index(layer_of(module))
        for dep in deps:
            if dep in MODULES and LAYERS.index(layer_of(dep)) > rank:
                upward.append(f"{module} ({layer_of(module)}) imports {dep} ({layer_of(dep)})")
    assert not upward, "\n".join(sorted(upward))


def test_no_import_cycle():
    """Tarjan's strongly connected components: any component of more than one module is a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in GRAPH.get(node, ()):
            if dep not in MODULES:
                continue
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(MODULES):
        if module not in index:
            visit(module)
    assert not cycles, cycles


def test_the_checks_see_what_they_must(tmp_path):
    """The graph is not vacuous: known arrows are found, including one inside a function."""
    assert "braniac.vault.store" in GRAPH["braniac.api"]
    assert "braniac.infra.fsio" in GRAPH["braniac.vault.notes"]
    assert any(layer_of(d) == "app" for d in GRAPH["braniac.__main__"])
    with pytest.raises(AssertionError):
        layer_of("braniac.nowhere")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_over_400_lines(module):
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[module]} has {lines} lines; split it by job"


# ------------------------------------------------------------------ one home for writes

# The calls that write, replace or remove a file's content. Only infra/fsio.py (and checked.py, its
# checked replaces) makes them; the
# rest of the package goes through its named primitives (issue 16, item 13). Creating a folder
# or removing one's own journal or lock-held temp file is not writing content.
_WRITERS = {"write_text", "write_bytes", "replace", "rename", "renames", "copy", "copy2", "copyfile",
            "copytree", "move", "truncate", "ftruncate", "pwrite", "write"}
_WRITE_MODES = ("w", "a", "x", "+")
WRITES_ALLOWED = {"braniac.infra.fsio", "braniac.infra.checked", "braniac.infra.fsio_folders"}  # fsio and its two parts


def _writes(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        if (owner in ("os", "shutil") and name in _WRITERS) or name in ("write_text", "write_bytes"):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {owner + '.' if owner else ''}{name}()")
        if name == "open":
            modes = [a.value for a in node.args[1:2] if isinstance(a, ast.Constant)]
            modes += [k.value.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)]
            if any(isinstance(m, str) and any(c in m for c in _WRITE_MODES) for m in modes):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: open(..., {modes[0]!r})")
    return found


def test_only_fsio_writes_files():
    offenders = [w for module, path in MODULES.items() if module not in WRITES_ALLOWED for w in _writes(path)]
    assert not offenders, "write through braniac/infra/fsio.py's primitives:\n" + "\n".join(offenders)
