"""Test certificates made at test time (never committed): a CA and certificates it signs for 127.0.0.1.

    ca = TestCa(tmp_path)
    service = ca.issue("service")           # Issued(cert=..., key=...), PEM files, the key chmod 600
    desk = ca.issue("desk", common_name="desk-2")   # a client certificate naming its holder
    old = ca.issue("old", days=-1)          # expired yesterday
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Issued:
    cert: Path
    key: Path


def _key_file(path: Path, key) -> Path:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    path.chmod(0o600)
    return path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


class TestCa:
    __test__ = False          # not a pytest test class

    def __init__(self, folder: Path, name: str = "appliance test CA"):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.now(timezone.utc)
        self.certificate = (
            x509.CertificateBuilder().subject_name(_name(name)).issuer_name(_name(name))
            .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1)).not_valid_after(now + timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self.key, hashes.SHA256()))
        self.cert = folder / f"{name.replace(' ', '-')}.crt"
        self.cert.write_bytes(self.certificate.public_bytes(serialization.Encoding.PEM))

    def issue(self, name: str, *, days: float = 30.0, host: str = "127.0.0.1",
              common_name: str | None = None) -> Issued:
        """A certificate for `host` (its IP as subjectAltName) valid until `days` from now (negative: expired);
        its subject's common name is `common_name`, else `host`."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.now(timezone.utc)
        ends = now + timedelta(days=days)
        certificate = (
            x509.CertificateBuilder().subject_name(_name(common_name or host)).issuer_name(self.certificate.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(min(now, ends) - timedelta(days=2)).not_valid_after(ends)
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host))]),
                           critical=False)
            .sign(self.key, hashes.SHA256()))
        cert = self.folder / f"{name}.crt"
        cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        return Issued(cert, _key_file(self.folder / f"{name}.key", key))
