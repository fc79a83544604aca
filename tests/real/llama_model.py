#!/usr/bin/env python3
"""Writes a llama-architecture GGUF model with random weights and a small SentencePiece-style
vocabulary, for running llama.cpp without downloading a model. Python 3 standard library only.

    llama_model.py [--preset tiny|600m] [--layers N] [--embd N] [--ff N] [--heads N]
                   [--kv-heads N] [--vocab N] [--ctx N] [--type f32|f16|q8_0] [--seed S] OUT.gguf

Presets (options given after --preset override it):
  tiny   4 layers, embedding 256, feed-forward 768, 8 heads (8 KV), vocabulary 2,000, q8_0:
         about 4.9 million parameters, 5 MB; a few seconds per run on lavapipe.
  600m   12 layers, embedding 2048, feed-forward 5632, 32 heads (4 KV), vocabulary 32,000,
         q8_0: about 660 million parameters, 700 MB (TinyLlama's shapes with half its layers).

The weights are uniform random values (standard deviation 0.02), quantized to q8_0 or stored
as f16/f32; the norms' weights are 1. The output projection's rows of the control and byte
tokens are zero, so greedy decoding never picks them: the generated text is words from the
vocabulary and runs to the requested length. The same arguments always give the same file.

The vocabulary ("tokenizer.ggml.model" = "llama", as llama.cpp's SPM tokenizer reads it):
<unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF>, "▁" and the printable ASCII characters,
then made-up words ("▁" + syllables) up to the vocabulary size.

Random bytes cost time in Python (a second per 20 MB here), so every tensor is a window of
one pool of random q8_0 blocks (or f16/f32 values) of a prime length: rows never repeat within
a tensor, tensors share values at other offsets, which does not matter to a benchmark.
"""

import argparse
import os
import random
import struct
import sys
import zlib

GGUF_VERSION = 3
ALIGNMENT = 32
# gguf_type
T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY = 4, 5, 6, 7, 8, 9
# ggml_type
GGML_TYPES = {"f32": 0, "f16": 1, "q8_0": 8}
QK8_0 = 32
# llama.cpp token types
TOK_NORMAL, TOK_UNKNOWN, TOK_CONTROL, TOK_BYTE = 1, 2, 3, 6
N_FIXED = 3 + 256  # <unk> <s> </s> and the byte tokens: never generated
UNIFORM_INT8_STD = 73.9  # standard deviation of a uniform byte minus 128
POOL_PRIME = 1048573     # elements (f16/f32) or blocks (q8_0) in the random pool: the largest prime < 2^20

PRESETS = {
    "tiny": dict(layers=4, embd=256, ff=768, heads=8, kv_heads=8, vocab=2000, ctx=512, type="q8_0"),
    "600m": dict(layers=12, embd=2048, ff=5632, heads=32, kv_heads=4, vocab=32000, ctx=2048, type="q8_0"),
}


def gguf_str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


class KV:
    """The key-value section of a GGUF file."""

    def __init__(self):
        self.parts = []
        self.count = 0

    def add(self, key, vtype, payload):
        self.parts.append(gguf_str(key) + struct.pack("<I", vtype) + payload)
        self.count += 1

    def u32(self, key, v):
        self.add(key, T_UINT32, struct.pack("<I", v))

    def f32(self, key, v):
        self.add(key, T_FLOAT32, struct.pack("<f", v))

    def string(self, key, v):
        self.add(key, T_STRING, gguf_str(v))

    def boolean(self, key, v):
        self.add(key, T_BOOL, struct.pack("<B", 1 if v else 0))

    def array(self, key, etype, values):
        if etype == T_STRING:
            body = b"".join(gguf_str(v) for v in values)
        else:
            body = struct.pack("<%d%s" % (len(values), {T_FLOAT32: "f", T_INT32: "i"}[etype]), *values)
        self.add(key, T_ARRAY, struct.pack("<IQ", etype, len(values)) + body)


def vocabulary(n, seed):
    """(tokens, scores, types) of @n entries."""
    if n < N_FIXED + 96 + 16:
        raise ValueError(f"vocabulary of {n} is too small (at least {N_FIXED + 96 + 16})")
    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    types = [TOK_UNKNOWN, TOK_CONTROL, TOK_CONTROL] + [TOK_BYTE] * 256
    tokens.append("\u2581")
    tokens += [chr(c) for c in range(33, 127)]
    types += [TOK_NORMAL] * 95
    rng = random.Random(seed * 7919 + 1)
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    seen = set(tokens)
    while len(tokens) < n:
        word = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(1, 3)))
        if rng.random() < 0.2:
            word += rng.choice(consonants)
        piece = "\u2581" + word
        if piece not in seen:
            seen.add(piece)
            tokens.append(piece)
            types.append(TOK_NORMAL)
    scores = [0.0] * N_FIXED + [-float(i) for i in range(n - N_FIXED)]
    return tokens, scores, types


