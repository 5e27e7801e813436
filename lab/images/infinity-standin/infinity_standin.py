"""The lab's stand-in for infinity (michaelf34/infinity): a CPU sentence-embedding server.

It is not infinity. It takes infinity's `v2` command line (`--model-id`, `--port`,
`--url-prefix`, `--served-model-name`, `--revision`; other flags are accepted and ignored) and
answers the OpenAI-compatible API infinity offers, but the machine learning is real:

- the model is resolved by repo id through `huggingface_hub` (offline, from `HF_HUB_CACHE`),
  never touching the network and never writing to the cache;
- the tokenizer (`tokenizers`) and the safetensors weights (`safetensors`) come from that
  snapshot; a BERT encoder forward pass in numpy, mean pooling over the attention mask and
  L2 normalisation (the modules sentence-transformers' all-MiniLM-L6-v2 lists) give the
  sentence embeddings.

Endpoints (with and without the url prefix): POST /embeddings, GET /models, GET /health.
"""

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

OWNER = "infinity-standin"


class StartupError(Exception):
    """A condition that stops the server before it listens (printed, exit code 1)."""


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="infinity_emb", add_help=True)
    parser.add_argument("subcommand", nargs="?", default="v2", choices=["v2"])
    parser.add_argument("--model-id", required=True)
    parser.add_argument("--served-model-name", default="")
    parser.add_argument("--revision", default=None)
    parser.add_argument("--port", type=int, default=7997)
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--url-prefix", default="")
    parser.add_argument("--batch-size", type=int, default=32)
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        log(f"ignoring flags this stand-in does not implement: {' '.join(ignored)}")
    return args


