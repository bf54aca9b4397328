"""Start every learner's kernel by forking one process that has already imported torch.

Most of a graded notebook's time is a fresh Python importing torch, transformers
and ipykernel, not the attention maths. The server pays that once; each kernel
is a fresh fork of it, so learners still never share a process.

    python -m attn_grader.forkserver serve SOCKET            # attn_grader.grade starts this
    python -m attn_grader.forkserver kernel SOCKET -f FILE   # the kernelspec's argv (see install_kernelspec)

The `kernel` side is a tiny relay that jupyter_client launches and signals like
any kernel; it hands its stdio and the connection file to the server and waits.

Each forked kernel, before any learner code runs:
- gets a session of its own, so a fork loop or a stray child dies with it;
- gets limits on memory (address space), CPU time and processes;
- enters a sandbox of its own (sandbox.py): a private root with only its notebook's
  folder (read-write) and the Python environment (read-only), its own PID, network
  and IPC namespaces (it talks to the grader over Unix sockets); when the grader is
  root it also runs as a uid of its own that owns no file.
Where the machine allows no namespaces, kernels run without a sandbox, and the
server says so when it starts (the grader prints it and writes it to flags.csv).
"""
from __future__ import annotations

import gc
import json
import os
import resource
import selectors
import shutil
import signal
import socket
import sys
import tempfile

from .kernel_env import kernel_env

KERNEL_NAME = "attn-course-forked"

MEMORY_LIMIT = int(os.environ.get("ATTN_KERNEL_MEMORY", 6 << 30))   # bytes of address space
CPU_LIMIT = int(os.environ.get("ATTN_KERNEL_CPU", 900))              # seconds
PROCESS_LIMIT = 64                                                   # tasks (threads count)
FIRST_UID = 200_000


def install_kernelspec(data_dir: str, sock: str) -> None:
    """Write a kernelspec under data_dir/kernels/ that launches kernels through sock."""
    spec_dir = os.path.join(data_dir, "kernels", KERNEL_NAME)
    os.makedirs(spec_dir, exist_ok=True)
    spec = {"argv": [sys.executable, "-m", "attn_grader.forkserver", "kernel", sock, "-f", "{connection_file}"],
            "display_name": "Python 3 (forked)", "language": "python", "interrupt_mode": "signal"}
    with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
        json.dump(spec, f)


# --------------------------------------------------------------------------- relay (the kernel's argv)
def relay(sock_path: str, connection_file: str) -> None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(sock_path)
    request = {"connection_file": os.path.abspath(connection_file), "cwd": os.getcwd(),
               "env": kernel_env(os.environ)}
    # The kernel's own banner on stdout is noise in the grader's terminal; errors still show.
    null = os.open(os.devnull, os.O_RDWR)
    socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [null, null, 2])
    reader = conn.makefile("r")
    pid = int(json.loads(reader.readline())["pid"])

    # jupyter_client interrupts and kills this relay; pass that on to the kernel.
    def forward(signum, _frame):
        try:
            os.killpg(pid, signal.SIGKILL if signum == signal.SIGTERM else signum)
        except ProcessLookupError:
            pass
        if signum == signal.SIGTERM:
            os._exit(1)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, forward)
    line = reader.readline()
    sys.exit(int(json.loads(line)["exit"]) if line else 1)


# --------------------------------------------------------------------------- server
# Never imported ahead: side effects (a browser, a poem, a GUI) or not importable here.
_SKIP_STDLIB = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "lib2to3", "ensurepip",
                "venv", "pydoc_data", "test", "xxlimited", "xxlimited_35", "xxsubtype", "_xxtestfuzz", "__main__"}


def _preload_stdlib() -> None:
    """Import the standard library up front: where Python lives in a folder only root can
    read (pyenv under /root, say), a kernel that has dropped to its own uid could not."""
    import importlib
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(sys.stdlib_module_names - _SKIP_STDLIB):
            if name.startswith("_test"):
                continue
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - platform modules that do not exist here
                pass
        # Codecs are looked up by name, lazily, on first use.
        import encodings
        import pkgutil
        for info in pkgutil.iter_modules(encodings.__path__):
            try:
                importlib.import_module(f"encodings.{info.name}")
            except Exception:  # noqa: BLE001 - e.g. mbcs exists only on Windows
                pass


