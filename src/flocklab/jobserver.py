"""A warm fork server for pipeline simulate jobs: start-up paid once, not per job.

A simulate job spends about 1.3 s before its first time step: imports (numpy, numba,
netCDF4 ≈ 0.5 s), numba's target initialisation on the first compiled call (≈ 0.8 s, of
which ≈ 0.3 s is numba importing ``scipy.linalg`` for its BLAS check). With thousands of
short runs in a study that is most of the work. The job server pays it once: it imports
and initialises everything a job needs, then listens on a Unix socket; each job's
``python -m flocklab.job`` process (the *client*, ≈ 0.05 s) sends its spec and its
stdout/stderr file descriptors, the server forks a child that is already warm, the child
runs the job exactly as the client would have (same code, same spec: same bytes), writes
its output to the client's descriptors and sends back the exit status.

Contract and safety
-------------------
- The server is single-threaded and never runs compiled code itself, so forking is safe;
  numba's thread pool is started, if at all, in the child.
- One server per (interpreter, ``sys.path``, working directory, environment variables that
  change numerical behaviour: ``NUMBA_*``, ``OMP_*``, ``OPENBLAS_*``, ``MKL_*``, ``PYTHON*``,
  ``FLOCKLAB_*``, ``PATH``): their hash names the socket, in a directory only the user can
  read (``$FLOCKLAB_JOB_SERVER_DIR``, default ``<tmp>/flocklab-<uid>``).
- Code changes are never served stale: before each fork the server compares the
  modification times of every project source file it has loaded (anything outside the
  interpreter's own and site-packages directories) with those at start-up; on a change it
  refuses the job, removes its socket and exits, and the client starts a fresh server.
- Each job runs in a process of its own (a grandchild of the server) watched by its parent:
  a client that dies (Snakemake cancelled the job) closes the connection, and the watcher
  ends the job with SIGTERM at once (compiled kernels hold the GIL, so no thread inside the
  job could); as with a cold job killed by Snakemake, the atomic writer has published no
  output.
- The server exits after ``$FLOCKLAB_JOB_SERVER_IDLE`` seconds (default 60) without a job.
- Inside a batch-system job (``SLURM_JOB_ID``, ``PBS_JOBID``, ``LSB_JOBID`` set) the client
  does not use a server: a daemon started by one cluster job would be killed with that job
  and would run other jobs' work outside their allocations.

The server only makes jobs start faster; results are identical with and without it (tested
byte for byte). Snakemake's ``benchmark:`` files then time the client: its wall time is the
job's, its CPU time is not (the child's CPU time is written to the job's log).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import time

IDLE_SECONDS = float(os.environ.get("FLOCKLAB_JOB_SERVER_IDLE", "60"))
START_TIMEOUT = 60.0  # seconds a client waits for a new server to listen
BATCH_JOB_VARIABLES = ("SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID")
KEY_PREFIXES = ("NUMBA_", "OMP_", "OPENBLAS_", "MKL_", "PYTHON", "FLOCKLAB_")
_HEADER = struct.Struct("!Q")
#: The line the watcher appends to the job's stderr (its log): the job's own wall and CPU time.
USAGE_LINE = "job server child: wall {wall:.3f} s, CPU {cpu:.3f} s\n"


# --------------------------------------------------------------------------- both sides

def socket_path() -> str:
    """The socket of the server that matches this process's interpreter and environment."""
    import hashlib
    import tempfile

    directory = os.environ.get("FLOCKLAB_JOB_SERVER_DIR") or os.path.join(
        tempfile.gettempdir(), f"flocklab-{os.getuid()}")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    environment = sorted((name, value) for name, value in os.environ.items()
                         if name.startswith(KEY_PREFIXES) or name == "PATH")
    identity = json.dumps([sys.executable, sys.path, os.getcwd(), environment])
    return os.path.join(directory, hashlib.sha256(identity.encode()).hexdigest()[:20] + ".sock")


def _send_message(connection: socket.socket, message: dict, fds: list[int] | None = None) -> None:
    body = json.dumps(message).encode()
    header = _HEADER.pack(len(body))
    if fds:
        socket.send_fds(connection, [header], fds)
    else:
        connection.sendall(header)
    connection.sendall(body)


def _receive_message(connection: socket.socket, with_fds: int = 0) -> tuple[dict, list[int]]:
    fds: list[int] = []
    if with_fds:
        header, fds, _, _ = socket.recv_fds(connection, _HEADER.size, with_fds)
    else:
        header = connection.recv(_HEADER.size, socket.MSG_WAITALL)
    if len(header) < _HEADER.size:
        raise ConnectionError("connection closed before a message")
    (length,) = _HEADER.unpack(header)
    body = connection.recv(length, socket.MSG_WAITALL)
    if len(body) < length:
        raise ConnectionError("connection closed inside a message")
    return json.loads(body), fds


# --------------------------------------------------------------------------- client

