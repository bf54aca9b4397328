"""The kernel sandbox on its own, as root and, through user namespaces, as an ordinary user.

The whole grader runs as root in the other tests (CI is root); here sandbox.py, which needs
nothing but the standard library, runs under the system's own Python as `nobody`, so the
isolation an instructor without root gets is tested too.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from attn_grader import sandbox
from conftest import ROOT

SCRIPT = r'''
import json, os, sys
sys.path[:0] = [{here!r}]  # the copy of sandbox.py beside this script
import sandbox
pid = os.fork()
if pid == 0:
    connection = sandbox.enter({own!r}, ["/usr", {env!r}], None, {connection!r}, None)
    seen = {{}}
    def attempt(name, fn):
        try:
            seen[name] = repr(fn())[:200]
        except Exception as error:
            seen[name] = "DENIED " + type(error).__name__
    attempt("classmate", lambda: open({secret!r}).read())
    attempt("passwd", lambda: open("/etc/passwd").read())
    attempt("repository", lambda: os.listdir({repo!r}))
    attempt("write_outside", lambda: open("/usr/evil", "w"))
    attempt("write_own", lambda: open("mine.txt", "w").write("ok"))
    attempt("read_own", lambda: open("mine.txt").read() + open("given.txt").read())
    attempt("planted_link", lambda: open("link").read())
    attempt("environment", lambda: open({env!r} + "/site.py").read())
    attempt("write_environment", lambda: open({env!r} + "/evil.py", "w"))
    attempt("connection", lambda: open(connection).read())
    attempt("terminal", lambda: [os.close(fd) for fd in os.openpty()] and "pty")   # a shell cell's `!pip list`
    seen["terminals"] = sorted(os.listdir("/dev/pts"))
    seen["siblings"] = sorted(os.listdir(os.path.dirname({own!r})))
    seen["pid"] = os.getpid()
    print(json.dumps(seen), flush=True)   # the folder the kernel writes is its own copy: nothing lands outside
    os._exit(0)
os.waitpid(pid, 0)
'''


def _run(tmp_path, user=None):
    if user:  # pytest's own temporary folders are private to root
        tmp_path = Path(tempfile.mkdtemp(prefix="attn-sandbox-test-"))
    here = tmp_path / "code"
    here.mkdir()
    shutil.copy(sandbox.__file__, here / "sandbox.py")
    own, classmate = tmp_path / "class" / "autograded" / "me", tmp_path / "class" / "autograded" / "you"
    own.mkdir(parents=True)
    classmate.mkdir(parents=True)
    (classmate / "secret.txt").write_text("classmate's answer")
    (own / "given.txt").write_text(" given")
    (own / "link").symlink_to(classmate / "secret.txt")   # a link submitted to reach a classmate's work
    (tmp_path / "kernel.json").write_text('{"key": "k"}')
    # A read-only path under /tmp, as a virtualenv in a checkout under /tmp is: the kernel's own
    # /tmp must not hide it.
    env = tmp_path / "venv"
    env.mkdir()
    (env / "site.py").write_text("ok")
    script = tmp_path / "probe.py"
    script.write_text(SCRIPT.format(here=str(here), own=str(own), connection=str(tmp_path / "kernel.json"),
                                    secret=str(classmate / "secret.txt"), repo=str(ROOT), env=str(env)))
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    command = ["/usr/bin/python3", str(script)]
    if user:
        shutil.chown(own, user=user)
        command = ["su", user, "-s", "/bin/sh", "-c", " ".join(command)]
    try:
        done = subprocess.run(command, cwd=own, check=True, timeout=600, capture_output=True, text=True)  # a hang guard
        assert not (own / "mine.txt").exists()
        return json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        if user:
            shutil.rmtree(tmp_path, ignore_errors=True)


def _expect_isolated(seen):
    for name in ("classmate", "passwd", "repository", "write_outside", "write_environment", "planted_link"):
        assert seen[name].startswith("DENIED"), (name, seen[name])
    assert seen["write_own"] == "2" and seen["read_own"] == repr("ok given") and seen["connection"] == repr('{"key": "k"}')
    assert seen["environment"] == repr("ok")
    assert seen["terminal"] == repr("pty") and seen["terminals"] == ["ptmx"]   # its own, none of the machine's
    assert seen["siblings"] == ["me"]  # the classmate's folder beside one's own is not there
    assert seen["pid"] == 1


needs_linux = pytest.mark.skipif(not sys.platform.startswith("linux") or not os.path.exists("/usr/bin/python3"),
                                 reason="namespaces and the system Python are Linux's")


@needs_linux
def test_sandbox_as_root(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("not root")
    _expect_isolated(_run(tmp_path))


@needs_linux
def test_sandbox_without_root_through_user_namespaces(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("runs as root, to become `nobody` for the test")
    allowed = subprocess.run(["su", "nobody", "-s", "/bin/sh", "-c", "unshare -U -r -m true"], capture_output=True)
    if allowed.returncode != 0:
        pytest.skip("this machine allows no unprivileged user namespaces: grading says so and flags.csv records it")
    _expect_isolated(_run(tmp_path, user="nobody"))


def test_availability_is_reported():
    ok, why = sandbox.available()
    assert ok or why