def _preload() -> None:
    # matplotlib fixes its config folder at import; root's would be unreadable to the kernels.
    # One that stays between runs keeps its font cache, which takes seconds to rebuild.
    os.environ["MPLCONFIGDIR"] = os.path.join(tempfile.gettempdir(), f"attn-course-mpl-{os.geteuid()}")
    os.makedirs(os.environ["MPLCONFIGDIR"], mode=0o755, exist_ok=True)
    _preload_stdlib()
    # debugpy, imported here once, would otherwise print a warning about frozen modules to the grader's terminal.
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    import IPython  # noqa: F401
    import IPython.core.debugger  # noqa: F401
    import ipykernel.debugger  # noqa: F401  (imports debugpy: a few tenths of a second in every kernel's start)
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import ipykernel.zmqshell  # noqa: F401
    import matplotlib  # noqa: F401
    import matplotlib.pyplot  # noqa: F401
    import matplotlib_inline.backend_inline  # noqa: F401
    import numpy  # noqa: F401
    import torch  # noqa: F401
    import torch.nn.functional  # noqa: F401
    try:
        import attn_course  # noqa: F401
        import attn_course.widgets  # noqa: F401
        import ipywidgets  # noqa: F401
        warm_imports()
    except ImportError:
        pass


# Imported on first use, seconds each: flex_attention's first call imports torch._dynamo and much of torch's
# compiler (about 5 s here); torch.broadcast_shapes imports symbolic_shapes (1.2 s); attn_course.hf imports
# transformers' GPT-2 and Llama code (4 s). Kernels (lesson 8, the checks) and the grader's workers (the hidden
# judges) both use them.
LAZY = ("torch.fx.experimental.symbolic_shapes", "torch._dynamo", "torch._higher_order_ops.flex_attention",
        "torch.nn.attention.flex_attention", "functorch.compile", "torch._inductor.ir", "torch.export._trace",
        "torch._dynamo.testing", "attn_course.hf", "transformers.models.gpt2.modeling_gpt2",
        "transformers.models.llama.modeling_llama", "transformers.masking_utils",
        "transformers.models.deepseek_v3.modeling_deepseek_v3", "transformers.models.gpt_oss.modeling_gpt_oss",
        "transformers.models.bloom.modeling_bloom")


def warm_imports() -> None:
    """Import LAZY once in a process that forks (this server, and attn_grader.grade before its worker pool), so
    every child starts with them. Imports only: no tensor operation runs before the fork (an OpenMP pool made
    here would not survive it)."""
    import importlib
    for name in LAZY:
        importlib.import_module(name)


def _become_kernel(request: dict, fds: list[int], uid: int | None, home: str, readonly: list[str] | None) -> None:
    """In the forked child: isolate, then run ipykernel until it shuts down."""
    os.setsid()
    for target, fd in zip((0, 1, 2), fds):
        os.dup2(fd, target)
        os.close(fd)
    env = kernel_env(request.pop("env"))
    connection_file = request["connection_file"]
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT))
    if readonly is not None:
        from . import sandbox
        with open(connection_file) as f:
            info = json.load(f)
        sockets = os.path.dirname(info["ip"]) if info.get("transport") == "ipc" else None
        connection_file = sandbox.enter(request["cwd"], readonly, sockets, connection_file, uid)
        env.update(HOME="/tmp", MPLCONFIGDIR="/tmp", IPYTHONDIR="/tmp/.ipython", XDG_CACHE_HOME="/tmp",
                   JUPYTER_RUNTIME_DIR="/tmp", TMPDIR="/tmp")
        # Only the kernel's own processes count: its uid is its own (root) or its PID namespace is.
        resource.setrlimit(resource.RLIMIT_NPROC, (PROCESS_LIMIT, PROCESS_LIMIT))
    else:
        env.update(HOME=home, MPLCONFIGDIR=home, IPYTHONDIR=os.path.join(home, ".ipython"), TMPDIR=home)
    # The grader's own code stays outside: its modules, and the editable install's finder for it.
    for name in [m for m in sys.modules if m.startswith(("attn_grader", "__editable___attn_grader"))]:
        del sys.modules[name]
    sys.meta_path[:] = [f for f in sys.meta_path if "attn_grader" not in getattr(f, "__module__", "")]
    os.environ.clear()
    os.environ.update(env)
    os.chdir(request["cwd"])
    # A fork copies the random state: give each learner a fresh one, as a new process would have.
    import random

    import torch
    random.seed()
    torch.seed()
    # The grader runs one kernel per core. A kernel with a thread per core would oversubscribe
    # the machine, and OpenMP's spinning threads then make training many times slower.
    torch.set_num_threads(int(env.get("ATTN_KERNEL_THREADS", 1)))
    from ipykernel.kernelapp import IPKernelApp
    app = IPKernelApp.instance()
    app.initialize(["-f", connection_file, "--IPKernelApp.log_level=ERROR"])
    _only_the_kernel_speaks(app)
    # pyzmq starts its garbage-collector thread on the first large message. Started now, before
    # learner code: a fork loop that uses up the process limit cannot stop the kernel replying.
    from zmq.utils.garbage import gc as zmq_gc
    zmq_gc.start()
    app.start()


