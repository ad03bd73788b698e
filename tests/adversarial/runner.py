"""Running real braniac processes for the adversarial suite, each under guard.py, in a sandbox of
folders that lets the checkers see anything touched outside the vault.

    box = Sandbox(workdir)            # workdir/vault, outside/, home/, tmp/, reports/
    run = box.run("remember", "hello")          # forked (tests/forked.py): a real process
    run.returncode, run.stdout, run.stderr, run.findings (writes/reads outside), run.end
    proc = box.spawn("watch")                   # `python -c` with the guard: stdin/stdout piped

Scale and seed: BRANIAC_ADVERSARY_SCALE multiplies every scenario's trial count (0.5 in the tests,
1 in bench/adversary.py; chaos runs once at either); BRANIAC_TEST_SEED (tests/suite_plugin.py) seeds every random choice.
"""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ADV = Path(__file__).resolve().parent
TESTS = ADV.parent
REPO = TESTS.parent
for _dir in (str(TESTS), str(ADV)):
    if _dir not in sys.path:
        sys.path.insert(0, _dir)

import forked  # noqa: E402
from helpers import clean_env  # noqa: E402

# CI runs half the random search (kills, write points, fuzz examples) that `bench/adversary.py`
# runs by default: the full size took a fifth of CI's ten minutes
SCALE = float(os.environ.get("BRANIAC_ADVERSARY_SCALE", "0.5"))
SEED = int(os.environ.get("BRANIAC_TEST_SEED", "20240521"))
CHILD = f"import sys; sys.path.insert(0, {str(ADV)!r}); import guard; guard.main()"
SECRET = "zz-outside-secret-7f3a"     # in every file outside the vault; never to be found inside it


def scaled(n: int | float, minimum: int = 1) -> int:
    return max(minimum, int(round(n * SCALE)))


def scratch(prefix: str) -> Path:
    """A folder for a scenario's sandboxes: /dev/shm when there is one (hundreds of vaults)."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix=prefix, dir=base))


@dataclass
class Run:
    """One finished braniac process."""
    args: list[str]
    returncode: int | None
    stdout: str
    stderr: str
    findings: list[dict] = field(default_factory=list)   # write-outside / read-outside
    end: dict | None = None                              # the guard's last record (points, fault)
    seconds: float = 0.0
    timed_out: bool = False
    vault: str = ""

    @property
    def command(self) -> str:
        """The command line, the vault's path written V (each failure says where it is kept)."""
        text = "braniac " + " ".join(_quote(a) for a in self.args)
        return text.replace(self.vault, "V") if self.vault else text

    def describe(self) -> str:
        what = "timed out (killed)" if self.timed_out else f"exit {self.returncode}"
        err = self.stderr.strip()
        return f"`{self.command}`: {what} after {self.seconds:.2f} s" + (f"; stderr: {err[-1500:]}" if err else "")


def _quote(arg: str) -> str:
    import shlex
    return shlex.quote(str(arg))


