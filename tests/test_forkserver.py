"""The fork server ends with the grader that started it, however the grader ends (grader/attn_grader/forkserver.py)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# A stand-in for attn_grader.grade: starts the server, says its pid once the server is ready, then waits.
GRADER = r'''
import subprocess, sys, time
server = subprocess.Popen([sys.executable, "-m", "attn_grader.forkserver", "serve", sys.argv[1]],
                          stdout=subprocess.PIPE, text=True)
server.stdout.readline()
print(server.pid, flush=True)
time.sleep(600)
'''


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has ended; whoever adopted it reaps it


def test_a_grader_killed_outright_takes_the_server_with_it(tmp_path):
    grader = subprocess.Popen([sys.executable, "-c", GRADER, str(tmp_path / "fork.sock")], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    server = int(grader.stdout.readline())
    assert _alive(server)
    grader.send_signal(signal.SIGKILL)  # no `finally` runs in the grader
    grader.wait()
    deadline = time.monotonic() + 120  # a guard against a hang, not a speed check
    while _alive(server) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(server), "the fork server outlived the grader that started it"
    assert not (tmp_path / "fork.sock").exists()  # it ended through its own cleanup, which kills its kernels
