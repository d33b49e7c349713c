"""Real git servers on loopback for the trainer tests and the benchmark.

``GitDaemon`` runs ``git daemon --enable=receive-pack`` (git://). ``SmartHttpServer`` serves
smart HTTP by running the real ``git http-backend`` as a CGI program behind a small threaded
HTTP server. Both are started and stopped by the test that uses them; ``stop`` followed by
``start`` on the same port models a remote that goes away mid-workshop and comes back.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def bare_repo(path: Path) -> Path:
    """A bare repository, as a trainer makes one for the room."""
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def remote_refs(repo: Path, prefix: str = "refs/hooklab/cohorts/") -> dict[str, str]:
    """The refs a bare repository holds, read with git itself (not with the code under test)."""
    out = subprocess.run(
        [
            "git",
            "--git-dir",
            str(repo),
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            prefix,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def _wait_for_port(port: int, up: bool, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.05)
    raise RuntimeError(f"port {port} did not come {'up' if up else 'down'} in {timeout} s")


class _LoopbackProcess:
    """A server process on a loopback port, started and stopped by a test."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def _spawn(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for_port(self.port, up=True)

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None
        _wait_for_port(self.port, up=False)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class GitDaemon(_LoopbackProcess):
    """``git daemon`` exporting every repository under ``base`` with pushes enabled."""

    def __init__(self, base: Path, port: int | None = None, max_connections: int = 0) -> None:
        super().__init__(port)
        self.base = base
        self.max_connections = max_connections

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def start(self) -> Self:
        self._spawn(
            [
                "git",
                "daemon",
                "--reuseaddr",
                "--listen=127.0.0.1",
                f"--port={self.port}",
                f"--base-path={self.base}",
                "--export-all",
                "--enable=receive-pack",
                "--informative-errors",
                f"--max-connections={self.max_connections}",
                str(self.base),
            ]
        )
        return self


class _BackendHandler(BaseHTTPRequestHandler):
    """Hands each request to ``git http-backend`` the way a web server's CGI support does."""

    server: _GitHttpServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        self._cgi(b"")

    def do_POST(self) -> None:
        if self.server.drop_posts > 0:
            # A server or proxy under load: the request is read, the connection closed unanswered.
            self.server.drop_posts -= 1
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.close_connection = True
            return
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = bytearray()
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
            self._cgi(bytes(body))
        else:
            self._cgi(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _cgi(self, body: bytes) -> None:
        path, _, query = self.path.partition("?")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": str(self.server.base),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REMOTE_USER": "participant",  # http-backend allows receive-pack to known users
            "REMOTE_ADDR": self.client_address[0],
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.0",
        }
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["HTTP_GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        done = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
        )
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = done.stdout.partition(b"\n\n")
        status = 200
        headers: list[tuple[str, str]] = []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name.strip(), value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _GitHttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    base: Path
    drop_posts = 0  # how many POSTs to come are dropped without an answer


class SmartHttpServer:
    """Smart HTTP (git http-backend) for every repository under ``base``."""

    def __init__(self, base: Path, port: int | None = None) -> None:
        self.base = base
        self.port = port or free_port()
        self.httpd: _GitHttpServer | None = None
        self.thread: threading.Thread | None = None

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"

    def start(self) -> SmartHttpServer:
        self.httpd = _GitHttpServer(("127.0.0.1", self.port), _BackendHandler)
        self.httpd.base = self.base
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        _wait_for_port(self.port, up=True)
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None
        if self.thread is not None:
            self.thread.join(timeout=10)
        _wait_for_port(self.port, up=False)

    def __enter__(self) -> SmartHttpServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[GitDaemon]:
    with GitDaemon(base) as daemon:
        yield daemon


SSHD = "/usr/sbin/sshd"


class SshServer(_LoopbackProcess):
    """A real OpenSSH ``sshd`` on loopback, serving git over ssh:// as a team's git host does:
    the client logs in with a key made for the test and runs git-receive-pack/upload-pack.

    ``ssh_command`` is what a trainer puts in GIT_SSH_COMMAND for a key of their own; the host
    key is new each time, so known_hosts is not consulted.
    """

    def __init__(self, home: Path, port: int | None = None) -> None:
        super().__init__(port)
        self.home = home
        self.client_key = home / "client_key"

    def url(self, repo: Path) -> str:
        return f"ssh://{getpass.getuser()}@127.0.0.1:{self.port}{repo}"

    def ssh_command(self, key: Path | None = None) -> str:
        return (
            f"ssh -i {key or self.client_key} -o IdentitiesOnly=yes -o BatchMode=yes "
            "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
        )

    def start(self) -> Self:
        self.home.mkdir(parents=True, exist_ok=True)
        for key in (self.home / "host_key", self.client_key):
            if not key.exists():
                keygen(key)
        (self.home / "authorized_keys").write_text(
            Path(f"{self.client_key}.pub").read_text(encoding="utf-8"), encoding="utf-8"
        )
        config = self.home / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"Port {self.port}",
                    f"HostKey {self.home / 'host_key'}",
                    f"AuthorizedKeysFile {self.home / 'authorized_keys'}",
                    f"PidFile {self.home / 'sshd.pid'}",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin prohibit-password",
                    "StrictModes no",
                    "UsePAM no",
                    "",
                ]
            ),
            encoding="utf-8",
        )
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # its privilege separation dir
        self._spawn([SSHD, "-D", "-e", "-f", str(config)])
        return self


def keygen(path: Path) -> Path:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "hooklab-test", "-f", str(path)],
        check=True,
    )
    return path
