"""``bin/run-demo`` prints the users' table once, LAST, after the servers are up (README: Try it): the
worker's banner, its task lines and the ``HTTP Request: POST .../chat/completions`` lines of the LLM
client go to var/celery.log, not to the terminal (issue 32, friction 7).

The script runs as is, in a copy of the repository's layout whose programs are stand-ins that print
what the real ones print where they print it (the worker: its banner on stdout, log lines on stderr,
before and after the table; the web server: binds its port after a delay, prints nothing at
``loglevel = "warning"``); ``load_demo``'s own part (no table with ``--no-print-users``, the file
written) is run for real below."""

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.conftest import write_jsonl

REPO = Path(__file__).resolve().parents[2]
TABLE = (
    "demo users (username, password, role):\n"
    "  admin        s3cret-admin     (admin)\n"
    "  annotator1   s3cret-ann1      (annotator)"
)
NOISE = (
    " -------------- celery@host v5.7.0 (recovery)",
    "[2026-12-04 20:00:00,000: INFO/MainProcess] Task frames.tasks.predict_frames[1f2e] received",
    'HTTP Request: POST http://127.0.0.1:9/v1/chat/completions "HTTP/1.1 200 OK"',
)


def fake(path, body):
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def start_demo(folder, env, *args):
    """``bin/run-demo`` started in ``folder`` (its own process group, so that a test can signal it whole),
    its output on one pipe."""
    return subprocess.Popen(
        ["bash", "bin/run-demo", *args],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def layout(tmp_path):
    (tmp_path / "bin").mkdir()
    shutil.copy(REPO / "bin" / "run-demo", tmp_path / "bin" / "run-demo")
    (tmp_path / "bin" / "setup").write_text("#!/usr/bin/env bash\necho 'requirements installed'\n")
    (tmp_path / "bin" / "setup").chmod(0o755)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    fake(
        venv / "python",
        f"""
        import sys
        from pathlib import Path
        if "load_demo" in sys.argv:
            print("imported 2 questions into squad-small")
            if "--no-print-users" not in sys.argv:
                print({TABLE!r})
            Path("var/demo-users.txt").write_text({TABLE!r} + "\\n")
        """,
    )
    fake(
        venv / "celery",
        f"""
        import sys, time
        print({NOISE[0]!r}, flush=True)
        for _ in range(30):
            print({NOISE[1]!r}, file=sys.stderr, flush=True)
            print({NOISE[2]!r}, file=sys.stderr, flush=True)
            time.sleep(0.1)
        time.sleep(600)
        """,
    )
    fake(
        venv / "gunicorn",
        """
        import os, socket, time
        from pathlib import Path
        time.sleep(1.5)
        server = socket.create_server(("127.0.0.1", int(os.environ["PORT"])))
        Path("var/web-up").touch()
        while True:
            server.accept()[0].close()
        """,
    )


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_users_table_is_printed_once_last_after_the_servers_are_up(tmp_path):
    layout(tmp_path)
    env = {**os.environ, "PORT": str(free_port()), "SECRET_KEY": "x" * 50}
    proc = start_demo(tmp_path, env, "--password", "s3cret")
    lines, up_when_printed = [], None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if line.startswith("  annotator1"):
                up_when_printed = (tmp_path / "var" / "web-up").exists()
                break
        time.sleep(3)  # the worker goes on logging: none of it may follow the table
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the script stops the server and the worker
        rest, _ = proc.communicate(timeout=30)
    lines += rest.splitlines()
    out = "\n".join(lines)
    assert up_when_printed is True, out
    assert out.count("demo users (username, password, role):") == 1, out
    assert out.rstrip().endswith(TABLE), out
    assert not any(noise.strip() in out for noise in NOISE), out
    log = (tmp_path / "var" / "celery.log").read_text()
    assert all(noise.strip() in log for noise in NOISE)
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True, text=True, check=False).stdout
    assert left == "", f"Ctrl-C left the server or the worker running: {left}"


@pytest.mark.django_db
def test_load_demo_without_the_table_still_writes_the_users_file(tmp_path, settings, capsys):
    settings.VAR_DIR = tmp_path / "var"
    write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"id": "q1", "context": "Warsaw is big.", "question": "Where?", "answers": ["Warsaw"]}],
    )
    write_jsonl(tmp_path / "predictions.jsonl", [{"question_id": "q1", "system": "s", "answer": "Warsaw"}])
    call_command("load_demo", data=str(tmp_path), annotators=2, password="demo-pass-12345", print_users=False)
    assert "demo users" not in capsys.readouterr().out
    assert "admin        demo-pass-12345  (admin)" in (settings.VAR_DIR / "demo-users.txt").read_text()
    call_command("load_demo", data=str(tmp_path), annotators=2, password="demo-pass-12345")
    assert "admin        demo-pass-12345  (admin)" in capsys.readouterr().out


def stubborn_layout(tmp_path):
    """Servers as they behave at their worst: the web server's master forks workers and answers
    SIGTERM only after a long graceful wait; the worker ignores SIGTERM (a warm shutdown waiting for a
    running task) and has a pool child. Each process writes its pid to var/pids/."""
    layout(tmp_path)
    venv = tmp_path / ".venv" / "bin"
    server = """
        import os, signal, socket, sys, time
        from pathlib import Path
        def note(name):
            Path("var/pids").mkdir(parents=True, exist_ok=True)
            Path(f"var/pids/{name}-{os.getpid()}").touch()
        note(NAME + "-main")
        for _ in range(2):
            if os.fork() == 0:
                note(NAME + "-child")
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                while True:
                    time.sleep(1)
        signal.signal(signal.SIGTERM, lambda *_: time.sleep(600))
        if NAME == "web":
            server = socket.create_server(("127.0.0.1", int(os.environ["PORT"])))
            while True:
                server.accept()[0].close()
        while True:
            time.sleep(1)
        """
    fake(venv / "gunicorn", 'NAME = "web"\n' + textwrap.dedent(server))
    fake(venv / "celery", 'NAME = "worker"\n' + textwrap.dedent(server))


def alive(pid):
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat_line.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_stops_every_process_within_seconds_under_load(tmp_path, how):
    """Issue 45, point 9: every process the script started (servers and their children, even ones
    that ignore SIGTERM) is gone a few seconds after Ctrl-C (SIGINT to the terminal's process group)
    or a SIGTERM to the script, with the CPUs busy."""
    stubborn_layout(tmp_path)
    env = {**os.environ, "PORT": str(free_port()), "SECRET_KEY": "x" * 50, "STOP_GRACE": "2"}
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    proc = start_demo(tmp_path, env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line or line.startswith("  annotator1"):
                break
        pids_dir = tmp_path / "var" / "pids"
        while len(list(pids_dir.glob("*"))) < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        pids = [int(p.name.rsplit("-", 1)[1]) for p in pids_dir.glob("*")]
        assert len(pids) == 6 and all(alive(pid) for pid in pids)
        start = time.monotonic()
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=15)
        took = time.monotonic() - start
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    while any(alive(pid) for pid in pids) and time.monotonic() - start < 15:
        time.sleep(0.1)
    left = [pid for pid in pids if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"still running {time.monotonic() - start:.1f} s after {how}"
    assert proc.returncode == (130 if how == "ctrl-c" else 143)
    assert took < 10, f"the script took {took:.1f} s to exit after {how}"
