"""A throwaway PostgreSQL server for tests and benchmarks: Debian's ``initdb`` and ``pg_ctl`` in a temp dir.

It runs as a non-root user (``postgres`` when started by root, through ``runuser``;
otherwise the current user), listens on no TCP address, only on a unix socket in a
private directory, and trusts local connections (only its owner and root can reach
that directory). :meth:`PgServer.database` hands out a fresh, empty database, and
:meth:`PgServer.schema` a fresh, empty schema in one shared database (much faster: a test
gets its own in milliseconds).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

DEBIAN_BINARIES = Path("/usr/lib/postgresql")


class PgServerError(RuntimeError):
    """The server could not be found or started."""


def _installed() -> list[Path]:
    return sorted(
        (p for p in DEBIAN_BINARIES.glob("*/bin") if (p / "pg_ctl").exists()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )


def _install() -> None:
    """Install Debian's server when it is missing and this is root with apt-get (as the README's test
    command runs on a fresh machine); the package lists are refreshed only if the first try finds nothing."""
    if not shutil.which("apt-get") or os.geteuid() != 0:
        return
    install = ["apt-get", "install", "-y", "-q", "postgresql"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(install, capture_output=True, timeout=900, check=False, env=env)
    if not _installed():
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, timeout=900, check=False, env=env)
        subprocess.run(install, capture_output=True, timeout=900, check=False, env=env)


def bin_dir() -> Path:
    """The newest PostgreSQL under /usr/lib/postgresql (``apt-get install postgresql`` puts it there)."""
    if not _installed():
        _install()
    versions = sorted(
        (p for p in DEBIAN_BINARIES.glob("*/bin") if (p / "pg_ctl").exists()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    if not versions:
        raise PgServerError(
            f"No PostgreSQL server under {DEBIAN_BINARIES}: install Debian's `postgresql` package "
            "(`apt-get install -y postgresql`; .ci/run does it)."
        )
    return versions[-1]


@dataclass
class PgServer:
    """One server. ``durable=False`` (tests) turns fsync off: the semantics are the same, the disk is spared."""

    durable: bool = False
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="tandem-pg-")))
    user: str = field(default_factory=lambda: "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name)

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root / "sock"

    def _run(self, *argv: str) -> None:
        command = [str(bin_dir() / argv[0]), *argv[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise PgServerError(f"{' '.join(argv[:2])} failed ({done.returncode}): {done.stderr.strip()}\n{tail}")

    def start(self) -> PgServer:
        self.socket_dir.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.root, self.user)
            shutil.chown(self.socket_dir, self.user)
        os.chmod(self.root, 0o700)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        options = f"-k {self.socket_dir} -c listen_addresses='' -c max_connections=200"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options, "-w", "start")
        return self

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, dbname: str = "postgres") -> str:
        """A libpq URL for ``dbname`` over the private socket."""
        return f"postgresql://postgres@/{dbname}?host={self.socket_dir}"

    def schema(self) -> str:
        """A fresh, empty schema in the ``postgres`` database: the URL makes it the connections' search path."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return f"{self.url()}&options=-csearch_path%3D{name}"

    def database(self) -> str:
        """A fresh, empty database; returns its URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        self._run("createdb", "-h", str(self.socket_dir), "-U", "postgres", name)
        return self.url(name)