def job_cpu_seconds(log_text: str) -> float | None:
    """The job's CPU time from its log's :data:`USAGE_LINE` (``None``: no server ran it)."""
    import re

    match = re.search(r"job server child: wall [0-9.]+ s, CPU ([0-9.]+) s", log_text)
    return float(match.group(1)) if match else None


def enable_for_jobs(enabled: bool) -> None:
    """Tell the simulate jobs this process starts whether to use a server (the workflow
    calls this with the config key ``job_server``)."""
    os.environ["FLOCKLAB_JOB_SERVER"] = "1" if enabled else "0"


def requested() -> bool:
    """Whether the workflow asked jobs to use a server (``FLOCKLAB_JOB_SERVER=1``)."""
    return os.environ.get("FLOCKLAB_JOB_SERVER") == "1"


def usable() -> str | None:
    """Why this job should not use a server (``None``: it may)."""
    if not requested():
        return "FLOCKLAB_JOB_SERVER is not 1"
    for name in BATCH_JOB_VARIABLES:
        if os.environ.get(name):
            return f"running inside a batch-system job ({name} is set)"
    if not hasattr(socket, "AF_UNIX") or not hasattr(socket, "send_fds"):
        return "no Unix sockets with descriptor passing on this platform"
    return None


def submit(spec: dict) -> int:
    """Run ``spec`` (a :mod:`flocklab.job` spec) in a warm server child; its exit status.

    Raises
    ------
    ConnectionError
        No server could be reached or started (the caller then runs the job itself and
        says so in the job's log).
    """
    path = socket_path()
    for _attempt in range(3):
        connection = _connect_or_start(path)
        with connection:
            _send_message(connection, {"spec": spec, "cwd": os.getcwd()},
                          fds=[sys.stdout.fileno(), sys.stderr.fileno()])
            try:
                reply, _ = _receive_message(connection)
            except ConnectionError:
                sys.stderr.write("flocklab job server: the job's process ended without a "
                                 "status (killed or crashed)\n")
                return 1
        if reply.get("status") != "stale":
            return int(reply["exit"])
        # the server saw changed sources and exited; the next attempt starts a new one
    raise ConnectionError("job servers kept reporting changed sources")


def _connect(path: str) -> socket.socket | None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
    except OSError:
        connection.close()
        return None
    return connection


def _connect_or_start(path: str) -> socket.socket:
    connection = _connect(path)
    if connection is not None:
        return connection
    import fcntl

    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one client starts the server, the others wait
        connection = _connect(path)
        if connection is not None:
            return connection
        _start_server(path)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            connection = _connect(path)
            if connection is not None:
                return connection
            time.sleep(0.02)
    raise ConnectionError(f"no job server listening on {path} after {START_TIMEOUT:.0f} s "
                          f"(its log: {path}.log)")


def _start_server(path: str) -> None:
    import subprocess

    if os.path.exists(path):
        os.unlink(path)  # left by a server that died
    with open(path + ".log", "ab") as log:
        subprocess.Popen([sys.executable, "-m", "flocklab.jobserver", path],
                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True, close_fds=True)


# --------------------------------------------------------------------------- server

class SourceWatch:
    """Modification times of the project source files loaded in this process.

    Files of the interpreter's standard library and of ``site-packages`` are left out
    (an upgrade there changes ``sys.path`` or the interpreter, hence the server's key);
    everything else a model may import — this package in an editable install, plugin
    models beside it — is watched.
    """

    def __init__(self) -> None:
        self.stamps = self._stamps()

    @staticmethod
    def _stamps() -> dict[str, tuple[int, int]]:
        import sysconfig

        excluded = tuple({sysconfig.get_path(name) for name in ("stdlib", "platstdlib",
                                                                 "purelib", "platlib")})
        stamps = {}
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if path and not path.startswith(excluded):
                stamp = _stamp(path)
                if stamp is not None:
                    stamps[path] = stamp
        return stamps

    def changed(self) -> list[str]:
        """Watched files changed or removed since the snapshot."""
        return [path for path, stamp in self.stamps.items() if _stamp(path) != stamp]


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def warm_up() -> None:
    """Import and initialise what every simulate job needs, without running compiled code."""
    import netCDF4  # noqa: F401
    import numba.np.arraymath  # noqa: F401  (imports scipy.linalg for numba's BLAS check)
    from numba.core.registry import cpu_target

    cpu_target.target_context.refresh()
    cpu_target.typing_context.refresh()
    import flocklab.core.driver
    import flocklab.core.record
    import flocklab.job
    import flocklab.stages.simulate  # noqa: F401
    from flocklab.core.registry import available_models, get_model

    for name in available_models():  # import every registered model's module (≈ 0.1 s a job)
        try:
            get_model(name)
        except Exception as error:  # a broken plugin fails its own jobs, not the server
            print(f"model {name!r} not preloaded: {error}", flush=True)


def serve(path: str, idle_seconds: float = IDLE_SECONDS) -> None:
    """Listen on ``path`` and fork a warm child per job until idle for ``idle_seconds``."""
    import signal

    warm_up()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    Listener(path).serve(SourceWatch(), idle_seconds)


