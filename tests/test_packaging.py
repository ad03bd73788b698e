"""Packaging and documentation: the wheel works on its own, and the README tells the truth.

- the built wheel carries the prompts and the vault template, and `braniac init` / `doctor`
  work from it in a fresh virtual environment outside the repository;
- every command has help text, answers `--help`, and is documented in README.md;
- README.md opens with exactly two copy-paste set-up lines, and `.ci/run` runs the second.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from braniac.app.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CI_RUN = ROOT / ".ci" / "run"
PREFIX = "python3 -m venv .venv && . .venv/bin/activate && "

VAULT_FILES = [
    "braniac.toml",
    ".gitignore",
    "system/core_identity.md",
    "memory/short_term.md",
    "memory/long_term/_index.md",
    "memory/long_term/concrete/_index.md",
    "memory/long_term/events/_index.md",
    "memory/long_term/skills/_index.md",
    "logs/access.log",
]


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that could make Python or braniac look at the repo."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV"} and not k.startswith("BRANIAC_")}
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra)
    return env


def _run(args: list[str | Path], *, cwd: Path, env: dict[str, str],
         timeout: float = 300) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, (
        f"{' '.join(map(str, args))} exited {result.returncode}\n"
        f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}")
    return result


# ----------------------------------------------------------------------------- (a) the wheel

def _template_files(folder: str) -> list[str]:
    base = ROOT / folder
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


def _build_wheel(out: Path) -> Path:
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", out, ROOT], cwd=out, env=_clean_env(), timeout=600)
    wheels = list(out.glob("braniac-*.whl"))
    assert len(wheels) == 1, f"expected one wheel in {out}, found {wheels}"
    return wheels[0]


def _venv_with_outer_deps(target: Path) -> Path:
    """A venv without system site-packages whose sys.path also sees this interpreter's installed
    packages (the runtime dependencies), through a .pth file. The repository is not on its path:
    a .pth line adds a folder but does not run the .pth files inside it (such as an editable
    install's), so the only braniac it can import is the one installed into it. No pip of its
    own (ensurepip costs seconds): this interpreter's pip installs into it (`pip --python`)."""
    venv.EnvBuilder(with_pip=False, system_site_packages=False, clear=True).create(target)
    cfg = (target / "pyvenv.cfg").read_text()
    assert re.search(r"include-system-site-packages\s*=\s*false", cfg), cfg
    python = target / "bin" / "python"
    own_site = Path(subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True, env=_clean_env()).strip())
    outer = []
    for key in ("purelib", "platlib"):
        path = Path(sysconfig.get_paths()[key]).resolve()
        if path not in outer and path.is_dir():
            outer.append(path)
    for path in outer:
        assert path != ROOT and not path.is_relative_to(ROOT / "braniac"), path
    (own_site / "_outer_deps.pth").write_text("".join(f"{p}\n" for p in outer))
    return python


def test_wheel_installs_and_works_outside_the_repo(tmp_path: Path) -> None:
    if importlib.util.find_spec("build") is None:
        pytest.skip("the 'build' package is not installed (pip install -e '.[dev]')")
    outside = tmp_path / "outside"
    outside.mkdir()
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = _build_wheel(dist)

    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        entry_points = next((zf.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt")), "")
    assert "braniac/__init__.py" in names and "braniac/app/cli.py" in names
    for rel in VAULT_FILES:
        assert f"braniac/_data/vault_template/{rel}" in names, f"wheel lacks vault_template/{rel}"
    for folder in ("vault_template", "prompts"):
        expected = _template_files(folder)
        assert expected, f"{folder}/ in the repository is empty"
        missing = [rel for rel in expected if f"braniac/_data/{folder}/{rel}" not in names]
        assert not missing, f"wheel lacks {folder}/ files: {missing}"
    assert any(n.startswith("braniac/_data/prompts/") for n in names)
    assert not any(n.startswith(("tests/", ".ci/", "bench/")) for n in names), sorted(names)
    assert re.search(r"^braniac\s*=\s*braniac\.app\.cli:main\s*$", entry_points, re.MULTILINE), entry_points

    env_dir = tmp_path / "venv"
    python = _venv_with_outer_deps(env_dir)
    env = _clean_env()
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
          "--disable-pip-version-check", wheel], cwd=outside, env=env)

    where = _run([python, "-c",
                  "import braniac, braniac.infra.resources as r; print(braniac.__file__); "
                  "print(r.data_dir('vault_template')); print(r.data_dir('prompts'))"],
                 cwd=outside, env=env).stdout.split()
    for path in where:
        assert Path(path).resolve().is_relative_to(env_dir.resolve()), (
            f"{path} is not inside the new venv {env_dir}: the test is not using the installed wheel")
        assert not Path(path).resolve().is_relative_to(ROOT)

    braniac_exe = env_dir / "bin" / "braniac"
    assert braniac_exe.exists(), "the wheel did not install the `braniac` console script"
    version = _run([braniac_exe, "--version"], cwd=outside, env=env).stdout
    assert wheel.name.split("-")[1] in version, (version, wheel.name)

    vault = outside / "v"
    _run([braniac_exe, "init", vault], cwd=outside, env=env)
    for rel in VAULT_FILES:
        assert (vault / rel).is_file(), f"braniac init did not create {rel}"
    for tier in ("concrete", "events", "skills"):
        assert (vault / "memory" / "long_term" / tier).is_dir()
    assert "__UUID" not in (vault / "system" / "core_identity.md").read_text()
    doctor = _run([braniac_exe, "--vault", vault, "doctor"], cwd=outside, env=env)
    assert "healthy" in doctor.stdout