def f16(x):
    return struct.pack("<e", x)


class Pool:
    """POOL_PRIME random elements (f32, f16) or q8_0 blocks, already encoded; a tensor of @n
    elements is the pool's bytes from an offset that depends on its name, wrapping around."""

    def __init__(self, qtype, seed, std):
        self.qtype = qtype
        rng = random.Random(seed)
        if qtype == "q8_0":
            self.unit, self.per_unit = 2 + QK8_0, QK8_0
            raw = rng.randbytes(QK8_0 * POOL_PRIME)
            buf = bytearray(self.unit * POOL_PRIME)
            d = f16(std / UNIFORM_INT8_STD)
            buf[0::self.unit] = d[0:1] * POOL_PRIME
            buf[1::self.unit] = d[1:2] * POOL_PRIME
            for j in range(QK8_0):
                buf[2 + j::self.unit] = raw[j::QK8_0]
        else:
            # value = (byte - 128) * scale, encoded through one translation table per output byte
            fmt, self.unit = ("<f", 4) if qtype == "f32" else ("<e", 2)
            self.per_unit = 1
            scale = std / UNIFORM_INT8_STD
            enc = [struct.pack(fmt, (b - 128) * scale) for b in range(256)]
            raw = rng.randbytes(POOL_PRIME)
            buf = bytearray(self.unit * POOL_PRIME)
            for k in range(self.unit):
                buf[k::self.unit] = raw.translate(bytes(e[k] for e in enc))
        self.data = bytes(buf)

    def nbytes(self, n):
        return n // self.per_unit * self.unit

    def write(self, f, name, n):
        units = n // self.per_unit
        pos = zlib.crc32(name.encode()) % POOL_PRIME
        while units:
            take = min(units, POOL_PRIME - pos)
            f.write(self.data[pos * self.unit:(pos + take) * self.unit])
            units -= take
            pos = 0