class Listener:
    """The server's socket: bound atomically, removed only while it is still ours."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if os.path.exists(path + ".new"):
            os.unlink(path + ".new")  # left by a server killed while starting
        self.socket.bind(path + ".new")
        self.socket.listen(64)
        os.replace(path + ".new", path)  # clients see the socket only once it listens
        self.inode = os.stat(path).st_ino
        self.socket.settimeout(1.0)

    def serve(self, watch: SourceWatch, idle_seconds: float) -> None:
        """Fork a child per connection; stop when idle or when sources changed."""
        children: set[int] = set()
        last_activity = time.monotonic()
        stale = False
        try:
            while children or time.monotonic() - last_activity < idle_seconds:
                _reap(children)
                try:
                    connection, _ = self.socket.accept()
                except TimeoutError:
                    continue
                last_activity = time.monotonic()
                changed = watch.changed()
                if changed:
                    print(f"sources changed ({', '.join(changed[:3])}); exiting", flush=True)
                    stale = True
                    self.unlink()
                    _refuse_stale(connection)
                    break
                children.add(_fork_job(connection, self.socket))
        finally:
            self.unlink()
            self.drain(refuse=stale)

    def unlink(self) -> None:
        """Remove the socket file unless a successor has already bound the path."""
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except FileNotFoundError:
            pass

    def drain(self, refuse: bool) -> None:
        """Serve (or refuse as stale) connections made before the socket file went away."""
        self.socket.setblocking(False)
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                break
            connection.setblocking(True)
            if refuse:
                _refuse_stale(connection)
            else:
                _fork_job(connection, self.socket)
        self.socket.close()


def _reap(children: set[int]) -> None:
    for pid in list(children):
        finished, _ = os.waitpid(pid, os.WNOHANG)
        if finished:
            children.discard(pid)


def _refuse_stale(connection: socket.socket) -> None:
    with connection:
        try:
            _, fds = _receive_message(connection, with_fds=2)
            for fd in fds:
                os.close(fd)
            _send_message(connection, {"status": "stale"})
        except (ConnectionError, OSError):
            pass


def _fork_job(connection: socket.socket, listener: socket.socket) -> int:
    pid = os.fork()
    if pid:
        connection.close()
        return pid
    listener.close()
    code = 1
    try:
        code = _run_child(connection)
    finally:
        os._exit(code)


def _run_child(connection: socket.socket) -> int:
    """In the forked child: run the job in a grandchild, watch the client, report.

    The job runs in a process of its own so that a client that goes away can stop it at
    once: compiled kernels hold the GIL for long stretches, which no thread of the job's
    own process could interrupt.
    """
    os.setsid()  # the server's session is not the job's
    request, fds = _receive_message(connection, with_fds=2)
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        connection.close()
        _run_job(request, fds)
    code, cpu = _wait_or_stop(pid, connection)
    os.write(fds[1], USAGE_LINE.format(wall=time.perf_counter() - started, cpu=cpu).encode())
    for fd in fds:
        os.close(fd)
    try:
        _send_message(connection, {"status": "done", "exit": code})
    except OSError:
        pass  # the client is gone
    return code


def _run_job(request: dict, fds: list[int]) -> None:
    """In the grandchild: take over the client's stdout/stderr and directory, run, exit."""
    import signal
    import traceback

    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a stop request ends the job at once
    for target, fd in zip((1, 2), fds, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    code = 1
    try:
        os.chdir(request["cwd"])
        from flocklab.job import run_spec

        run_spec(request["spec"])
        code = 0
    except BaseException:  # reported to the client as the job's failure
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _wait_or_stop(pid: int, connection: socket.socket) -> tuple[int, float]:
    """Wait for the job ``pid``; stop it if the client hangs up. Exit code and CPU time."""
    import select
    import signal

    watched = [connection]
    pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    if pidfd is not None:
        watched.append(pidfd)
    stopped_at = None
    while True:
        finished, status, usage = os.wait4(pid, os.WNOHANG)
        if finished:
            break
        timeout = 0.01 if pidfd is None else None
        if stopped_at is not None:
            timeout = 0.1
            if time.monotonic() - stopped_at > 10.0:
                os.kill(pid, signal.SIGKILL)
        ready, _, _ = select.select(watched, [], [], timeout)
        if connection in ready and stopped_at is None and not connection.recv(1):
            os.kill(pid, signal.SIGTERM)  # the client went away: no one wants the result
            stopped_at = time.monotonic()
            watched.remove(connection)
    if pidfd is not None:
        os.close(pidfd)
    code = os.waitstatus_to_exitcode(status)
    return (code if code >= 0 else 1), usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    """``python -m flocklab.jobserver SOCKET``: serve until idle (started by clients)."""
    arguments = argv if argv is not None else sys.argv[1:]
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} job server {os.getpid()} on {arguments[0]}",
          flush=True)
    serve(arguments[0])
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
