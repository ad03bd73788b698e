"""What runs inside each braniac process of the adversarial suite, around the real CLI
(`braniac.app.cli:main`): a guard that records (and blocks) every write outside the vault and
every read of the watched folders outside it, and, on request, a full disk at one write point.

    python -c "import guard; guard.main()" CONFIG_JSON      (or forked, see runner.py)

CONFIG_JSON: {"args": [...braniac args], "vault": dir, "allow": [dirs writes may go to besides
the vault], "watch": [dirs no read may reach], "report": file, "fault_at": k, "sticky": bool
(every later point that needs space fails too: the disk stays full), "count": bool (list the
points in the report), "memory_mb": address-space limit}

The report file gets one JSON line per finding, as it happens (a process killed later keeps
them): {"kind": "write-outside" | "read-outside", "op", "path"}, and at a normal end
{"kind": "end", "points": N, "fault": {"op", "path"} or null, "ops": [...] (with "count")}.

Write points (counted in the order the process reaches them; the k-th fails with ENOSPC):
an open for writing, a rename/replace, a hard or symbolic link, a mkdir, a truncate (all seen
through Python's audit hooks, so C code such as shutil's is covered), each write() of a file
object or os.write/os.pwrite/os.sendfile, each fsync, and each `git` command that writes.
"""
from __future__ import annotations

import builtins
import errno
import io
import json
import os
import subprocess
import sys
import threading

_REAL_OPEN = os.open
_REAL_WRITE = os.write
_REAL_CLOSE = os.close
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# what still fails on a disk that stays full (renames, links, opens and fsyncs need no new space)
_NEEDS_SPACE = {"write", "os.write", "os.pwrite", "os.sendfile", "os.mkdir", "os.ftruncate"} | {
    f"git {sub}" for sub in ("init", "add", "commit", "rm", "mv")}
_GIT_WRITES = {"init", "add", "commit", "rm", "mv", "reset", "checkout", "update-index", "stash", "restore",
               "merge", "gc", "clean"}


