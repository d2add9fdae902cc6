#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (scripts/fuzz), made from real files: installed models, the corpus, the catalog.

Large real files become small inputs of the same form (a Whisper model.bin shrunk to a width of 48 and one layer
each side, a tokenizer.json cut to its first tokens, short clips of the corpus in several containers), so that
libFuzzer mutates structure rather than megabytes of weights; the real VAD weights are kept whole.
Usage: make_seeds.py OUT_DIR MODELS_DIR REPO_DIR CORPUS_DIR
"""
import base64, io, json, os, re, struct, subprocess, sys, zipfile

out, models, repo, corpus = sys.argv[1:5]


def put(target, name, data):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def model_dirs():
    for name in sorted(os.listdir(models)):
        path = os.path.join(models, name)
        if os.path.exists(os.path.join(path, "model.bin")):
            yield name, path


# model.bin: the real variable table with every size shrunk (width 384 → 48 and so on), one layer each side.
def read_ct2(path):
    data = read(path)
    pos = 0

    def u(fmt):
        nonlocal pos
        v = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return v[0]

    def name():
        nonlocal pos
        n = u("<H")
        s = data[pos:pos + n - 1].decode()
        pos += n
        return s

    version = u("<I"); spec = name(); revision = u("<I")
    variables = []
    for _ in range(u("<I")):
        n = name(); rank = u("<B"); shape = [u("<I") for _ in range(rank)]; dtype = u("<B"); size = u("<I")
        variables.append((n, shape, dtype, data[pos:pos + size])); pos += size
    aliases = []
    if pos < len(data):
        for _ in range(u("<I")):
            aliases.append((name(), name()))
    return version, spec, revision, variables, aliases


def write_ct2(version, spec, revision, variables, aliases):
    def name(s):
        b = s.encode() + b"\0"
        return struct.pack("<H", len(b)) + b
    parts = [struct.pack("<I", version), name(spec), struct.pack("<I", revision), struct.pack("<I", len(variables))]
    for n, shape, dtype, payload in variables:
        parts += [name(n), struct.pack("<B", len(shape))] + [struct.pack("<I", d) for d in shape]
        parts += [struct.pack("<B", dtype), struct.pack("<I", len(payload)), payload]
    parts.append(struct.pack("<I", len(aliases)))
    for a, t in aliases:
        parts += [name(a), name(t)]
    return b"".join(parts)


WIDTH = {0: 4, 1: 1, 2: 2, 3: 4, 4: 2, 5: 2}


def shrink(path):
    version, spec, revision, variables, aliases = read_ct2(path)
    conv1 = next(s for n, s, _, _ in variables if n == "encoder/conv1/weight")
    d = conv1[0]
    small = {d: 48, 2 * d: 96, 3 * d: 144, 4 * d: 192}
    kept = []
    for n, shape, dtype, payload in variables:
        if re.search(r"/layer_[1-9][0-9]*/", n):
            continue
        if n.endswith("position_encodings/encodings"):
            new = [shape[0], 48] if n.startswith("encoder") else [64, 48]
        elif n == "decoder/embeddings/weight":
            new = [64, 48]
        else:
            new = [small.get(x, x) if i < 2 or len(shape) == 1 else x for i, x in enumerate(shape)]
        count = 1
        for x in new:
            count *= x
        size = count * WIDTH[dtype]
        body = (payload * (size // max(len(payload), 1) + 1))[:size] if payload else b"\0" * size
        kept.append((n, new, dtype, body))
    return write_ct2(version, spec, revision, kept, aliases)


for name, path in model_dirs():
    put("model-file", f"{name}-small.bin", shrink(os.path.join(path, "model.bin")))
    put("model-file", f"{name}-head.bin", read(os.path.join(path, "model.bin"))[:4096])
    put("config", f"{name}.json", read(os.path.join(path, "config.json")))
    manifest = os.path.join(path, ".openspeech-install.json")
    if os.path.exists(manifest):
        put("install-manifest", f"{name}.json", read(manifest))
    # tokenizer.json cut to its byte tokens and first merges; added tokens renumbered after them.
    tok = json.loads(read(os.path.join(path, "tokenizer.json")))
    vocab = {k: v for k, v in tok["model"]["vocab"].items() if v < 600}
    merges = []
    for m in tok["model"]["merges"]:
        a, b = m.split(" ", 1) if isinstance(m, str) else m
        if a in vocab and b in vocab and a + b in vocab:
            merges.append(m)
    added = [dict(t, id=len(vocab) + i) for i, t in enumerate(tok.get("added_tokens", []))]
    tok["model"]["vocab"], tok["model"]["merges"], tok["added_tokens"] = vocab, merges, added
    put("tokenizer", f"{name}.json", json.dumps(tok, ensure_ascii=False).encode())
    # vocabulary.json: the minimal tokenizer's ids (bytes, then the specials), from the real vocabulary.txt's spellings.
    lines = read(os.path.join(path, "vocabulary.txt")).decode().split("\n")[:256]
    specials = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|translate|>", "<|transcribe|>",
                "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"]
    put("vocabulary", f"{name}.json", json.dumps(lines + specials).encode())

# The VAD weights, whole, and a small ONNX file of the same structure (graph, initializer, Constant in a subgraph).
vad = os.path.join(models, "silero-vad")
if os.path.isdir(vad):
    put("onnx", "silero_vad.onnx", read(os.path.join(vad, "silero_vad.onnx")))
    put("safetensors", "silero_vad_16k.safetensors", read(os.path.join(vad, "silero_vad_16k.safetensors")))


def varint(n):
    b = bytearray()
    while True:
        if n < 0x80:
            b.append(n); return bytes(b)
        b.append(n & 0x7F | 0x80); n >>= 7


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def tensor(name, dims, raw=True):
    body = b"".join(varint(1 << 3) + varint(d) for d in dims) + varint(2 << 3) + varint(1) + field(8, name.encode())
    values = struct.pack(f"<{max(1, eval('*'.join(map(str, dims)) or '1'))}f", *([0.5] * max(1, eval('*'.join(map(str, dims)) or '1'))))
    return body + (field(9, values) if raw else field(4, values))


const = field(4, b"Constant") + field(2, b"c0") + field(5, field(1, b"value") + field(5, tensor("c0", [2, 2], raw=False)))
subgraph = field(1, const) + field(5, tensor("sub.weight", [3]))
node = field(4, b"If") + field(5, field(1, b"then_branch") + field(6, subgraph))
graph = field(1, node) + field(5, tensor("_model.stft.forward_basis_buffer", [2, 1, 2])) + field(5, tensor("w", [4]))
put("onnx", "small.onnx", varint(1 << 3) + varint(8) + field(7, graph))

header = json.dumps({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
                     "b": {"dtype": "F16", "shape": [3], "data_offsets": [16, 22]}, "__metadata__": {"format": "pt"}})
put("safetensors", "small.safetensors", struct.pack("<Q", len(header)) + header.encode() + struct.pack("<4f", 1, 2, 3, 4) + b"\0<\0<\0<")

# Audio: 0.2 s of a corpus recording in the containers and sample formats users send.
clips = sorted(f for f in os.listdir(os.path.join(corpus, "audio")) if f.endswith(".wav"))
if clips:
    source = os.path.join(corpus, "audio", clips[0])
    for name, args in [("s16-16k-mono.wav", ["-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le"]),
                       ("f32-44k-stereo.wav", ["-ar", "44100", "-ac", "2", "-c:a", "pcm_f32le"]),
                       ("s24-48k.wav", ["-ar", "48000", "-c:a", "pcm_s24le"]),
                       ("u8-8k.wav", ["-ar", "8000", "-c:a", "pcm_u8"]),
                       ("clip.flac", ["-ar", "16000"]), ("clip.mp3", ["-ar", "16000", "-b:a", "32k"]),
                       ("clip.ogg", ["-ar", "16000", "-c:a", "libvorbis"])]:
        data = subprocess.run(["ffmpeg", "-v", "error", "-t", "0.2", "-i", source] + args + ["-f", name.split(".")[-1], "-"],
                              capture_output=True).stdout
        if data:
            put("audio-file", name, data)
            if name.endswith(".wav"):
                put("wav-header", name, data[:512])

catalog = os.path.join(repo, "Sources/SpeechAssets/Resources/catalog.json")
put("catalog", "catalog.json", read(catalog))
put("catalog", "user-models.json", json.dumps({"models": [json.loads(read(catalog))["models"][0]]}).encode())
# A url source and a directory source (the checks of every source kind), and an entry climbing out of the home.
url_model = {"id": "u", "family": "whisper", "languages": ["en"], "sources": [
    {"type": "url", "files": {"model.bin": "https://example.invalid/model.bin"}},
    {"type": "directory", "path": "/nonexistent"}],
    "files": [{"name": "model.bin", "size": 1, "sha256": "0" * 64}]}
put("catalog", "url.json", json.dumps({"models": [url_model]}).encode())
put("catalog", "escape.json", json.dumps({"models": [dict(url_model, id="../x", files=[
    {"name": "../model.bin", "size": 1, "sha256": "0" * 64}])]}).encode())

buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("ctranslate2_model/model.bin", b"\x06\0\0\0" + b"weights" * 20)
    z.writestr("pkg-1.0.dist-info/METADATA", "Name: pkg\n")
put("wheel", "model.whl", buffer.getvalue())
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
    z.writestr("ctranslate2_model/model.bin", b"stored")
put("wheel", "stored.whl", buffer.getvalue())

b = "--fuzzboundary"
body = (f"{b}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-tiny.en\r\n"
        f"{b}\r\nContent-Disposition: form-data; name=\"timestamp_granularities[]\"\r\n\r\nword\r\n"
        f"{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\nRIFF....WAVE\r\n"
        f"{b}--\r\n")
put("multipart", "form.txt", body.encode())
put("multipart", "fields.txt", f"{b}\r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nen\r\n{b}--\r\n".encode())

# Realtime WebSocket messages: every client event the session takes, with each setting it reads.
realtime = {
    "update.json": {"type": "transcription_session.update", "event_id": "e1", "session": {
        "input_audio_format": "g711_ulaw", "input_audio_transcription": {"model": "whisper-1", "language": "en",
                                                                          "prompt": "OpenSpeech", "hotwords": ["Zyx"]},
        "turn_detection": {"type": "server_vad", "threshold": 0.4, "prefix_padding_ms": 200, "silence_duration_ms": 600},
        "input_audio_noise_reduction": {"type": "far_field"},
        "include": ["item.input_audio_transcription.logprobs"]}},
    "semantic.json": {"type": "transcription_session.update", "session": {
        "turn_detection": {"type": "semantic_vad", "eagerness": "low"}, "input_audio_noise_reduction": None}},
    "append.json": {"type": "input_audio_buffer.append",
                    "audio": base64.b64encode(bytes(range(256)) * 4).decode()},
    "commit.json": {"type": "input_audio_buffer.commit"},
    "clear.json": {"type": "input_audio_buffer.clear", "event_id": "x"},
}
for name, event in realtime.items():
    put("realtime-event", name, json.dumps(event).encode())

# Connections' bytes before the HTTP parser: kept-alive requests with fixed and chunked bodies, an upgrade, the
# framings the guard refuses.
put("http-head", "kept-alive.bin", (
    b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n"
    b"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
    b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nT: 1\r\n\r\n"
    b"GET /v1/models HTTP/1.1\r\n"))
put("http-head", "upgrade.bin", b"GET /v1/realtime HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x85abc")
put("http-head", "smuggle.bin", b"POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
# Text to the byte-pair encoder.
put("byte-pair-encoder", "letters.txt", b"aaaaabalolololooba" * 8)
put("byte-pair-encoder", "mixed.txt", "Hello, wörld! 你好 <|en|> ab lo\n\t".encode())


# ORT-format models (ONNX Runtime's FlatBuffers): a small graph written here as Moonshine's files are laid out (an
# int8 weight dequantized by Cast, Mul and Add before a MatMul named after its module, an If whose branch is a
# subgraph), and Moonshine's tokenizer.bin cut to its special and byte tokens and a few pieces.
class FlatBuffer:
    """A FlatBuffers writer laying objects out front to back (each offset points forward; vtables before tables)."""

    def __init__(self):
        self.buf = bytearray(8)

    def align(self, n):
        self.buf += b"\0" * (-len(self.buf) % n)

    def string(self, text):
        self.align(4)
        pos = len(self.buf)
        data = text.encode()
        self.buf += struct.pack("<I", len(data)) + data + b"\0"
        return pos

    def scalars(self, fmt, values):
        self.align(8)
        self.buf += b"\0" * 4  # so the values after the count are 8-aligned
        pos = len(self.buf)
        self.buf += struct.pack("<I", len(values)) + b"".join(struct.pack("<" + fmt, v) for v in values)
        return pos

    def raw(self, data):
        self.align(4)
        pos = len(self.buf)
        self.buf += struct.pack("<I", len(data)) + data
        return pos

    def offsets(self, writers):
        self.align(4)
        pos = len(self.buf)
        self.buf += struct.pack("<I", len(writers)) + b"\0" * 4 * len(writers)
        for i, write in enumerate(writers):
            child = write()
            struct.pack_into("<I", self.buf, pos + 4 + 4 * i, child - (pos + 4 + 4 * i))
        return pos

    def table(self, fields):
        """fields: one per field index, None (absent), (fmt, value) for a scalar, or a function writing a child."""
        self.align(4)
        vtable = len(self.buf)
        self.buf += b"\0" * (4 + 2 * len(fields))
        self.align(8)
        self.buf += b"\0" * 4
        table = len(self.buf) - 4
        entries, pending = [], []
        for item in fields:
            if item is None:
                entries.append(0)
            elif callable(item):
                self.align(4)
                entries.append(len(self.buf) - table)
                pending.append((len(self.buf), item))
                self.buf += b"\0" * 4
            else:
                fmt, value = item
                self.align(struct.calcsize(fmt))
                entries.append(len(self.buf) - table)
                self.buf += struct.pack("<" + fmt, value)
        struct.pack_into("<HH" + "H" * len(fields), self.buf, vtable, 4 + 2 * len(fields), len(self.buf) - table, *entries)
        struct.pack_into("<i", self.buf, table, table - vtable)
        for pos, write in pending:
            struct.pack_into("<I", self.buf, pos, write() - pos)
        return table

    def finish(self, root):
        struct.pack_into("<I", self.buf, 0, root)
        self.buf[4:8] = b"ORTM"
        return bytes(self.buf)


def ort_seed():
    fb = FlatBuffer()

    def tensor(name, dims, code, data):
        return lambda: fb.table([lambda: fb.string(name), None, lambda: fb.scalars("q", dims), ("i", code),
                                 lambda: fb.raw(data)])

    def node(name, op, inputs, outputs, subgraph=None):
        attributes = None
        if subgraph is not None:
            attributes = lambda: fb.offsets([lambda: fb.table([lambda: fb.string("then_branch"), None, ("i", 5), None,
                                                               None, None, None, subgraph])])
        return lambda: fb.table([lambda: fb.string(name), None, None, None, None, lambda: fb.string(op), None, None,
                                 lambda: fb.offsets([(lambda s: lambda: fb.string(s))(s) for s in inputs]),
                                 lambda: fb.offsets([(lambda s: lambda: fb.string(s))(s) for s in outputs]),
                                 attributes])

    def graph(initializers, nodes, inputs, outputs):
        return lambda: fb.table([lambda: fb.offsets(initializers), None, lambda: fb.offsets(nodes), None, None,
                                 lambda: fb.offsets([(lambda s: lambda: fb.string(s))(s) for s in inputs]),
                                 lambda: fb.offsets([(lambda s: lambda: fb.string(s))(s) for s in outputs])])

    branch = graph([], [node("/layers.0/fc/MatMul", "MatMul", ["x", "w_add"], ["y"])], [], ["y"])
    main = graph(
        [tensor("onnx::MatMul_1_quantized", [4, 4], 3, bytes(range(16))),
         tensor("onnx::MatMul_1_scale", [1], 1, struct.pack("<f", 0.5)),
         tensor("onnx::MatMul_1_zero_point", [1], 1, struct.pack("<f", -0.25)),
         tensor("layers.0.norm.weight_merged_0", [4], 1, struct.pack("<4f", 1, 2, 3, 4))],
        [node("c", "Cast", ["onnx::MatMul_1_quantized"], ["w_cast"]),
         node("m", "Mul", ["w_cast", "onnx::MatMul_1_scale"], ["w_mul"]),
         node("a", "Add", ["w_mul", "onnx::MatMul_1_zero_point"], ["w_add"]),
         node("optimum::if", "If", ["use_cache_branch"], ["y"], subgraph=branch)],
        ["x", "use_cache_branch"], ["y"])
    model = lambda: fb.table([("q", 10), None, lambda: fb.string("seed"), None, None, None, None, main])
    session = fb.table([lambda: fb.string("6"), model])
    return fb.finish(session)


put("ort-model", "small.ort", ort_seed())
pieces = [b"<unk>", b"<s>", b"</s>"] + [bytes([i]) for i in range(256)] + ["\u2581the".encode(), b"ing", "\u2581caf\u00e9".encode()]
put("moonshine-tokenizer", "small.bin", b"".join(bytes([len(p)]) + p for p in pieces))
moonshine = os.path.join(models, "moonshine-base-en", "tokenizer.bin")
if os.path.exists(moonshine):
    put("moonshine-tokenizer", "real.bin", read(moonshine)[:8192])

# PyTorch checkpoints: a small state dictionary pickled as torch.save writes it (protocol 2, tensors through
# torch._utils._rebuild_tensor_v2 with persistent storage ids), built without PyTorch; and the beginning of the real
# segmentation checkpoint's pickle when it is installed.
def torch_checkpoint(tensors, lightning=False):
    import collections, io, pickle, types, zipfile

    def _rebuild_tensor_v2(*arguments):
        return arguments
    _rebuild_tensor_v2.__module__ = "torch._utils"
    _rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"
    FloatStorage = type("FloatStorage", (), {"__module__": "torch"})
    saved = {name: sys.modules.get(name) for name in ("torch", "torch._utils")}
    sys.modules["torch"] = types.ModuleType("torch")
    sys.modules["torch"].FloatStorage = FloatStorage
    sys.modules["torch._utils"] = types.ModuleType("torch._utils")
    sys.modules["torch._utils"]._rebuild_tensor_v2 = _rebuild_tensor_v2

    class Storage:
        def __init__(self, key, count):
            self.key, self.count = key, count

    class Tensor:
        def __init__(self, key, shape):
            self.storage = Storage(key, 1)
            for size in shape:
                self.storage.count *= size
            self.shape = shape

        def __reduce__(self):
            strides, step = [], 1
            for size in reversed(self.shape):
                strides.insert(0, step)
                step *= size
            return (_rebuild_tensor_v2, (self.storage, 0, tuple(self.shape), tuple(strides), False, collections.OrderedDict()))

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", FloatStorage, obj.key, "cpu", obj.count) if isinstance(obj, Storage) else None

    try:
        state = collections.OrderedDict()
        blobs = {}
        for index, (name, shape) in enumerate(tensors):
            tensor = Tensor(str(index), shape)
            state[name] = tensor
            blobs[str(index)] = struct.pack(f"<{tensor.storage.count}f", *[0.25 * i for i in range(tensor.storage.count)])
        root = state
        if lightning:
            # As PyTorch Lightning saves a checkpoint: the state dictionary beside metadata objects (NEWOBJ, BUILD).
            Specifications = type("Specifications", (), {"__module__": "pyannote_task"})
            specifications = Specifications()
            specifications.duration, specifications.classes = 10.0, ["a", "b", "c"]
            root = {"epoch": 3, "state_dict": state, "pyannote.audio": {"specifications": specifications},
                    "hyper_parameters": {"sample_rate": 16000, "scale": 0.5}}
            sys.modules[Specifications.__module__] = types.ModuleType(Specifications.__module__)
            sys.modules[Specifications.__module__].Specifications = Specifications
        stream = io.BytesIO()
        Pickler(stream, protocol=2).dump(root)
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
            z.writestr("archive/data.pkl", stream.getvalue())
            for key, blob in blobs.items():
                z.writestr(f"archive/data/{key}", blob)
            z.writestr("archive/version", "3\n")
        return archive.getvalue()
    finally:
        sys.modules.pop("pyannote_task", None)
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module

put("torch-checkpoint", "small.pt", torch_checkpoint([("head.conv1.weight", [4, 1, 3, 3]), ("head.bn1.running_var", [4]),
                                                      ("xvector.dense.linear.weight", [3, 2, 1])]))
put("torch-checkpoint", "lightning.pt", torch_checkpoint([("lstm.weight_ih_l0", [8, 2]), ("classifier.weight", [7, 2])],
                                                          lightning=True))
