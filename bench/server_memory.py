"""Idle memory of the web server (gunicorn master + workers, proportional set size), and whether an
idle keep-alive connection survives a client's pause.

What it does, all on 127.0.0.1: migrates a throwaway SQLite database, starts gunicorn as
``bin/run-demo`` does (``config/gunicorn.conf.py``; a tree without it, such as an older commit given
by ``--repo``, with the flags its ``bin/run-demo`` used: gthread, 2 workers x 4 threads), loads the
login page ``--warm`` times so that every worker has answered, waits ``--settle`` seconds and sums
``Pss`` of ``/proc/<pid>/smaps_rollup`` over the server's processes. PSS divides each shared page
among the processes that map it, so the sum is what the server costs the machine.

Then it opens one connection, sends a request, stays silent ``--pause`` seconds (an annotator
reading; a load client between its login and its first page) and sends a second request on the
same connection: a server whose keep-alive is shorter than the pause has closed it, and a client that
sends just as it closes gets a connection reset.

    .venv/bin/python bench/server_memory.py                       # this tree
    .venv/bin/python bench/server_memory.py --repo /tmp/base2f    # another checkout, same .venv
"""

import argparse
import http.client
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
from kit.servers import free_port

REPO = Path(__file__).resolve().parent.parent
OLD_FLAGS = ["config.wsgi", "--workers", "2", "--threads", "4", "--worker-class", "gthread"]


def server_command(repo, port):
    """gunicorn as the tree's ``bin/run-demo`` starts it."""
    base = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--log-level", "warning"]
    if (repo / "config" / "gunicorn.conf.py").exists():
        return [*base, "-c", "config/gunicorn.conf.py"]
    return [*base, *OLD_FLAGS]


def pss_kib(pid):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Pss:"))


def server_pids(master):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True, text=True)
    return [master, *(int(p) for p in out.stdout.split())]


def start_worker(repo, env):
    """The Celery worker as ``bin/run-demo`` starts it (its own broker file in the throwaway folder)."""
    argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "default,gpu", "--concurrency", "2"]
    log = open(Path(env["QAEVAL_VAR_DIR"]) / "celery.log", "w")  # noqa: SIM115 - closed with the process
    return subprocess.Popen([*argv, "-l", "warning"], cwd=repo, env=env, start_new_session=True, stdout=log, stderr=log)


def wait_for_children(proc, n, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(server_pids(proc.pid)) < n + 1:
        if proc.poll() is not None:
            raise SystemExit(f"the worker exited with {proc.returncode}")
        time.sleep(0.5)


def wait_until_up(proc, base):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited with {proc.returncode}")
        try:
            if requests.get(f"{base}/login/", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer within 120 s")


def survives_pause(port, pause):
    """True when a request sent after ``pause`` seconds of silence on a kept-alive connection is answered."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/login/")
        conn.getresponse().read()
        time.sleep(pause)
        conn.request("GET", "/login/")  # the same connection: http.client never reconnects by itself
        return conn.getresponse().status == 200
    except (OSError, http.client.HTTPException):  # closed or reset by the server
        return False
    finally:
        conn.close()


def measure(args):
    repo = Path(args.repo).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="qaeval-mem-"))
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DJANGO_SETTINGS_MODULE")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        QAEVAL_VAR_DIR=str(tmp),
        DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}",
        PYTHONPATH=str(repo),
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=repo, env=env, check=True)
    port = free_port()
    proc = subprocess.Popen(server_command(repo, port), cwd=repo, env=env, start_new_session=True)
    worker = start_worker(repo, env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, base)
        wait_for_children(worker, 2)
        for _ in range(args.warm):
            requests.get(f"{base}/login/", timeout=10)
        time.sleep(args.settle)
        web = [pss_kib(p) / 1024 for p in server_pids(proc.pid)]
        celery = [pss_kib(p) / 1024 for p in server_pids(worker.pid)]
        kept = survives_pause(port, args.pause)
    finally:
        for p in (proc, worker):
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    print(f"tree: {repo}")
    print(f"idle PSS, gunicorn ({len(web)} processes): {sum(web):.1f} MiB")
    print(f"idle PSS, celery worker ({len(celery)} processes): {sum(celery):.1f} MiB")
    print(f"idle PSS, both servers: {sum(web) + sum(celery):.1f} MiB")
    print(f"keep-alive connection answered after a {args.pause:g} s pause: {'yes' if kept else 'NO'}")
    return sum(web) + sum(celery), kept


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default=str(REPO), help="the checkout to start (default: this one)")
    parser.add_argument("--warm", type=int, default=20, help="login page loads before measuring")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait before measuring")
    parser.add_argument("--pause", type=float, default=5.0, help="client silence on a kept-alive connection")
    measure(parser.parse_args())


if __name__ == "__main__":
    main()
