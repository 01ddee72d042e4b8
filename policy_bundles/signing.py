"""Ed25519 signatures over a policy bundle's content hash (``cryptography``).

A signature signs the canonical content hash (``sha256:...`` of the canonical JSON), so reformatting a bundle file
keeps its signature valid and any change of content breaks it. Signatures are detached files next to the bundle
(``bundle.json.sig``), JSON: ``{"hash": ..., "signature": base64, "key_id": ..., "algorithm": "ed25519"}``.

A deployment that requires signatures (``--require-signed`` or ``CONTROLPLANE_REQUIRE_SIGNED_POLICY=1``, public key
from ``--public-key`` or ``CONTROLPLANE_POLICY_PUBLIC_KEY``) refuses unsigned or badly signed bundles.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .loader import PolicyBundleError

REQUIRE_ENV = "CONTROLPLANE_REQUIRE_SIGNED_POLICY"
PUBLIC_KEY_ENV = "CONTROLPLANE_POLICY_PUBLIC_KEY"
ALGORITHM = "ed25519"


class SignatureError(PolicyBundleError):
    """A signature is missing, malformed or does not verify; or a key cannot be read."""


@dataclass(frozen=True)
class SigningConfig:
    required: bool
    public_key_path: Path | None

    @classmethod
    def from_env(cls, require: bool | None = None, public_key: str | Path | None = None) -> SigningConfig:
        required = require if require else os.environ.get(REQUIRE_ENV, "").strip().lower() in ("1", "true", "yes")
        key = public_key or os.environ.get(PUBLIC_KEY_ENV) or None
        return cls(bool(required), Path(key) if key else None)

    def public_key(self) -> Ed25519PublicKey:
        if self.public_key_path is None:
            raise SignatureError(
                f"signed policies are required but no public key is configured: pass --public-key PATH or set "
                f"{PUBLIC_KEY_ENV}"
            )
        return load_public_key(self.public_key_path)


def keygen(base: str | Path) -> tuple[Path, Path]:
    """Write ``BASE.key`` (private, PEM, mode 600) and ``BASE.pub`` (public, PEM)."""
    base = Path(base)
    private = Ed25519PrivateKey.generate()
    key_path, pub_path = base.with_name(base.name + ".key"), base.with_name(base.name + ".pub")
    for path in (key_path, pub_path):
        if path.exists():
            raise SignatureError(f"{path} already exists; choose another base name (keys are never overwritten)")
    key_path.parent.mkdir(parents=True, exist_ok=True)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    pub_path.write_bytes(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                           serialization.PublicFormat.SubjectPublicKeyInfo))
    return key_path, pub_path


def _read(path: Path, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise SignatureError(f"cannot read {what} {path}: {exc}") from None


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(_read(Path(path), "private key"), password=None)
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"{path} is not an unencrypted PEM private key ({exc}); make one with policy keygen") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{path} is not an ed25519 key; make one with: controlplane policy keygen BASE")
    return key


def load_public_key(path: str | Path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(_read(Path(path), "public key"))
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"{path} is not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SignatureError(f"{path} is not an ed25519 public key")
    return key


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


def sign_hash(content_hash: str, private: Ed25519PrivateKey) -> dict[str, Any]:
    signature = private.sign(content_hash.encode("utf-8"))
    return {"algorithm": ALGORITHM, "hash": content_hash, "key_id": key_id(private.public_key()),
            "signature": base64.b64encode(signature).decode("ascii")}


def signature_path(bundle_path: str | Path) -> Path:
    bundle_path = Path(bundle_path)
    return bundle_path.with_name(bundle_path.name + ".sig")


def read_signature(bundle_path: str | Path) -> dict[str, Any] | None:
    path = signature_path(bundle_path)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SignatureError(f"signature file {path} is unreadable ({exc}); re-sign with: controlplane policy sign") from None
    if not isinstance(data, dict) or not {"hash", "signature"} <= set(data):
        raise SignatureError(f"signature file {path} lacks 'hash'/'signature'; re-sign with: controlplane policy sign")
    return data


def verify(content_hash: str, signature: dict[str, Any] | None, public: Ed25519PublicKey) -> None:
    """Raise SignatureError unless ``signature`` is a valid ed25519 signature of exactly ``content_hash``."""
    if not signature:
        raise SignatureError(f"bundle {content_hash[:19]}... is unsigned; sign it with: controlplane policy sign FILE "
                             "--key KEY")
    if signature.get("hash") != content_hash:
        raise SignatureError(f"signature is for {str(signature.get('hash'))[:19]}..., not for this bundle's content "
                             f"{content_hash[:19]}... (the bundle changed after signing)")
    try:
        raw = base64.b64decode(str(signature.get("signature", "")), validate=True)
        public.verify(raw, content_hash.encode("utf-8"))
    except (InvalidSignature, ValueError):
        raise SignatureError(f"signature of bundle {content_hash[:19]}... does not verify with key {key_id(public)}") from None
