"""A local certificate authority and a `localhost` certificate, trusted for this user.

Office loads add-in files over HTTPS only, localhost included, and only from a certificate
the machine trusts. `ensure(directory)` creates (once) a CA valid ten years and a server
certificate for localhost / 127.0.0.1 / ::1 signed by it, valid one year and renewed when a
month is left (macOS refuses longer-lived server certificates). The CA's private key never
leaves the directory and is readable by this user only.

`trust(ca, platform)` adds the CA to the current user's trusted roots: Windows
`certutil -user -addstore Root` (Windows asks the user to confirm), macOS
`security add-trusted-cert -r trustRoot -k <login keychain>` (macOS asks for the password);
on Linux (Excel on the web in a browser there) it returns what to do, since every browser
keeps its own store. `untrust` is the reverse. Commands run through `run`, a seam the tests
replace; nothing here needs administrator rights.

Built with `cryptography` (the well-kept library for this); a company can skip all this and
pass its own certificate with `rates-xl serve --cert/--key`.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rates_xl.errors import CommandError

CA_NAME = "rates-xl local CA"
SERVER_NAMES = ("localhost",)
SERVER_IPS = ("127.0.0.1", "::1")
CA_DAYS = 3650
SERVER_DAYS = 365
RENEW_WITHIN = dt.timedelta(days=30)

Runner = Callable[[Sequence[str]], subprocess.CompletedProcess]


@dataclass(frozen=True)
class CertPaths:
    directory: Path

    @property
    def ca(self) -> Path:
        return self.directory / "rates-xl-ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.directory / "rates-xl-ca-key.pem"

    @property
    def cert(self) -> Path:
        return self.directory / "localhost.pem"

    @property
    def key(self) -> Path:
        return self.directory / "localhost-key.pem"

    def exist(self) -> bool:
        return all(p.is_file() for p in (self.ca, self.ca_key, self.cert, self.key))


def data_dir(platform: str | None = None) -> Path:
    """Where rates-xl keeps per-user files (certificates, the rendered manifest)."""
    override = os.environ.get("RATES_XL_DATA_DIR")
    if override:
        return Path(override)
    platform = platform or sys.platform
    home = Path.home()
    if platform.startswith("win"):
        return Path(os.environ.get("APPDATA", home / "AppData" / "Roaming")) / "rates-xl"
    if platform == "darwin":
        return home / "Library" / "Application Support" / "rates-xl"
    return Path(os.environ.get("XDG_DATA_HOME", home / ".local" / "share")) / "rates-xl"


def default_paths() -> CertPaths:
    return CertPaths(data_dir() / "certs")


def _write_private(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def ensure(paths: CertPaths) -> tuple[CertPaths, list[str]]:
    """Create what is missing (or about to expire); returns the paths and what was done."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    done: list[str] = []
    pem = serialization.Encoding.PEM
    no_password = serialization.NoEncryption()
    pkcs8 = serialization.PrivateFormat.PKCS8
    if paths.ca.is_file() and paths.ca_key.is_file():
        ca_cert = x509.load_pem_x509_certificate(paths.ca.read_bytes())
        ca_key = serialization.load_pem_private_key(paths.ca_key.read_bytes(), None)
    else:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME),
                          x509.NameAttribute(NameOID.ORGANIZATION_NAME, "rates-xl (this computer only)")])
        ca_cert = (
            x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(_now() - dt.timedelta(minutes=5))
            .not_valid_after(_now() + dt.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        _write_private(paths.ca_key, ca_key.private_bytes(pem, pkcs8, no_password))
        paths.ca.write_bytes(ca_cert.public_bytes(pem))
        done.append(f"created a certificate authority: {paths.ca}")

    if paths.cert.is_file() and paths.key.is_file():
        current = x509.load_pem_x509_certificate(paths.cert.read_bytes())
        fresh = current.not_valid_after_utc - _now() > RENEW_WITHIN and current.issuer == ca_cert.subject
        if fresh:
            return paths, done
    key = ec.generate_private_key(ec.SECP256R1())
    alt_names = [x509.DNSName(n) for n in SERVER_NAMES] + [x509.IPAddress(ipaddress.ip_address(i)) for i in SERVER_IPS]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_cert.subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now() - dt.timedelta(minutes=5))
        .not_valid_after(_now() + dt.timedelta(days=SERVER_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    _write_private(paths.key, key.private_bytes(pem, pkcs8, no_password))
    paths.cert.write_bytes(cert.public_bytes(pem))
    done.append(f"created a localhost certificate valid {SERVER_DAYS} days: {paths.cert}")
    return paths, done


def ca_fingerprint(ca: Path) -> str:
    """SHA-1 of the CA certificate, upper-case hex: how certutil and `security` name it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    return x509.load_pem_x509_certificate(ca.read_bytes()).fingerprint(hashes.SHA1()).hex().upper()


def login_keychain() -> Path:
    return Path.home() / "Library" / "Keychains" / "login.keychain-db"


def _run(command: Sequence[str]) -> subprocess.CompletedProcess:
    return subprocess.run(list(command), capture_output=True, text=True, check=False)


def linux_steps(ca: Path) -> list[str]:
    return [
        f"Trust {ca} in the browser that runs Excel on the web:",
        "  Chrome/Chromium: Settings > Privacy and security > Security > Manage certificates >",
        "    Authorities > Import, tick 'Trust this certificate for identifying websites';",
        "  Firefox: Settings > Privacy & Security > Certificates > View Certificates >",
        "    Authorities > Import, tick 'Trust this CA to identify websites'.",
    ]


def trust_commands(ca: Path, platform: str) -> list[list[str]]:
    if platform.startswith("win"):
        return [["certutil", "-user", "-addstore", "Root", str(ca)]]
    if platform == "darwin":
        return [["security", "add-trusted-cert", "-r", "trustRoot", "-k", str(login_keychain()), str(ca)]]
    return []


def untrust_commands(ca: Path, platform: str) -> list[list[str]]:
    fingerprint = ca_fingerprint(ca)
    if platform.startswith("win"):
        return [["certutil", "-user", "-delstore", "Root", fingerprint]]
    if platform == "darwin":
        return [["security", "remove-trusted-cert", str(ca)],
                ["security", "delete-certificate", "-Z", fingerprint, str(login_keychain())]]
    return []


def trust(ca: Path, platform: str | None = None, run: Runner = _run) -> list[str]:
    """Add the CA to this user's trusted roots; returns what was done (or what to do)."""
    return _apply(trust_commands(ca, platform or sys.platform), ca, run, "trusted") or linux_steps(ca)


def untrust(ca: Path, platform: str | None = None, run: Runner = _run) -> list[str]:
    platform = platform or sys.platform
    return _apply(untrust_commands(ca, platform), ca, run, "no longer trusted") or [
        f"Remove '{CA_NAME}' from your browser's Authorities (see `rates-xl officejs certs`)."]


def _apply(commands: list[list[str]], ca: Path, run: Runner, what: str) -> list[str]:
    if not commands:
        return []

    for command in commands:
        result = run(command)
        if result.returncode != 0:
            output = (result.stderr or result.stdout or "").strip().splitlines()
            raise CommandError(f"`{' '.join(command[:3])} ...` failed ({result.returncode}): "
                               f"{output[-1] if output else 'no output'}")
    return [f"{CA_NAME} ({ca.name}) is {what} for this user"]
