"""What the benchmarks share about a server they start on 127.0.0.1: a free port, a gunicorn master
started in its own session, its worker processes and their CPU time, waiting for it and stopping it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import requests

CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc):
    """Stop a process started with ``start_new_session`` and everything in its group."""
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


class Gunicorn:
    """A gunicorn master (``self.proc``) and its workers, for a benchmark that reads their CPU time.
    Subclasses set ``name``, ``env`` and ``cwd`` and call :meth:`launch`."""

    name = "gunicorn"
    proc = None
    base = None

    def launch(self, command, *, env, cwd, workers, probe="/login/", timeout=180, stderr=None):
        """Start ``command`` (its ``-b`` at ``self.base``), wait for ``workers`` worker processes and
        a 200 on ``probe``; returns the time of that first answer in ms."""
        self.proc = subprocess.Popen(
            command, env=env, cwd=cwd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=stderr
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"{self.name}: gunicorn exited with {self.proc.returncode}")
            if len(self.workers()) == workers:
                try:
                    t0 = time.perf_counter()
                    if requests.get(f"{self.base}{probe}", timeout=60).status_code == 200:
                        return (time.perf_counter() - t0) * 1000
                except requests.RequestException:
                    pass
            time.sleep(0.2)
        raise SystemExit(f"{self.name}: gunicorn did not answer within {timeout} s")

    def workers(self):
        """The worker processes: the master's children, read from ``/proc``."""
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == self.proc.pid:
                    pids.append(int(entry))
        return pids

    def cpu_ms(self):
        """utime + stime of all worker processes (all their threads), in ms."""
        total = 0
        for pid in self.workers():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
        return total * 1000 / CLK_TCK

    def stop(self):
        stop(self.proc)
