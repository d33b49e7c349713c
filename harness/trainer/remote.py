"""Talking to a cohort remote with dulwich: any URL it speaks (a path to a bare repository,
file://, git://, http(s)://, ssh), with a deadline and errors that name the remote and the fix.

A workshop room's network is the least reliable part of it, so every failure here becomes a
``RemoteError`` a participant can act on, never a traceback.
"""

from __future__ import annotations

import email.utils
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from dulwich.client import (
    AbstractHttpGitClient,
    GitClient,
    HTTPUnauthorized,
    get_transport_and_path,
)
from dulwich.config import StackedConfig
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.repo import BaseRepo

from harness.errors import HarnessError

T = TypeVar("T")
ZERO_SHA = b"0" * 40


class RemoteError(HarnessError):
    """The remote could not be reached, or refused what was sent. Its texts never hold the
    URL's credentials: they end up on a participant's screen or the trainer's projector."""

    def __init__(self, url: str, problem: str, *, fix: str) -> None:
        problem, fix = scrub(problem, url), scrub(fix, url)
        super().__init__(f"{redact_url(url)}: {problem}", fix=fix)
        self.url = redact_url(url)
        self.problem = problem


REDACTED = "***"


def _secret(url: str) -> str | None:
    """The secret part of a URL's user information: the password, or for HTTP(S) a lone
    user name (a token given as https://TOKEN@host/…); None when there is none."""
    scheme, sep, rest = url.partition("://")
    netloc = rest.split("/", 1)[0]
    if not sep or "@" not in netloc:
        return None
    user, colon, password = netloc.rpartition("@")[0].partition(":")
    if colon:
        return password or None
    return user if scheme.lower() in {"http", "https"} and user else None


def redact_url(url: str) -> str:
    """The URL fit to print: https://trainer:***@host/room.git, https://***@host/room.git.
    ssh's user name (git@…) is no secret and stays."""
    secret = _secret(url)
    if secret is None:
        return url
    scheme, _, rest = url.partition("://")
    netloc, slash, path = rest.partition("/")
    userinfo, _, host = netloc.rpartition("@")
    user, colon, _password = userinfo.partition(":")
    shown = f"{user}:{REDACTED}" if colon else REDACTED
    return f"{scheme}://{shown}@{host}{slash}{path}"


def scrub(text: str, url: str) -> str:
    """``text`` with ``url`` redacted, and its secret wherever else it appears."""
    secret = _secret(url)
    if secret is None:
        return text
    text = text.replace(url, redact_url(url))
    return text.replace(secret, REDACTED)


def normalise_url(url: str) -> str:
    """A local path becomes absolute (a workspace keeps it, the cwd changes); URLs stay."""
    if "://" in url or _scp_like(url):
        return url
    return str(Path(url).expanduser().resolve())


def _scp_like(url: str) -> bool:
    # user@host:path or host:path, as git reads it (a colon before any slash).
    head, colon, _rest = url.partition(":")
    return bool(colon) and "/" not in head and len(head) > 1


def ssh_command() -> str | None:
    """The ssh program git itself would use: GIT_SSH_COMMAND, then GIT_SSH, then the user's
    core.sshCommand (None: plain ssh). A trainer's key or port set up for git works here too."""
    for variable in ("GIT_SSH_COMMAND", "GIT_SSH"):
        if os.environ.get(variable):
            return os.environ[variable]
    return None


def _user_git_config() -> StackedConfig | None:
    try:
        return StackedConfig.default()
    except (OSError, ValueError):  # an unreadable ~/.gitconfig: git's defaults
        return None


def _client(url: str) -> tuple[GitClient, str]:
    try:
        # The user's git config brings core.sshCommand and url.<base>.insteadOf along.
        return get_transport_and_path(  # type: ignore[no-any-return]
            url, config=_user_git_config(), ssh_command=ssh_command()
        )
    except ValueError as exc:
        raise RemoteError(
            url,
            f"not a git URL dulwich understands ({exc})",
            fix="use a path to a bare repository, git://HOST/REPO, http(s)://HOST/REPO "
            "or ssh://HOST/REPO",
        ) from exc