class Guard:
    def __init__(self, config: dict):
        self.vault = os.path.realpath(config["vault"])
        self.allow = [self.vault] + [os.path.realpath(p) for p in config.get("allow", ())]
        # the terminal and the process's own descriptors (never /dev as a whole: /dev/shm is a disk)
        self.allow += ["/dev/null", "/dev/tty", "/dev/pts", "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr",
                       "/proc/self", f"/proc/{os.getpid()}"]
        self.watch = [os.path.realpath(p) for p in config.get("watch", ())]
        self.report = config["report"]
        self.fault_at = int(config.get("fault_at") or 0)
        self.count = bool(config.get("count"))
        self.sticky = bool(config.get("sticky"))   # the disk stays full after the fault
        self.points = 0
        self.fault: dict | None = None
        self.ops: list[list[str]] = []
        self.local = threading.local()     # per thread: the hook's own file operations pass

    # ------------------------------------------------------------------ reporting
    def emit(self, record: dict) -> None:
        line = (json.dumps(record, default=str) + "\n").encode()
        busy, self.local.busy = getattr(self.local, "busy", False), True
        try:
            fd = _REAL_OPEN(self.report, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                _REAL_WRITE(fd, line)
            finally:
                _REAL_CLOSE(fd)
        except OSError as exc:     # the guard must not change what the command does
            print(f"adversarial guard: report not written: {exc}", file=sys.__stderr__)
        finally:
            self.local.busy = busy

    # ------------------------------------------------------------------ paths
    @staticmethod
    def _path(arg, dir_fd=None) -> str | None:
        if isinstance(arg, int):
            return None
        try:
            path = os.fsdecode(os.fspath(arg))
        except TypeError:
            return None
        if not os.path.isabs(path):
            base = os.getcwd()
            if isinstance(dir_fd, int) and dir_fd >= 0:
                try:
                    base = os.readlink(f"/proc/self/fd/{dir_fd}")
                except OSError:
                    return None
            path = os.path.join(base, path)
        return path

    @staticmethod
    def _under(path: str, roots: list[str]) -> bool:
        return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)

    def _where(self, path: str, follow: bool) -> str:
        """The real place an operation on `path` reaches: the final name followed or not."""
        if follow:
            return os.path.realpath(path)
        head, tail = os.path.split(path.rstrip("/") or "/")
        return os.path.join(os.path.realpath(head), tail)

    def check_write(self, op: str, path: str | None, follow: bool) -> None:
        if path is None:
            return
        real = self._where(path, follow)
        if not self._under(real, self.allow):
            self.emit({"kind": "write-outside", "op": op, "path": path, "real": real})
            raise PermissionError(errno.EACCES, f"adversarial guard: write outside the vault blocked ({op})", path)

    def check_read(self, path: str | None, follow: bool = True) -> None:
        if path is None or not self.watch:
            return
        real = self._where(path, follow)
        if self._under(real, self.watch):
            self.emit({"kind": "read-outside", "op": "open", "path": path, "real": real})

    # ------------------------------------------------------------------ faults
    def point(self, op: str, path) -> None:
        """One write point: counted, and the chosen one fails as a full disk would."""
        self.points += 1
        if self.count:
            self.ops.append([op, str(path)])
        full = self.fault is not None and self.sticky and op in _NEEDS_SPACE
        if self.points == self.fault_at or full:
            if self.fault is None:
                self.fault = {"op": op, "path": str(path), "point": self.points}
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    # ------------------------------------------------------------------ the audit hook
    def hook(self, event: str, args: tuple) -> None:
        if getattr(self.local, "busy", False):
            return
        self.local.busy = True
        try:
            self._hook(event, args)
        finally:
            self.local.busy = False

    def _hook(self, event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            target = self._path(path)
            if target is None:
                return
            writing = bool(flags & _WRITE_FLAGS) if isinstance(flags, int) else bool(mode and set(mode) & set("wax+"))
            if writing:
                follow = not (isinstance(flags, int) and flags & getattr(os, "O_NOFOLLOW", 0))
                self.check_write("open", target, follow=follow)
                self.point("open", target)
            elif isinstance(flags, int) and flags & getattr(os, "O_NOFOLLOW", 0):
                # not following a final symlink: the open reaches the link itself (or fails)
                self.check_read(target, follow=False)
            else:
                self.check_read(target)
        elif event in ("os.rename", "os.link"):
            src, dst = self._path(args[0], args[2]), self._path(args[1], args[3])
            self.check_write(event, src, follow=False)
            self.check_write(event, dst, follow=False)
            self.point(event, dst)
        elif event == "os.symlink":
            dst = self._path(args[1], args[2])
            self.check_write(event, dst, follow=False)
            self.point(event, dst)
        elif event in ("os.mkdir", "os.mkfifo", "os.mknod"):
            target = self._path(args[0], args[-1])
            self.check_write(event, target, follow=False)
            if not (event == "os.mkdir" and target and os.path.isdir(target)):   # EEXIST needs no space
                self.point(event, target)
        elif event in ("os.remove", "os.rmdir"):
            self.check_write(event, self._path(args[0], args[1]), follow=False)
        elif event == "os.truncate" and not isinstance(args[0], int):   # ftruncate is counted below
            target = self._path(args[0])
            self.check_write(event, target, follow=True)
            self.point(event, target)
        elif event in ("os.chmod", "os.chown", "os.utime"):
            self.check_write(event, self._path(args[0], args[-1] if isinstance(args[-1], int) else None), follow=True)
        elif event in ("shutil.rmtree", "shutil.move"):
            self.check_write(event, self._path(args[0]), follow=False)
        elif event == "shutil.copyfile":
            self.check_write(event, self._path(args[1]), follow=True)

    # ------------------------------------------------------------------ data writes
    def install(self) -> None:
        sys.addaudithook(self.hook)
        guard = self

        def wrap(name):
            real = getattr(os, name)

            def counted(fd, *rest, **kw):
                guard.point(f"os.{name}", _fd_path(fd))
                return real(fd, *rest, **kw)
            counted.__name__ = name
            setattr(os, name, counted)

        for name in ("write", "pwrite", "sendfile", "fsync", "fdatasync", "ftruncate"):
            if hasattr(os, name):
                wrap(name)

        real_io_open = io.open

        def opened(file, mode="r", *a, **kw):
            handle = real_io_open(file, mode, *a, **kw)
            if isinstance(mode, str) and set(mode) & set("wax+"):
                return _Counted(handle, guard, _fd_path(file) if isinstance(file, int) else file)
            return handle

        io.open = builtins.open = opened

        real_run = subprocess.run

        def run(args, *a, **kw):
            if isinstance(args, (list, tuple)) and args and os.path.basename(str(args[0])) == "git":
                sub = next((str(x) for x in args[1:] if not str(x).startswith("-") and "=" not in str(x)), "")
                if sub in _GIT_WRITES:
                    try:
                        guard.point(f"git {sub}", kw.get("cwd") or os.getcwd())
                    except OSError:
                        return subprocess.CompletedProcess(args, 128, "" if kw.get("text") else b"",
                                                           _git_enospc(kw.get("text")))
            return real_run(args, *a, **kw)

        subprocess.run = run


def _git_enospc(text: bool | None):
    message = "error: unable to write new index file: No space left on device\nfatal: could not write index\n"
    return message if text else message.encode()


def _fd_path(fd) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{int(fd)}")
    except (OSError, TypeError, ValueError):
        return f"fd {fd}"


class _Counted:
    """A file object whose writes are write points; everything else is the real file's."""

    def __init__(self, handle, guard: Guard, name):
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_guard", guard)
        object.__setattr__(self, "_name", name)

    def write(self, data):
        self._guard.point("write", self._name)
        return self._handle.write(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __enter__(self):
        self._handle.__enter__()
        return self

    def __exit__(self, *exc):
        return self._handle.__exit__(*exc)

    def __iter__(self):
        return iter(self._handle)

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __setattr__(self, name, value):
        setattr(self._handle, name, value)


def main() -> None:
    config = json.loads(sys.argv[1])
    if config.get("memory_mb"):    # a runaway parser dies of MemoryError instead of taking the machine
        import resource
        limit = int(config["memory_mb"]) << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    guard = Guard(config)
    guard.install()
    sys.argv = ["braniac", *config["args"]]
    from braniac.app.cli import main as cli_main
    status = 0
    try:
        cli_main()
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        raise
    finally:
        guard.emit({"kind": "end", "points": guard.points, "fault": guard.fault, "status": status,
                    "ops": guard.ops if guard.count else None})


if __name__ == "__main__":
    main()
