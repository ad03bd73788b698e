"""Real processes that start in milliseconds: `braniac ARGS` (or a `python -c CODE` that uses
braniac) forked from a server that has already imported braniac, instead of a new interpreter
each time.

A new `python -m braniac` spends ~0.3 s of CPU starting Python and importing braniac before it
touches the vault. The fault tests start hundreds of them (a run killed at a random instant, the
run that finishes the job, `braniac doctor`), so those starts were most of their cost. Here each
one is forked from a small single-threaded server (this file, run as a script) that imported
every braniac module once. It is a real process all the same: its own pid, files, locks and exit
status; SIGKILL kills it at once, mid-write; it runs the real entry point (`braniac.app.cli:main`)
with its own argv, environment, working folder and stdin/stdout/stderr (the client's own pipes
and files, passed over a Unix socket).

What it leaves out: starting the interpreter and importing braniac. tests/test_cli.py and the
other tests run `python -m braniac` for those, and a kill during them had nothing to interrupt.

    proc = start(["--vault", root, "promote", "--force"], env=clean_env())
    proc.send_signal(signal.SIGKILL); proc.wait()           # -9, as with subprocess.Popen
    result = run(["--vault", root, "doctor"], env=clean_env())   # a CompletedProcess (text)
    child = start(code="import sys; print(sys.argv[1])", argv=["hi"], env=..., stdout=subprocess.PIPE)
    stop()    # the server exits and is waited for (at the end of the session and at exit too),
              # so that its CPU time and its children's count in this process's (`time pytest`)
"""
from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

# what a command may import lazily besides braniac: the search engine behind promote, organize
# and search, and the parsers
PRELOAD = ["whoosh.index", "whoosh.fields", "whoosh.qparser", "whoosh.query", "whoosh.writing", "whoosh.searching",
           "whoosh.highlight", "whoosh.scoring", "whoosh.analysis", "whoosh.codec.whoosh3", "whoosh.filedb.filestore",
           "frontmatter", "yaml", "filelock", "click"]


# ------------------------------------------------------------------------------ the server