# ----------------------------------------------------------------------------- (b) commands

def _commands(group: click.Group = cli, prefix: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        yield path, command
        if isinstance(command, click.Group):
            yield from _commands(command, path)


COMMANDS = list(_commands())


def test_there_are_commands() -> None:
    assert {"init", "remember", "doctor", "stats"} <= {path[0] for path, _ in COMMANDS}


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_command_has_help_and_is_in_readme(path: tuple[str, ...], command: click.Command) -> None:
    words = " ".join(path)
    assert (command.help or "").strip(), f"`braniac {words}` has no help text (docstring)"
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert (param.help or "").strip(), f"`braniac {words}` option {param.opts} has no help text"

    result = CliRunner().invoke(cli, [*path, "--help"], prog_name="braniac")
    assert result.exit_code == 0, result.output
    assert f"Usage: braniac {words}" in result.output, result.output

    readme = README.read_text(encoding="utf-8")
    assert re.search(rf"\bbraniac {re.escape(words)}\b", readme), (
        f"README.md does not document `braniac {words}`: add a section for it")


def test_global_options_are_in_readme() -> None:
    readme = README.read_text(encoding="utf-8")
    result = CliRunner().invoke(cli, ["--help"], prog_name="braniac")
    assert result.exit_code == 0, result.output
    for param in cli.params:
        for opt in param.opts:
            if opt.startswith("--"):
                assert f"`{opt}" in readme, f"README.md does not document the global option {opt}"
    for name in ("BRANIAC_VAULT", "BRANIAC_DEBUG"):
        assert name in readme


# ----------------------------------------------------------------------------- (c) README and CI

def _setup_lines() -> list[str]:
    text = README.read_text(encoding="utf-8")
    fence = re.search(r"^```[ \t]*(\w*)[ \t]*\n(.*?)^```[ \t]*$", text, re.MULTILINE | re.DOTALL)
    assert fence, "README.md has no fenced code block"
    before = text[: fence.start()]
    assert not re.search(r"^##", before, re.MULTILINE), (
        "the set-up block must come at the top of README.md, before the first section")
    assert fence.group(1) in ("sh", "bash", "shell"), f"set-up block language is {fence.group(1)!r}"
    lines = [line.strip() for line in fence.group(2).splitlines() if line.strip()]
    assert len(lines) == 2, f"the set-up block must hold exactly two lines, not {len(lines)}: {lines}"
    for line in lines:
        shlex.split(line)  # balanced quotes: the line can be pasted as it is
        assert line.startswith(PREFIX), f"set-up line does not start with a fresh venv: {line}"
    return lines


def _main_and_test_line() -> tuple[str, str]:
    main_lines = [l for l in _setup_lines() if "pip install -e . " in l and "braniac init" in l]
    test_lines = [l for l in _setup_lines() if "-e '.[dev]'" in l and re.search(r"&& pytest\b", l)]
    assert len(main_lines) == 1 and len(test_lines) == 1, _setup_lines()
    return main_lines[0], test_lines[0]


def test_readme_has_two_setup_lines() -> None:
    main_line, test_line = _main_and_test_line()
    assert main_line.rstrip().endswith(" chat"), "the main job is `braniac chat`"
    assert test_line.endswith("pytest") or re.search(r"&& pytest( [^&|;]*)?$", test_line), test_line


LINT = "ruff check . && "


def test_ci_runs_the_readme_test_line() -> None:
    _, test_line = _main_and_test_line()
    text = CI_RUN.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash\n") or text.startswith("#!/bin/bash\n")
    assert CI_RUN.stat().st_mode & stat.S_IXUSR, ".ci/run is not executable"
    code = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert "set -euo pipefail" in code
    runs = [line for line in code if line.startswith(test_line)
            and re.fullmatch(r"(\s*\|\|\s*\w+=\$\?)?", line[len(test_line):])]
    assert len(runs) == 1, f".ci/run must run README's test line exactly once:\n  {test_line}"
    assert code.count(runs[0]) == 1
    assert f"&& {LINT}pytest" in runs[0], "ruff must run before pytest"
    subprocess.run(["bash", "-n", str(CI_RUN)], check=True)


def test_readme_main_line_works(tmp_path: Path) -> None:
    """Run the braniac part of the first set-up line, as written, with HOME in a temp folder."""
    main_line, _ = _main_and_test_line()
    steps = [s.strip() for s in main_line.split(" && ")]
    braniac_steps = [s for s in steps if s.startswith("braniac ")]
    assert braniac_steps and steps[-len(braniac_steps):] == braniac_steps, steps
    bin_dir = Path(sys.executable).parent
    assert shutil.which("braniac", path=str(bin_dir)), f"no braniac script next to {sys.executable}"
    env = _clean_env(HOME=str(tmp_path), PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    # the chat reads its prompts from stdin: one remembered fact, one question, then leave
    result = subprocess.run(["bash", "-c", "set -e; " + " && ".join(braniac_steps)], cwd=tmp_path, env=env,
                            input="/remember the deploy key lives in the ops vault\nwhere is the deploy key?\n/quit\n",
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "model: offline" in result.stdout
    assert "the deploy key lives in the ops vault" in result.stdout.split("where is the deploy key")[-1] or \
        "deploy key lives in the ops vault" in result.stdout
    vault = tmp_path / "braniac-vault"
    assert "deploy key lives in the ops vault" in (vault / "memory" / "short_term.md").read_text(encoding="utf-8")