def log(message):
    print(f"infinity-standin: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the Hugging Face cache


def resolve_snapshot(repo_id, revision):
    """The snapshot folder huggingface_hub resolves repo_id to, offline, from HF_HUB_CACHE."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() not in ("1", "true", "yes", "on"):
        raise StartupError("HF_HUB_OFFLINE is not set to 1: this server never reaches the "
                           "network; set HF_HUB_OFFLINE=1 (the model must be in HF_HUB_CACHE)")
    # imported here: huggingface_hub reads HF_HUB_OFFLINE and HF_HUB_CACHE at import time
    # pylint: disable=import-outside-toplevel
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    cache = constants.HF_HUB_CACHE
    repo_dir = Path(cache) / ("models--" + repo_id.replace("/", "--"))
    try:
        path = snapshot_download(repo_id, revision=revision, local_files_only=True)
    except LocalEntryNotFoundError as err:
        raise StartupError(
            f"model {repo_id} (revision {revision or 'main'}) is not in the Hugging Face cache "
            f"{cache}: looked in {repo_dir} (HF_HUB_CACHE={os.environ.get('HF_HUB_CACHE', '')}, "
            f"HF_HUB_OFFLINE=1); pull the model into the cache first ({err.__class__.__name__})"
        ) from None
    snapshot = Path(path)
    missing = [f for f in ("config.json", "tokenizer.json", "model.safetensors")
               if not (snapshot / f).is_file()]
    if missing:
        raise StartupError(f"model {repo_id}: snapshot {snapshot} lacks {', '.join(missing)}")
    return snapshot


# ---------------------------------------------------------------- the model


def _erf(x):
    """erf to ~1.5e-7 (Abramowitz and Stegun 7.1.26), vectorised; numpy has no erf."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741
                                                      + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def gelu(x):
    """BERT's exact (erf) GELU."""
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


def layer_norm(x, weight, bias, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


class SentenceEmbedder:  # pylint: disable=too-many-instance-attributes
    """BERT encoder + pooling + normalisation, as sentence-transformers' modules.json lists."""

    def __init__(self, snapshot: Path):
        # pylint: disable=import-outside-toplevel
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.config = json.loads((snapshot / "config.json").read_text())
        if self.config.get("model_type") != "bert":
            raise StartupError(f"{snapshot}: model_type {self.config.get('model_type')!r} is not "
                               "bert; this stand-in runs BERT encoders only")
        raw = load_file(str(snapshot / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in raw.items()}
        self.max_len = 512
        st_config = snapshot / "sentence_bert_config.json"
        if st_config.is_file():
            self.max_len = json.loads(st_config.read_text()).get("max_seq_length", 512)
        self.tokenizer = Tokenizer.from_file(str(snapshot / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_len)
        self.tokenizer.enable_padding(pad_id=self.config.get("pad_token_id", 0))
        self.pooling, self.normalize = self._modules(snapshot)
        self.dim = self.config["hidden_size"]
        self.lock = threading.Lock()

    @staticmethod
    def _modules(snapshot):
        """Pooling mode and whether to normalise, from modules.json (defaults: mean, normalise)."""
        modules_file = snapshot / "modules.json"
        if not modules_file.is_file():
            return "mean", True
        pooling, normalize = "mean", False
        for module in json.loads(modules_file.read_text()):
            kind = module["type"].rsplit(".", 1)[-1]
            if kind == "Pooling":
                cfg = json.loads((snapshot / module["path"] / "config.json").read_text())
                if cfg.get("pooling_mode_cls_token"):
                    pooling = "cls"
                elif not cfg.get("pooling_mode_mean_tokens", True):
                    raise StartupError(f"{snapshot}: pooling {cfg} is not supported (mean, cls)")
            elif kind == "Normalize":
                normalize = True
        return pooling, normalize

    def encode(self, texts):
        """Embeddings (n, dim) float32 and the number of tokens used."""
        encodings = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        with self.lock:
            hidden = self._forward(ids, types, mask)
        if self.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            summed = (hidden * mask[:, :, None]).sum(axis=1)
            pooled = summed / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
        if self.normalize:
            pooled = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32), int(mask.sum())

    def _linear(self, x, name):
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def _forward(self, ids, types, mask):
        w, cfg = self.w, self.config
        eps = cfg.get("layer_norm_eps", 1e-12)
        batch, seq = ids.shape
        heads = cfg["num_attention_heads"]
        head_dim = cfg["hidden_size"] // heads
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(seq)][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]

        def split(t):
            return t.reshape(batch, seq, heads, head_dim).transpose(0, 2, 1, 3)

        for i in range(cfg["num_hidden_layers"]):
            p = f"encoder.layer.{i}"
            q = split(self._linear(x, f"{p}.attention.self.query"))
            k = split(self._linear(x, f"{p}.attention.self.key"))
            v = split(self._linear(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(head_dim) + bias
            ctx = (softmax(scores) @ v).transpose(0, 2, 1, 3).reshape(batch, seq, -1)
            attn = self._linear(ctx, f"{p}.attention.output.dense")
            x = layer_norm(attn + x, w[f"{p}.attention.output.LayerNorm.weight"],
                           w[f"{p}.attention.output.LayerNorm.bias"], eps)
            inter = gelu(self._linear(x, f"{p}.intermediate.dense"))
            out = self._linear(inter, f"{p}.output.dense")
            x = layer_norm(out + x, w[f"{p}.output.LayerNorm.weight"],
                           w[f"{p}.output.LayerNorm.bias"], eps)
        return x


# ---------------------------------------------------------------- HTTP


class Api:
    def __init__(self, args, snapshot, embedder):
        self.repo_id = args.model_id
        self.name = args.served_model_name or args.model_id
        self.snapshot = snapshot
        self.embedder = embedder
        self.batch_size = max(1, args.batch_size)
        self.created = int(time.time())
        prefixes = {"", "/v1", args.url_prefix.rstrip("/")}
        self.routes = {}
        for prefix in prefixes:
            self.routes[("GET", f"{prefix}/health")] = self.health
            self.routes[("GET", f"{prefix}/models")] = self.models
            self.routes[("POST", f"{prefix}/embeddings")] = self.embeddings

    def health(self, _body):
        return 200, {"unix": time.time()}

    def models(self, _body):
        return 200, {"object": "list", "data": [{
            "id": self.name, "object": "model", "created": self.created, "owned_by": OWNER,
            "root": str(self.snapshot), "backend": "numpy",
            "capabilities": ["embed"], "stats": {"embedding_dimension": self.embedder.dim}}]}

    def embeddings(self, body):
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            return 400, _error("request body is not JSON")
        model = request.get("model", self.name)
        if model not in (self.name, self.repo_id):
            return 400, _error(f"model {model!r} is not served here; this server serves "
                               f"{self.name!r}")
        texts = request.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not texts or not all(isinstance(t, str) for t in texts):
            return 400, _error("input must be a string or a non-empty list of strings")
        if request.get("encoding_format", "float") != "float":
            return 400, _error("only encoding_format float is supported")
        vectors, tokens = [], 0
        for start in range(0, len(texts), self.batch_size):
            batch, used = self.embedder.encode(texts[start:start + self.batch_size])
            vectors.extend(batch)
            tokens += used
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()}
                for i, v in enumerate(vectors)]
        return 200, {"object": "list", "data": data, "model": self.name,
                     "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def _error(message):
    return {"error": {"message": message, "type": "invalid_request_error"}}


def make_handler(api):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _handle(self, method):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            route = api.routes.get((method, self.path.split("?", 1)[0].rstrip("/") or "/"))
            if route is None:
                status, payload = 404, _error(f"no route {method} {self.path}")
            else:
                status, payload = route(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):  # noqa: N802  pylint: disable=invalid-name
            self._handle("GET")

        def do_POST(self):  # noqa: N802  pylint: disable=invalid-name
            self._handle("POST")

        def log_message(self, format, *args):  # pylint: disable=redefined-builtin
            if self.path.rstrip("/").endswith("/health"):
                return
            log(format % args)

    return Handler


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        snapshot = resolve_snapshot(args.model_id, args.revision)
        log(f"resolved {args.model_id} to {snapshot}")
        embedder = SentenceEmbedder(snapshot)
    except StartupError as err:
        log(f"startup error: {err}")
        return 1
    embedder.encode(["warm up"])
    api = Api(args, snapshot, embedder)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(api))
    log(f"serving {api.name} (dim {embedder.dim}, {embedder.pooling} pooling, "
        f"normalize={embedder.normalize}) on {args.host}:{args.port}")
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