def _exit_status(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _become(request: dict, fds: list[int]) -> int:
    """In the forked child: become `braniac ARGS` (or `python -c CODE ARGV`), run it, return
    the exit status the interpreter would give."""
    import traceback
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    if request["cwd"] is not None:
        os.chdir(request["cwd"])
    if request.get("code") is not None:
        sys.argv = ["-c", *request["argv"]]
        code = compile(request["code"], "<string>", "exec")

        def main():
            exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
    else:
        sys.argv = ["braniac", *request["args"]]
        from braniac.app.cli import main
    try:
        main()
        status = 0
    except SystemExit as exc:          # what the interpreter does with it
        if exc.code is None or isinstance(exc.code, int):
            status = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            status = 1
    except BaseException:  # noqa: BLE001 - an uncaught error: traceback on stderr, status 1
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream (output piped away) is fine
            pass
    return status


def serve(control: socket.socket) -> None:
    """Take one request a packet on `control` (JSON, and the child's stdin, stdout and stderr as
    file descriptors), fork a child for each; write `started ID PID` and `exited PID STATUS`
    lines on stdout. The control socket closed: wait for the children, then exit."""
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
    out = sys.stdout.buffer
    children: set[int] = set()
    closed = False

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
        try:
            ready, _, _ = select.select([wake_r] + ([] if closed else [control]), [], [])
        except InterruptedError:
            ready = []
        if wake_r in ready:
            os.read(wake_r, 512)
        if control in ready:
            data, fds, _, _ = socket.recv_fds(control, 1 << 22, 3)
            if not data:
                closed = True
            else:
                request = json.loads(data)
                pid = os.fork()
                if pid == 0:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    for fd in (wake_r, wake_w, control.fileno()):
                        os.close(fd)
                    status = 1
                    try:
                        status = _become(request, fds)
                    except BaseException:  # noqa: BLE001 - could not even start: say why
                        import traceback
                        traceback.print_exc()
                    finally:
                        os._exit(status)
                for fd in fds:
                    os.close(fd)
                children.add(pid)
                out.write(f"started {request['id']} {pid}\n".encode())
                out.flush()
        reap()


# ------------------------------------------------------------------------------ the client

class _Server:
    def __init__(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control = ours
        self.proc = subprocess.Popen([sys.executable, __file__, json.dumps(sys.path), str(theirs.fileno())],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=dict(os.environ),
                                     pass_fds=[theirs.fileno()])
        theirs.close()
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

    def fork(self, request: dict, fds: list[int]) -> int:
        with self.lock:
            self.next_id += 1
            request["id"] = ident = self.next_id
            socket.send_fds(self.control, [json.dumps(request).encode()], fds)
        with self.cond:
            self.cond.wait_for(lambda: ident in self.started or self.proc.poll() is not None)
            assert ident in self.started, "the braniac fork server died"
            return self.started.pop(ident)

    def status(self, pid: int, timeout: float | None) -> int | None:
        with self.cond:
            self.cond.wait_for(lambda: pid in self.exited, timeout)
            return self.exited.pop(pid, None)

    def stop(self) -> None:
        self.control.close()
        try:
            self.proc.wait(timeout=120)     # it waits for its children first
        except subprocess.TimeoutExpired:   # a child that never ends: leave it, end the server
            self.proc.kill()
            self.proc.wait()


_server: _Server | None = None
_server_lock = threading.Lock()


def _get_server() -> _Server:
    global _server
    with _server_lock:
        if _server is None or _server.proc.poll() is not None:
            _server = _Server()
        return _server


class Forked:
    """A running child, with the part of subprocess.Popen the tests use. stdout and stderr:
    None for /dev/null, subprocess.PIPE for a pipe (self.stdout / self.stderr, text), or an open
    file. stdin is /dev/null."""

    def __init__(self, request: dict, *, stdout=None, stderr=None):
        self.args = request.get("args") or ["-c", request.get("code")]
        self.stdout = self.stderr = None
        theirs = [os.open(os.devnull, os.O_RDONLY)]
        for name, how in (("stdout", stdout), ("stderr", stderr)):
            if how == subprocess.PIPE:
                r, w = os.pipe()
                setattr(self, name, open(r, encoding="utf-8", errors="replace"))
                theirs.append(w)
            elif how is None:
                theirs.append(os.open(os.devnull, os.O_WRONLY))
            else:
                theirs.append(os.dup(how.fileno()))
        self._server = _get_server()
        try:
            self.pid = self._server.fork(request, theirs)
        finally:
            for fd in theirs:
                os.close(fd)
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
        if self.poll() is None:        # not reaped yet: the pid is still this child's
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        import signal
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[str | None, str | None]:
        """Wait for the exit; the pipes' text."""
        texts: dict[str, str] = {}
        readers = [threading.Thread(target=lambda n=name: texts.__setitem__(n, getattr(self, n).read()), daemon=True)
                   for name in ("stdout", "stderr") if getattr(self, name)]
        for reader in readers:
            reader.start()
        self.wait(timeout)
        for reader in readers:
            reader.join(timeout)
        for name in ("stdout", "stderr"):
            if getattr(self, name):
                getattr(self, name).close()
        return texts.get("stdout"), texts.get("stderr")


def start(args=None, *, code: str | None = None, argv=(), env: dict[str, str], cwd=None, stdout=None,
          stderr=None) -> Forked:
    """`braniac ARGS`, or `python -c CODE ARGV`, started."""
    request = {"args": [str(a) for a in args or ()], "code": code, "argv": [str(a) for a in argv], "env": dict(env),
               "cwd": None if cwd is None else str(cwd)}
    return Forked(request, stdout=stdout, stderr=stderr)


def run(args, *, env: dict[str, str], cwd=None, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Like subprocess.run(["braniac", *args], capture_output=True, text=True)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = start(args, env=env, cwd=cwd, stdout=out, stderr=err)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
        texts = []
        for handle in (out, err):
            handle.seek(0)
            texts.append(handle.read().decode("utf-8", "replace"))
    return subprocess.CompletedProcess(["braniac", *proc.args], proc.returncode, texts[0], texts[1])


def ready() -> None:
    """Start the server now (it takes a second), so that no timed run waits for it."""
    _get_server()


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
    serve(socket.socket(fileno=int(sys.argv[2])))