class Sandbox:
    """A trial's folders. Only `vault/` is braniac's; `outside/` and `home/` hold files with
    SECRET that must never be read, changed, or copied into the vault; `tmp/` is TMPDIR."""

    _ids = itertools.count()

    def __init__(self, workdir: Path, reports: Path | None = None):
        """`reports`: where the guard's reports go (elsewhere than a full disk under test)."""
        self.workdir = Path(workdir)
        self.vault = self.workdir / "vault"
        self.outside = self.workdir / "outside"
        self.home = self.workdir / "home"
        self.tmp = self.workdir / "tmp"
        self.reports = Path(reports) if reports else self.workdir / "reports"
        for folder in (self.outside, self.home, self.tmp, self.reports):
            folder.mkdir(parents=True, exist_ok=True)
        for name in ("secret.md", "notes.txt"):
            for folder in (self.outside, self.home):
                target = folder / name
                if not target.exists():
                    target.write_text(f"# Secret\n\n{SECRET} {folder.name} {name}\n", encoding="utf-8")
        self.lock = threading.Lock()
        self.runs: list[Run] = []

    def env(self) -> dict[str, str]:
        return clean_env(HOME=str(self.home), TMPDIR=str(self.tmp), GIT_CONFIG_NOSYSTEM="1",
                         GIT_AUTHOR_NAME="adv", GIT_AUTHOR_EMAIL="adv@localhost",
                         GIT_COMMITTER_NAME="adv", GIT_COMMITTER_EMAIL="adv@localhost")

    def _config(self, args, **extra) -> tuple[str, Path]:
        report = self.reports / f"{os.getpid()}-{next(self._ids)}.jsonl"
        config = {"args": [str(a) for a in args], "vault": str(self.vault), "allow": [str(self.tmp)],
                  "watch": [str(self.outside), str(self.home)], "report": str(report), **extra}
        return json.dumps(config), report

    def cli(self, *args) -> list[str]:
        """`--vault VAULT ARGS` (init takes its path itself)."""
        return list(args) if args and args[0] == "init" else ["--vault", str(self.vault), *args]

    def run(self, *args, timeout: float = 60, fault_at: int = 0, sticky: bool = False, count: bool = False,
            record: bool = True, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Run:
        """`braniac --vault VAULT ARGS` forked, under the guard (and a 2 GB address-space limit);
        a run past `timeout` is killed. `stdin`: bytes for `remember -`/`ask -` (run by `python
        -c`, since forked processes read /dev/null)."""
        argv = self.cli(*args)
        config, report = self._config(argv, fault_at=fault_at, sticky=sticky, count=count, memory_mb=2048)
        if stdin is not None:
            return self._run_with_stdin(argv, config, report, stdin, timeout, record)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            started = time.monotonic()
            proc = forked.start(code=CHILD, argv=[config], env=self.env() | (env or {}), cwd=self.tmp, stdout=out,
                                stderr=err)
            timed_out = False
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                proc.kill()
                proc.wait()
            seconds = time.monotonic() - started
            texts = []
            for handle in (out, err):
                handle.seek(0)
                texts.append(handle.read().decode("utf-8", "replace"))
        result = Run(argv, proc.returncode, texts[0], texts[1], seconds=seconds, timed_out=timed_out,
                     vault=str(self.vault))
        read_report(report, result)
        if record:
            with self.lock:
                self.runs.append(result)
        return result

    def _run_with_stdin(self, argv, config, report, stdin: bytes, timeout: float, record: bool) -> Run:
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", CHILD, config], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=self.env(), cwd=self.tmp)
        timed_out = False
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            out, err = proc.communicate()
        result = Run(argv, proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                     seconds=time.monotonic() - started, timed_out=timed_out, vault=str(self.vault))
        read_report(report, result)
        if record:
            with self.lock:
                self.runs.append(result)
        return result

    def spawn(self, *args, stdin=subprocess.DEVNULL) -> subprocess.Popen:
        """A long-lived `braniac ARGS` (watch, chat) as its own interpreter, under the guard;
        stdout and stderr piped (text). `finish(proc)` collects it as a Run."""
        argv = self.cli(*args)
        config, report = self._config(argv)
        proc = subprocess.Popen([sys.executable, "-c", CHILD, config], stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                                env=self.env() | {"PYTHONPATH": os.environ.get("PYTHONPATH", str(REPO))},
                                cwd=self.tmp)
        proc.adv_report = report
        proc.adv_args = argv
        proc.adv_started = time.monotonic()
        return proc

    def finish(self, proc: subprocess.Popen, out: str, err: str, timed_out: bool = False) -> Run:
        result = Run(proc.adv_args, proc.returncode, out, err, seconds=time.monotonic() - proc.adv_started,
                     timed_out=timed_out, vault=str(self.vault))
        read_report(proc.adv_report, result)
        with self.lock:
            self.runs.append(result)
        return result


def read_report(report: Path, result: Run) -> None:
    if not report.exists():
        return
    for line in report.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("kind") == "end":
            result.end = record
        else:
            result.findings.append(record)
