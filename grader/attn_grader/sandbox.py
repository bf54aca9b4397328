"""A private root for one learner's kernel: its own folder read-write, the Python it needs read-only, nothing else.

Called in a freshly forked kernel process, before any learner code runs. It uses
what Linux gives: new mount, PID, network, IPC and UTS namespaces (and a user
namespace when the grader is not root), a tmpfs as the new root with bind mounts
of only what the kernel may see, pivot_root, and then no way back: privileges and
capabilities are dropped and no_new_privs is set.

What the kernel sees afterwards:
- a private copy of its notebook's folder, writable, at the same path (so relative paths work): a figure a
  cell saves lands there and is gone with the kernel; the grader's own folder is never written by learner code
  (a kernel dropped to another uid could not write it, and a link planted there would be followed by the grader);
- the Python environment (interpreter, site-packages, the learner package) and the
  system's /usr, read-only;
- a private, empty /tmp (its HOME), a few /dev nodes and pseudo-terminals of its own, its own /proc;
- the folder of the Unix sockets the grader talks to it through.
Other learners' folders, the course's sources, references and gradebook, /etc,
/root, /home and the rest of the machine are simply not there.
"""
from __future__ import annotations

import ctypes
import os
import platform
import signal
import sys

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 4096, 16384, 1 << 18, 1 << 21
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP = 38, 24
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
DEVICES = ("null", "zero", "full", "random", "urandom")

_libc = ctypes.CDLL(None, use_errno=True)


class SandboxError(OSError):
    pass


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise SandboxError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source, target, fstype, flags, data=None) -> None:
    enc = lambda s: None if s is None else os.fsencode(s)  # noqa: E731
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {source} on {target}")


def _locked_flags(path: str) -> int:
    """The flags a bind mount of path keeps when remounted: in a user namespace they may not be cleared."""
    f = os.statvfs(path).f_flag
    table = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
             (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME))
    return sum(ms for st, ms in table if f & st)


def _bind(root: str, path: str, writable: bool = False) -> None:
    target = root + path
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    _mount(path, target, None, MS_BIND | MS_REC)
    if not writable:
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _locked_flags(path))


def readonly_paths() -> list[str]:
    """What a kernel needs to run Python and import what the lessons import: the interpreter's
    prefixes, the system's /usr, and the learner package's own folder (an editable install
    lives in the course's checkout, whose other folders the kernel must not see)."""
    import attn_course
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, "/usr", os.path.dirname(attn_course.__file__)}
    return sorted(p for p in paths if os.path.isdir(p))


def enter(folder: str, readonly: list[str], sockets: str | None, connection_file: str, uid: int | None) -> str:
    """Move this process into a sandbox; return the connection file's path inside it.

    Forks once (a new PID namespace starts with the next child): the parent stays outside,
    waits, and exits with the child's status; the child returns here as PID 1 of its namespace.
    """
    root_user = os.geteuid() == 0
    outer_uid, outer_gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    _check(_libc.unshare(flags if root_user else flags | CLONE_NEWUSER), "unshare")
    if not root_user:  # map ourselves to ourselves; the capabilities this gives end with _drop below
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{outer_uid} {outer_uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{outer_gid} {outer_gid} 1")
    with open(connection_file, "rb") as f:
        connection = f.read()
    pid = os.fork()
    if pid:
        _wait_outside(pid)
    # PID 1 of the new namespace: build the root, enter it, drop what could undo it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = _make_root(folder, readonly, sockets, uid)
    inside = "/tmp/kernel.json"
    with open(root + inside, "wb") as f:
        f.write(connection)
    _pivot(root)
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(folder)
    if uid is not None:
        os.chown(inside, uid, uid)
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    _drop()
    return inside


def _wait_outside(pid: int) -> None:
    """The parent outside the namespaces: pass on nothing, wait, exit as the kernel did."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is for the kernel (same process group)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _make_root(folder: str, readonly: list[str], sockets: str | None, uid: int | None) -> str:
    root = "/tmp/.attn-sandbox-root"
    os.makedirs(root, exist_ok=True)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
    for link in ("/bin", "/lib", "/lib64", "/sbin", "/lib32"):
        if os.path.islink(link):  # Debian's merged /usr: /lib -> usr/lib
            os.symlink(os.readlink(link), root + link)
    # The kernel's HOME. Mounted before everything bound below, any of which may lie under /tmp
    # (a virtualenv in a checkout under /tmp: mounted after it, this tmpfs hid it from the kernel).
    os.makedirs(root + "/tmp", exist_ok=True)
    _mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=256m")
    for path in readonly:
        _bind(root, path)
    for name in DEVICES:
        _bind(root, f"/dev/{name}", writable=True)
    _pseudo_terminals(root)
    os.makedirs(root + "/proc", exist_ok=True)
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if sockets:
        _bind(root, sockets, writable=True)
    _private_copy(root, folder, uid)
    return root


def _pseudo_terminals(root: str) -> None:
    """A devpts of the kernel's own: IPython runs a cell's shell command (`!pip list`) on a pseudo-terminal, and
    without one that honest cell fails in grading though it ran in the learner's JupyterLab. A new instance shows
    none of the machine's terminals. Where the kernel may not mount one, the shell command fails as before."""
    os.makedirs(root + "/dev/pts", exist_ok=True)
    try:
        _mount("devpts", root + "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
    except SandboxError:
        return
    os.symlink("pts/ptmx", root + "/dev/ptmx")


def _private_copy(root: str, folder: str, uid: int | None) -> None:
    """folder's files on a tmpfs of the kernel's own, at folder's path. Links are copied as links: one the learner
    submitted must not be followed here, where this process still reads as the grader."""
    import shutil
    target = root + folder
    os.makedirs(target, exist_ok=True)
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=256m")
    shutil.copytree(folder, target, symlinks=True, dirs_exist_ok=True)
    if uid is not None:
        for here, dirs, files in os.walk(target):
            for name in [here, *(os.path.join(here, n) for n in dirs + files)]:
                os.lchown(name, uid, uid)


def _pivot(root: str) -> None:
    number = SYS_PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise SandboxError(0, f"pivot_root: unknown machine {platform.machine()}")
    os.chdir(root)
    _check(_libc.syscall(number, b".", b"."), "pivot_root")  # the old root is stacked under the new one
    _check(_libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")


def _drop() -> None:
    """No capability left, none to regain: the mounts above cannot be undone from inside."""
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    _check(_libc.capset(header, data), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def available() -> tuple[bool, str]:
    """Can this machine give kernels a private root? Tried in a throwaway child."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET
            if os.geteuid() != 0:
                flags |= CLONE_NEWUSER
            code = 0 if _libc.unshare(flags) == 0 else 1
        except Exception:  # noqa: BLE001
            code = 1
        os._exit(code)
    ok = os.waitpid(pid, 0)[1] == 0
    return ok, "" if ok else "unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET) is not allowed here"