def with_deadline(url: str, seconds: float, work: Callable[[], T], doing: str) -> T:
    """Run ``work`` but give up after ``seconds``: a stalled network must not stall a check.

    The worker thread is a daemon; if it is abandoned, the process ending takes it along, and
    a push it was in the middle of never updates the remote ref (git writes the ref last).
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=run, name=f"hooklab-{doing}", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise RemoteError(
            url,
            f"no answer after {seconds:g} s while {doing}",
            fix=_unreachable_fix(url),
        )
    if "error" in box:
        raise translate(url, box["error"]) from box["error"]
    value: T = box["value"]
    return value


def _is_ssh(url: str) -> bool:
    return url.startswith(("ssh://", "git+ssh://", "ssh+git://")) or _scp_like(url)


def _ssh_login(url: str) -> str:
    """What to type to try the login by hand: ssh -p PORT USER@HOST, or USER@HOST."""
    if "://" not in url:
        return url.partition(":")[0]
    netloc = url.split("://", 1)[1].split("/", 1)[0]
    host, colon, port = netloc.rpartition(":")
    if colon and port.isdigit():
        return f"-p {port} {host}"
    return netloc


def _unreachable_fix(url: str) -> str:
    return f"check the address with your trainer and that the remote is up (git ls-remote {url})"


def translate(url: str, exc: BaseException) -> BaseException:
    """Turn what dulwich or the network raised into a RemoteError naming the remote."""
    if isinstance(exc, RemoteError | HarnessError | KeyboardInterrupt):
        return exc
    if isinstance(exc, NotGitRepository) or (
        isinstance(exc, FileNotFoundError | NotADirectoryError) and "://" not in url
    ):
        return RemoteError(
            url,
            "there is no git repository at this path",
            fix=f"create it once for the room: git init --bare {url}",
        )
    if isinstance(exc, HTTPUnauthorized):
        return RemoteError(
            url,
            "the server wants credentials",
            fix="put them in the URL (https://USER:TOKEN@HOST/REPO) or use a URL your "
            "git credentials cover",
        )
    if isinstance(exc, ConnectionRefusedError):
        return RemoteError(
            url, "connection refused: nothing listens there", fix=_unreachable_fix(url)
        )
    if isinstance(exc, socket.gaierror):
        return RemoteError(url, f"unknown host ({exc.strerror})", fix=_unreachable_fix(url))
    if isinstance(exc, TimeoutError | socket.timeout):
        return RemoteError(url, "the connection timed out", fix=_unreachable_fix(url))
    if isinstance(exc, HangupException):
        return _hung_up(url, exc)
    if isinstance(exc, GitProtocolError) and _dropped(exc):
        return RemoteError(
            url,
            "the server closed the connection without an answer (busy, or a proxy dropped it)",
            fix="try again in a moment (lab submit); what was not sent waits here",
        )
    if isinstance(exc, GitProtocolError):
        return RemoteError(url, f"the server refused: {exc}", fix=_unreachable_fix(url))
    if isinstance(exc, PermissionError):
        return RemoteError(
            url,
            f"permission denied ({exc.filename or exc})",
            fix="the shared folder must be writable by every participant (chmod -R g+w, "
            "git config core.sharedRepository group)",
        )
    if isinstance(exc, OSError):
        return RemoteError(url, f"network error: {exc}", fix=_unreachable_fix(url))
    name = type(exc).__name__
    if "urllib3" in type(exc).__module__ or name in {"MaxRetryError", "ProtocolError"}:
        return RemoteError(url, f"HTTP request failed ({exc})", fix=_unreachable_fix(url))
    return exc


def _hung_up(url: str, exc: HangupException) -> RemoteError:
    """ssh that could not log in, or a server that closed the connection."""
    if _is_ssh(url):
        said = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        return RemoteError(
            url,
            f"ssh could not connect ({said or 'the connection closed'})",
            fix=f"check that ssh logs in without a prompt: ssh {_ssh_login(url)} (the key, "
            "known_hosts); another key or port goes in GIT_SSH_COMMAND, as for git",
        )
    return RemoteError(
        url,
        "the server hung up (busy, or it does not allow pushes to this path)",
        fix="try again in a moment (lab submit); trainers: run git daemon with "
        "--enable=receive-pack --export-all --max-connections=0",
    )


def list_refs(url: str, prefix: bytes, *, timeout: float) -> dict[bytes, bytes]:
    """The remote's refs under ``prefix`` (name -> commit id)."""
    client, path = _client(url)

    def work() -> dict[bytes, bytes]:
        result = client.get_refs(path.encode() if isinstance(path, str) else path)
        refs = getattr(result, "refs", result)
        return {k: v for k, v in refs.items() if k.startswith(prefix) and v}

    return with_deadline(url, timeout, work, "listing refs")


