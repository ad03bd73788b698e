"""`braniac ARGS` as real processes that start in milliseconds: forked from a server that has
already imported braniac, instead of a new interpreter each time.

A new `python -m braniac` spends ~0.3 s of CPU starting Python and importing braniac before it
touches the vault. The fault tests start hundreds of them (a run killed at a random instant, the
run that finishes the job, `braniac doctor`), so those starts were most of their cost. Here each
one is forked from a small single-threaded server (this file, run as a script) that imported
every braniac module once. It is a real process all the same: its own pid, files, locks and exit
status, SIGKILL kills it at once, mid-write; it runs the real entry point
(`braniac.app.cli:main`) with its own argv, environment, working folder and stdout/stderr, and
its stdin is /dev/null.

What it leaves out: starting the interpreter and importing braniac. tests/test_cli.py and the
other tests run `python -m braniac` for those, and a kill during them had nothing to interrupt.

    proc = start(["--vault", root, "promote", "--force"], env=clean_env())
    proc.send_signal(signal.SIGKILL); proc.wait()           # -9, as with subprocess.Popen
    result = run(["--vault", root, "doctor"], env=clean_env())   # a CompletedProcess (text)
    stop()    # the server exits and is waited for (at exit too), so that its CPU time and its
              # children's count in this process's (`time pytest` sees them)
"""
from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

# what a command may import lazily besides braniac: the search engine behind promote, organize
# and search, and the parsers
PRELOAD = ["whoosh.index", "whoosh.fields", "whoosh.qparser", "whoosh.query", "whoosh.writing", "whoosh.searching",
           "whoosh.highlight", "whoosh.scoring", "whoosh.analysis", "whoosh.codec.whoosh3", "whoosh.filedb.filestore",
           "frontmatter", "yaml", "filelock", "click"]


# ------------------------------------------------------------------------------ the server

def _exit_status(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _become(request: dict) -> int:
    """In the forked child: become `braniac ARGS` and run it; returns the exit status."""
    os.environ.clear()
    os.environ.update(request["env"])
    if request["cwd"] is not None:
        os.chdir(request["cwd"])
    for fd, path, flags in ((0, None, os.O_RDONLY), (1, request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                            (2, request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        target = os.open(path or os.devnull, flags, 0o600)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = ["braniac", *request["args"]]
    import traceback
    from braniac.app.cli import main
    try:
        main()
        code = 0
    except SystemExit as exc:          # what the interpreter does with it
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - an uncaught error: traceback on stderr, status 1
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream (output piped away) is fine
            pass
    return code


def serve() -> None:
    """Read one JSON request a line on stdin, fork a child for each; write `started ID PID` and
    `exited PID STATUS` lines on stdout. Stdin closed: wait for the children, then exit."""
    import pkgutil
    import select
    import signal

    import braniac
    for name in [m.name for m in pkgutil.walk_packages(braniac.__path__, "braniac.")
                 if not m.name.endswith("__main__")] + PRELOAD:
        try:
            __import__(name)
        except ImportError:
            pass
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    stdin, out = sys.stdin.fileno(), sys.stdout.buffer
    os.set_blocking(stdin, False)
    pending, children, closed = b"", set(), False

    def reap() -> None:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            children.discard(pid)
            out.write(f"exited {pid} {_exit_status(status)}\n".encode())
        out.flush()

    out.write(b"ready\n")
    out.flush()
    while not closed or children:
        ready, _, _ = select.select([wake_r] + ([] if closed else [stdin]), [], [])
        if wake_r in ready:
            os.read(wake_r, 512)
        if stdin in ready:
            data = os.read(stdin, 65536)
            closed = not data
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    os.close(wake_r)
                    os.close(wake_w)
                    code = 1
                    try:
                        code = _become(request)
                    except BaseException:  # noqa: BLE001 - could not even start: say why
                        import traceback
                        traceback.print_exc()
                    finally:
                        os._exit(code)
                children.add(pid)
                out.write(f"started {request['id']} {pid}\n".encode())
                out.flush()
        reap()


# ------------------------------------------------------------------------------ the client

class _Server:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, __file__, json.dumps(sys.path)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=dict(os.environ))
        assert self.proc.stdout.readline() == b"ready\n", "the braniac fork server did not start"
        self.lock = threading.Lock()
        self.cond = threading.Condition()
        self.started: dict[int, int] = {}
        self.exited: dict[int, int] = {}
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True, name="braniac-forks").start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            what, a, b = line.decode().split()
            with self.cond:
                if what == "started":
                    self.started[int(a)] = int(b)
                    self.exited.pop(int(b), None)   # a reused pid: that exit was another child's
                else:
                    self.exited[int(a)] = int(b)
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def fork(self, request: dict) -> int:
        with self.lock:
            self.next_id += 1
            request["id"] = ident = self.next_id
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
        with self.cond:
            self.cond.wait_for(lambda: ident in self.started or self.proc.poll() is not None)
            assert ident in self.started, "the braniac fork server died"
            return self.started.pop(ident)

    def status(self, pid: int, timeout: float | None) -> int | None:
        with self.cond:
            self.cond.wait_for(lambda: pid in self.exited, timeout)
            return self.exited.pop(pid, None)

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


_server: _Server | None = None
_server_lock = threading.Lock()


def _get_server() -> _Server:
    global _server
    with _server_lock:
        if _server is None or _server.proc.poll() is not None:
            _server = _Server()
        return _server


class Braniac:
    """A running `braniac ARGS`, with the part of subprocess.Popen the tests use."""

    def __init__(self, args, *, env: dict[str, str], cwd=None, capture: bool = False):
        self.args = [str(a) for a in args]
        self._files: list[str] | None = None
        if capture:
            self._files = []
            for name in ("out", "err"):
                fd, path = tempfile.mkstemp(prefix="braniac-forked-", suffix=f".{name}")
                os.close(fd)
                self._files.append(path)
        out, err = self._files or (None, None)
        self._server = _get_server()
        self.pid = self._server.fork({"args": self.args, "env": dict(env), "cwd": None if cwd is None else str(cwd),
                                      "out": out, "err": err})
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._server.status(self.pid, 0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self._server.status(self.pid, timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:        # not reaped yet: the pid is still this process's
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        import signal
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        self.wait(timeout)
        if self._files is None:
            return "", ""
        texts = [Path(path).read_bytes().decode("utf-8", "replace") for path in self._files]
        for path in self._files:
            os.unlink(path)
        self._files = None
        return texts[0], texts[1]


def ready() -> None:
    """Start the server now (it takes a second), so that no timed run waits for it."""
    _get_server()


def start(args, *, env: dict[str, str], cwd=None, capture: bool = False) -> Braniac:
    """`braniac ARGS` started; with capture, communicate() gives its stdout and stderr."""
    return Braniac(args, env=env, cwd=cwd, capture=capture)


def run(args, *, env: dict[str, str], cwd=None, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Like subprocess.run([...], capture_output=True, text=True) for `braniac ARGS`."""
    proc = Braniac(args, env=env, cwd=cwd, capture=True)
    try:
        out, err = proc.communicate(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return subprocess.CompletedProcess(["braniac", *proc.args], proc.returncode, out, err)


def stop() -> None:
    """End the server once its children have exited, and wait for it (also done at exit)."""
    global _server
    with _server_lock:
        if _server is not None:
            _server.stop()
            _server = None


atexit.register(stop)


if __name__ == "__main__":
    sys.path[:] = json.loads(sys.argv[1])
    serve()
