"""The lab's certificate authority and the certificates it signs (openssl CLI)."""

import subprocess
import tempfile
from pathlib import Path

DAYS = "3650"


def _openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def _ec_key(path):
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-out", str(path))
    path.chmod(0o600)


def ensure_ca(pki: Path):
    key, crt = pki / "ca.key", pki / "ca.crt"
    if crt.exists():
        return crt
    pki.mkdir(parents=True, exist_ok=True)
    _ec_key(key)
    _openssl("req", "-x509", "-new", "-key", str(key), "-out", str(crt), "-days", DAYS,
             "-subj", "/CN=ai-platform-serving-lab-ca",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return crt


def ensure_cert(pki: Path, name, cn, org="", dns=(), ips=()):
    """A leaf certificate for server and client use, signed by the lab CA."""
    key, crt = pki / f"{name}.key", pki / f"{name}.crt"
    if crt.exists():
        return crt, key
    _ec_key(key)
    subject = (f"/O={org}" if org else "") + f"/CN={cn}"
    sans = [f"DNS:{d}" for d in dns] + [f"IP:{i}" for i in ips]
    ext = ["basicConstraints=critical,CA:FALSE",
           "keyUsage=critical,digitalSignature,keyEncipherment",
           "extendedKeyUsage=serverAuth,clientAuth"]
    if sans:
        ext.append("subjectAltName=" + ",".join(sans))
    with tempfile.TemporaryDirectory() as tmp:
        csr, extfile = Path(tmp) / "req.csr", Path(tmp) / "ext.cnf"
        extfile.write_text("\n".join(ext) + "\n")
        _openssl("req", "-new", "-key", str(key), "-subj", subject, "-out", str(csr))
        _openssl("x509", "-req", "-in", str(csr), "-CA", str(pki / "ca.crt"),
                 "-CAkey", str(pki / "ca.key"), "-CAcreateserial", "-days", DAYS,
                 "-extfile", str(extfile), "-out", str(crt))
    return crt, key


def ensure_service_account_keys(pki: Path):
    key, pub = pki / "sa.key", pki / "sa.pub"
    if not pub.exists():
        _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                 "-out", str(key))
        key.chmod(0o600)
        _openssl("pkey", "-in", str(key), "-pubout", "-out", str(pub))
    return key, pub