def remote_clock_offset(url: str, *, timeout: float) -> float | None:
    """Seconds to add to this machine's clock to get the remote's, read from an HTTP
    remote's ``Date`` header (whole seconds, so ±0.5 s plus half the round trip); None for
    any other remote, or when it could not be read: a submit never fails for it.

    The remote is the room's clock the trainer can trust: served from the trainer's machine
    it is that clock, and a hosted one keeps network time as the trainer's does."""
    client, path = _client(url)
    if not isinstance(client, AbstractHttpGitClient):
        return None
    probe = client._get_url(path).rstrip("/") + "/info/refs?service=git-upload-pack"

    def work() -> float | None:
        before = time.time()
        response, _read = client._http_request(probe, raise_for_status=False)
        after = time.time()
        date = response.headers.get("Date")
        if not date:
            return None
        said = email.utils.parsedate_to_datetime(date).timestamp()
        return said + 0.5 - (before + after) / 2

    try:
        return with_deadline(url, timeout, work, "reading the remote's clock")
    except Exception:  # best effort: the push that follows says what is wrong
        return None


def fetch(
    url: str,
    target: BaseRepo,
    wants: Sequence[bytes],
    *,
    depth: int | None = None,
    timeout: float,
) -> None:
    """Bring the objects of ``wants`` (commit ids) into ``target``; ``depth`` 1 takes just the
    tips and their trees, which is all a cohort view reads."""
    if not wants:
        return
    client, path = _client(url)
    wanted = list(dict.fromkeys(wants))

    def determine(refs: dict[bytes, bytes], depth: int | None = None) -> list[bytes]:
        return [w for w in wanted if w not in target.object_store]

    def work() -> None:
        client.fetch(path, target, determine_wants=determine, depth=depth)

    with_deadline(url, timeout, work, "fetching")


def push(
    url: str,
    repo: BaseRepo,
    ref: bytes,
    commit: bytes,
    *,
    timeout: float,
    accept_old: Callable[[bytes | None], bool],
    keep_old_as: Callable[[bytes], bytes | None] = lambda old: None,
) -> bytes | None:
    """Point ``ref`` on the remote at ``commit``, sending what it lacks; returns the old value.

    ``accept_old`` sees the remote's current value first and may refuse the update (a
    history that is not ours): a refusal raises HistoryDiffers before anything is sent.
    ``keep_old_as`` names a ref that keeps an old value it accepts replacing (in the same
    push), so a replaced record is never lost and the trainer sees it was replaced.
    """
    client, path = _client(url)
    seen: dict[str, bytes | None] = {}

    def update_refs(remote: dict[bytes, bytes]) -> dict[bytes, bytes]:
        old = remote.get(ref) or None
        if old == ZERO_SHA:
            old = None
        seen["old"] = old
        if old == commit:
            return {}
        if not accept_old(old):
            raise HistoryDiffers(url, ref)
        kept = keep_old_as(old) if old is not None else None
        return {ref: commit, **({kept: old} if kept and old is not None else {})}

    def work() -> None:
        try:
            result = client.send_pack(path, update_refs, repo.generate_pack_data)
        except (HangupException, GitProtocolError) as exc:
            if not _dropped(exc):
                raise
            # A busy server drops connections (git daemon past --max-connections, an HTTP
            # server or proxy under load); one more try a moment later usually gets through.
            # It is safe: a push that did land shows as the remote's value and sends nothing.
            time.sleep(0.3 + random.random())
            client2, _ = _client(url)
            result = client2.send_pack(path, update_refs, repo.generate_pack_data)
        problem = (getattr(result, "ref_status", None) or {}).get(ref)
        if problem and (_raced(str(problem)) or _moved_meanwhile(url, path, ref, seen)):
            # Another push to the same ref landed at the same instant (git daemon: "failed
            # to lock", http-backend: "fetch first"): not a remote that refuses pushes.
            raise RemoteError(
                url,
                f"another submit to {ref.decode()} landed at the same moment ({problem})",
                fix="run lab submit again: the remote then says whether that record is yours",
            )
        if problem:
            raise RemoteError(
                url,
                f"the server rejected {ref.decode()}: {problem}",
                fix="ask the trainer whether the remote accepts pushes to refs/hooklab/*",
            )

    with_deadline(url, timeout, work, "pushing")
    if "://" not in url and not _scp_like(url):
        share_refs(Path(url))
    return seen.get("old")