def _only_the_kernel_speaks(app) -> None:
    """A process the learner's code forks is a copy of the kernel, sockets and all: left alone, a
    fork loop's children answer the grader too, and their interleaved messages break every
    signature. A copy sends nothing, and ends when the cell it was forked in ends."""
    kernel_pid = os.getpid()
    os.register_at_fork(after_in_child=lambda: setattr(app.session, "send", lambda *a, **k: None))
    shell = app.shell
    run_cell, run_cell_async = shell.run_cell, shell.run_cell_async

    def run_cell_here(*args, **kwargs):
        try:
            return run_cell(*args, **kwargs)
        finally:
            if os.getpid() != kernel_pid:
                os._exit(0)

    async def run_cell_async_here(*args, **kwargs):
        try:
            return await run_cell_async(*args, **kwargs)
        finally:
            if os.getpid() != kernel_pid:
                os._exit(0)
    shell.run_cell, shell.run_cell_async = run_cell_here, run_cell_async_here


def _isolation() -> tuple[list[str] | None, str]:
    """The read-only paths kernels get in their sandbox, or None and why there is no sandbox."""
    from . import sandbox
    ok, why = sandbox.available()
    return (sandbox.readonly_paths(), "") if ok else (None, why)


def _die_with_the_grader() -> None:
    """SIGTERM (and so the kernels' cleanup below) when the grader that started this server dies, however it
    dies: killed outright, it left this server and its kernels running for good."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):  # not Linux: the grader's own `finally` is all there is
        pass


def serve(sock_path: str) -> None:
    # The handler comes first: a grader killed just after the server said "ready" sent its SIGTERM before the
    # handler existed, and the server died without its cleanup (the socket stayed; kernels would have too).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    _die_with_the_grader()
    parent = os.getppid()
    _preload()
    if os.getppid() != parent:  # the grader died while this process was importing, before the signal could come
        sys.exit(0)
    readonly, why = _isolation()
    # What the preload made lives as long as every kernel: out of the collector's sight, a kernel's full
    # collection no longer walks (and copies, page by page) those half a million objects: 0.5-2 s each time.
    gc.freeze()
    children: dict[int, socket.socket] = {}      # kernel pid -> its relay's connection
    homes: dict[int, str] = {}                    # kernel pid -> its private folder, removed when it exits
    next_uid = FIRST_UID
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(sock_path)
        os.chmod(sock_path, 0o600)  # kernels run as other uids and cannot ask for forks
        listener.listen(64)
        print(json.dumps({"ready": True, "isolated": readonly is not None, "why": why,
                          "root": os.geteuid() == 0}), flush=True)
        selector = selectors.DefaultSelector()
        selector.register(listener, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select(timeout=0.05):
                if key.fileobj is listener:
                    conn, _ = listener.accept()
                    msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
                    request = json.loads(msg.split(b"\n", 1)[0])
                    uid = next_uid if readonly is not None and os.geteuid() == 0 else None
                    next_uid += 1
                    home = tempfile.mkdtemp(prefix="attn-kernel-")
                    pid = os.fork()
                    if pid == 0:
                        listener.close()
                        conn.close()
                        for other in children.values():
                            other.close()
                        code = 0
                        try:
                            _become_kernel(request, fds, uid, home, readonly)
                        except BaseException:  # noqa: BLE001 - a kernel must never return into the server
                            import traceback
                            traceback.print_exc()
                            sys.stderr.flush()
                            code = 1
                        os._exit(code)
                    for fd in fds:
                        os.close(fd)
                    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
                    children[pid] = conn
                    homes[pid] = home
                    selector.register(conn, selectors.EVENT_READ, pid)
                else:
                    # The relay went away (killed by jupyter_client): take the kernel with it.
                    pid = key.data
                    _kill(pid)
            while children:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                conn = children.pop(pid, None)
                shutil.rmtree(homes.pop(pid, ""), ignore_errors=True)
                if conn is not None:
                    _kill(pid)  # whatever the kernel left in its session
                    selector.unregister(conn)
                    try:
                        conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                    except OSError:
                        pass
                    conn.close()
    finally:
        for pid in children:
            _kill(pid)
        for home in homes.values():
            shutil.rmtree(home, ignore_errors=True)
        if os.path.exists(sock_path):  # a SIGTERM can come before the bind
            os.unlink(sock_path)


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


if __name__ == "__main__":
    role, sock = sys.argv[1], sys.argv[2]
    if role == "serve":
        serve(sock)
    else:
        relay(sock, sys.argv[sys.argv.index("-f") + 1])
