"""A small writer of OCI image layouts, reproducible byte for byte for the same inputs."""

import gzip
import hashlib
import io
import json
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

MEDIA_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
MEDIA_CONFIG = "application/vnd.oci.image.config.v1+json"
MEDIA_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass
class Layer:
    """Files of one layer: path -> (mode, bytes), symlinks: path -> target, dirs: path -> mode."""

    files: dict = field(default_factory=dict)
    symlinks: dict = field(default_factory=dict)
    dirs: dict = field(default_factory=dict)

    def add_file(self, path, data, mode=0o644):
        self.files[path.lstrip("/")] = (mode, data)

    def tar_bytes(self):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path in sorted(self._all_dirs()):
                info = tarfile.TarInfo(path)
                info.type, info.mode = tarfile.DIRTYPE, self.dirs.get(path, 0o755)
                tar.addfile(info)
            for path, (mode, data) in sorted(self.files.items()):
                info = tarfile.TarInfo(path)
                info.size, info.mode = len(data), mode
                tar.addfile(info, io.BytesIO(data))
            for path, target in sorted(self.symlinks.items()):
                info = tarfile.TarInfo(path)
                info.type, info.linkname = tarfile.SYMTYPE, target
                tar.addfile(info)
        return buf.getvalue()

    def _all_dirs(self):
        dirs = set(self.dirs)
        for path in list(self.files) + list(self.symlinks):
            parts = path.split("/")[:-1]
            dirs.update("/".join(parts[: i + 1]) for i in range(len(parts)))
        return dirs


def _digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _write_blob(layout: Path, data):
    digest = _digest(data)
    path = layout / "blobs" / "sha256" / digest.split(":")[1]
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_bytes(data)
    return {"digest": digest, "size": len(data)}


def write_image(layout: Path, tag, layers, entrypoint=(), cmd=(), env=(), workdir="", user=""):
    """Write an image into an OCI layout directory under the given tag; return manifest digest."""
    layout.mkdir(parents=True, exist_ok=True)
    (layout / "oci-layout").write_text(json.dumps({"imageLayoutVersion": "1.0.0"}))
    layer_descs, diff_ids = [], []
    for layer in layers:
        raw = layer.tar_bytes()
        diff_ids.append(_digest(raw))
        layer_descs.append({"mediaType": MEDIA_LAYER, **_compressed_blob(layout, raw)})
    config = {
        "architecture": "amd64", "os": "linux",
        "config": {"Env": [f"PATH={DEFAULT_PATH}", *env]},
        "rootfs": {"type": "layers", "diff_ids": diff_ids},
    }
    for key, value in (("Entrypoint", list(entrypoint)), ("Cmd", list(cmd)),
                       ("WorkingDir", workdir), ("User", user)):
        if value:
            config["config"][key] = value
    config_desc = {"mediaType": MEDIA_CONFIG, **_write_blob(layout, _canonical(config))}
    manifest = {"schemaVersion": 2, "mediaType": MEDIA_MANIFEST, "config": config_desc,
                "layers": layer_descs}
    manifest_desc = {"mediaType": MEDIA_MANIFEST, **_write_blob(layout, _canonical(manifest)),
                     "annotations": {"org.opencontainers.image.ref.name": tag}}
    index_path = layout / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {
        "schemaVersion": 2, "manifests": []}
    index["manifests"] = [m for m in index["manifests"] if _ref_name(m) != tag]
    index["manifests"].append(manifest_desc)
    index_path.write_text(json.dumps(index, indent=1))
    return manifest_desc["digest"]


def _ref_name(descriptor):
    return descriptor.get("annotations", {}).get("org.opencontainers.image.ref.name")


def _compressed_blob(layout: Path, raw):
    """Gzip a layer into the layout, reusing the blob made from the same tar before."""
    known_file = layout / "compressed-layers.json"  # diff_id -> blob descriptor
    known = json.loads(known_file.read_text()) if known_file.exists() else {}
    desc = known.get(_digest(raw))
    if desc and (layout / "blobs" / "sha256" / desc["digest"].split(":")[1]).exists():
        return desc
    desc = _write_blob(layout, gzip.compress(raw, compresslevel=6, mtime=0))
    known[_digest(raw)] = desc
    known_file.write_text(json.dumps(known, indent=1))
    return desc


def _canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def push(layout: Path, tag, dest_ref, cert_dir: Path, creds):
    """Copy one tagged image from the layout to the registry (skopeo), keeping its digest."""
    policy = layout.parent / "skopeo-policy.json"  # the lab's own, whatever the host has
    policy.write_text(json.dumps({"default": [{"type": "insecureAcceptAnything"}]}))
    subprocess.run(["skopeo", "--policy", str(policy), "copy", "--quiet", "--preserve-digests",
                    "--dest-cert-dir", str(cert_dir), "--dest-creds", creds,
                    f"oci:{layout}:{tag}", f"docker://{dest_ref}"], check=True)