SHARED_VALUES = {"group", "true", "1", "all", "world", "everybody", "2"}


def share_refs(repo: Path) -> None:
    """A repository made with ``git init --shared=group`` stays writable for the group after
    a push that created folders (dulwich makes them with the pusher's umask, as 755): the
    next participant, another Unix user, must be able to add their ref beside it."""
    try:
        config = (repo / "config").read_text()
    except OSError:
        return
    shared = next(
        (
            line.split("=", 1)[1].strip().lower()
            for line in config.splitlines()
            if line.strip().lower().startswith("sharedrepository")
        ),
        None,
    )
    if shared is None or (shared not in SHARED_VALUES and not shared.startswith("0")):
        return
    for top in (repo / "refs" / "hooklab", repo / "logs" / "refs" / "hooklab"):
        if not top.is_dir():
            continue
        for path in [top, *top.rglob("*")]:
            try:
                mode = path.stat().st_mode
                wanted = mode | 0o060 | (0o2010 if path.is_dir() else 0)
                if wanted != mode and path.stat().st_uid == os.getuid():
                    path.chmod(wanted & 0o7777)
            except OSError:
                continue  # another participant's: theirs to share


class HistoryDiffers(RemoteError):
    """The ref holds a history that is not the one being pushed: another workspace's."""

    def __init__(self, url: str, ref: bytes) -> None:
        super().__init__(
            url,
            f"{ref.decode()} holds another workspace's record",
            fix="choose a name of your own",
        )
        self.ref = ref


def _moved_meanwhile(url: str, path: str, ref: bytes, seen: dict[str, bytes | None]) -> bool:
    """Did another push change ``ref`` while ours was on its way? Then ours lost a race."""
    try:
        client, _ = _client(url)
        result = client.get_refs(path.encode() if isinstance(path, str) else path)
    except Exception:  # a second look that fails proves nothing either way
        return False
    refs = getattr(result, "refs", result)
    return (refs.get(ref) or None) != seen.get("old")


def _raced(problem: str) -> bool:
    return any(
        word in problem
        for word in ("lock", "fetch first", "non-fast-forward", "stale info", "cannot update")
    )


def _dropped(exc: BaseException) -> bool:
    """The connection was dropped, not refused: a hang-up, or an HTTP connection closed
    without an answer (dulwich wraps urllib3's error in a GitProtocolError)."""
    if isinstance(exc, HangupException):
        return True
    cause = exc.__cause__
    return isinstance(cause, ConnectionError) or type(cause).__name__ == "ProtocolError"


def timeout_from_env(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise HarnessError(
            f"environment variable {name}={raw!r} is not a number of seconds",
            fix=f"unset it or set a number, e.g. {name}={default:g}",
        ) from exc
    return max(value, 0.1)
