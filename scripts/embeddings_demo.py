"""Embed two similar sentences and an unrelated one through an embeddings server; print the
similarities, the snapshot the server resolved, and how close each vector is to the golden one.

The sentences and golden vectors come from tests/fixtures/minilm_golden_embeddings.json
(sentence-transformers' own output, scripts/golden_embeddings.py). Exit code 1 when the
similar pair is not closer than the unrelated one, or a vector is off the golden one
(cosine < 0.9999). Standard library only.

    python3 scripts/embeddings_demo.py --url http://10.96.12.34:8200
"""

import argparse
import json
import math
import sys
import urllib.request
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / \
    "minilm_golden_embeddings.json"


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def call(url, path, payload=None):
    data = json.dumps(payload).encode() if payload is not None else None
    request = urllib.request.Request(url.rstrip("/") + path, data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as resp:
        return json.loads(resp.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="server base URL, e.g. http://IP:8200")
    parser.add_argument("--golden", type=Path, default=GOLDEN)
    args = parser.parse_args()
    golden = json.loads(args.golden.read_text(encoding="utf-8"))
    first, second = golden["demo"]["similar"]
    picks = [first, second, golden["demo"]["unrelated"]]
    texts = [golden["sentences"][i] for i in picks]
    model = call(args.url, "/v1/models")["data"][0]
    print(f"model {model['id']} resolved to {model.get('root', '?')}")
    answer = call(args.url, "/v1/embeddings", {"model": model["id"], "input": texts})
    vectors = [d["embedding"] for d in sorted(answer["data"], key=lambda d: d["index"])]
    similar, unrelated = cosine(vectors[0], vectors[1]), cosine(vectors[0], vectors[2])
    print(f"  similar:   {similar:.4f}  {texts[0]!r} ~ {texts[1]!r}")
    print(f"  unrelated: {unrelated:.4f}  {texts[0]!r} ~ {texts[2]!r}")
    off = [cosine(v, golden["embeddings"][i]) for v, i in zip(vectors, picks)]
    print(f"  vs sentence-transformers (golden): min cosine {min(off):.6f}")
    if similar <= unrelated or min(off) < 0.9999:
        print("FAIL: the served embeddings are not the model's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