def write_model(path, layers, embd, ff, heads, kv_heads, vocab, ctx, qtype, seed, std):
    if embd % heads or heads % kv_heads:
        raise ValueError("the embedding size must be a multiple of the heads, the heads of the KV heads")
    head_dim = embd // heads
    kv_dim = head_dim * kv_heads
    if qtype == "q8_0" and (embd % QK8_0 or ff % QK8_0):
        raise ValueError("q8_0 needs the embedding and feed-forward sizes to be multiples of 32")
    tokens, scores, types = vocabulary(vocab, seed)

    kv = KV()
    kv.string("general.architecture", "llama")
    kv.string("general.name", f"hesper-random-{layers}x{embd}-{qtype}")
    kv.u32("general.alignment", ALIGNMENT)
    kv.u32("general.file_type", {"f32": 0, "f16": 1, "q8_0": 7}[qtype])
    kv.u32("llama.context_length", ctx)
    kv.u32("llama.embedding_length", embd)
    kv.u32("llama.block_count", layers)
    kv.u32("llama.feed_forward_length", ff)
    kv.u32("llama.attention.head_count", heads)
    kv.u32("llama.attention.head_count_kv", kv_heads)
    kv.u32("llama.rope.dimension_count", head_dim)
    kv.f32("llama.rope.freq_base", 10000.0)
    kv.f32("llama.attention.layer_norm_rms_epsilon", 1e-5)
    kv.u32("llama.vocab_size", vocab)
    kv.string("tokenizer.ggml.model", "llama")
    kv.array("tokenizer.ggml.tokens", T_STRING, tokens)
    kv.array("tokenizer.ggml.scores", T_FLOAT32, scores)
    kv.array("tokenizer.ggml.token_type", T_INT32, types)
    kv.u32("tokenizer.ggml.unknown_token_id", 0)
    kv.u32("tokenizer.ggml.bos_token_id", 1)
    kv.u32("tokenizer.ggml.eos_token_id", 2)
    kv.boolean("tokenizer.ggml.add_bos_token", True)
    kv.boolean("tokenizer.ggml.add_eos_token", False)

    # (name, dims with ne0 first, ggml type name); norms stay f32.
    tensors = [("token_embd.weight", [embd, vocab], qtype)]
    for i in range(layers):
        b = f"blk.{i}."
        tensors += [(b + "attn_norm.weight", [embd], "f32"),
                    (b + "attn_q.weight", [embd, embd], qtype),
                    (b + "attn_k.weight", [embd, kv_dim], qtype),
                    (b + "attn_v.weight", [embd, kv_dim], qtype),
                    (b + "attn_output.weight", [embd, embd], qtype),
                    (b + "ffn_norm.weight", [embd], "f32"),
                    (b + "ffn_gate.weight", [embd, ff], qtype),
                    (b + "ffn_up.weight", [embd, ff], qtype),
                    (b + "ffn_down.weight", [ff, embd], qtype)]
    tensors += [("output_norm.weight", [embd], "f32"), ("output.weight", [embd, vocab], qtype)]

    pool = Pool(qtype, seed, std)
    row_bytes = pool.nbytes(embd)

    def nbytes(dims, t):
        return elements(dims) * 4 if t == "f32" and len(dims) == 1 else pool.nbytes(elements(dims))

    def pad(n):
        return (ALIGNMENT - n % ALIGNMENT) % ALIGNMENT

    infos, offset = [], 0
    for name, dims, t in tensors:
        infos.append(gguf_str(name) + struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims)
                     + struct.pack("<IQ", GGML_TYPES[t], offset))
        offset += nbytes(dims, t)
        offset += pad(offset)

    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        head = b"GGUF" + struct.pack("<IQQ", GGUF_VERSION, len(tensors), kv.count) + b"".join(kv.parts) + b"".join(infos)
        f.write(head + b"\0" * pad(len(head)))
        for name, dims, t in tensors:
            n = elements(dims)
            if len(dims) == 1:
                f.write(struct.pack("<f", 1.0) * n)
                written = 4 * n
            elif name == "output.weight":
                f.write(b"\0" * (N_FIXED * row_bytes))  # control and byte tokens: logit 0
                pool.write(f, name, n - N_FIXED * embd)
                written = pool.nbytes(n)
            else:
                pool.write(f, name, n)
                written = pool.nbytes(n)
            f.write(b"\0" * pad(written))
    os.replace(tmp, path)
    return sum(elements(d) for _, d, _ in tensors), os.path.getsize(path)


def elements(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def read_name(path):
    """general.name of the GGUF file at @path (None when it has none)."""
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            return None
        _, _, n_kv = struct.unpack("<IQQ", f.read(20))

        def string():
            n, = struct.unpack("<Q", f.read(8))
            return f.read(n).decode("utf-8", "replace")

        def skip(t):
            if t == T_STRING:
                string()
            elif t == T_ARRAY:
                et, n = struct.unpack("<IQ", f.read(12))
                if et in (T_STRING, T_ARRAY):
                    for _ in range(n):
                        skip(et)
                else:
                    f.seek(n * sizes[et], 1)
            else:
                f.seek(sizes[t], 1)

        for _ in range(n_kv):
            key = string()
            t, = struct.unpack("<I", f.read(4))
            if key == "general.name" and t == T_STRING:
                return string()
            skip(t)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="tiny")
    for opt in ("layers", "embd", "ff", "heads", "kv-heads", "vocab", "ctx"):
        ap.add_argument("--" + opt, type=int)
    ap.add_argument("--type", choices=sorted(GGML_TYPES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--std", type=float, help="the weights' standard deviation (default 1/sqrt(embedding))")
    ap.add_argument("out")
    args = ap.parse_args()
    p = dict(PRESETS[args.preset])
    for k in p:
        v = getattr(args, k.replace("-", "_"))
        if v is not None:
            p[k] = v
    try:
        params, size = write_model(args.out, p["layers"], p["embd"], p["ff"], p["heads"], p["kv_heads"],
                                   p["vocab"], p["ctx"], p["type"], args.seed,
                                   args.std or p["embd"] ** -0.5)
    except (ValueError, OSError) as e:
        print(f"llama_model.py: {e}", file=sys.stderr)
        return 1
    print(f"{args.out}: {p['layers']} layers, embedding {p['embd']}, feed-forward {p['ff']}, "
          f"{p['heads']} heads ({p['kv_heads']} KV), vocabulary {p['vocab']}, {p['type']}: "
          f"{params / 1e6:.1f} M parameters, {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
