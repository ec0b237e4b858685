#!/usr/bin/env python3
"""Regenerate the fixtures of tests/test_gunzip.c, test_mtx.c and test_npy.c.

The tests read the committed outputs and never run this script.  It needs
only the standard library (zlib for the deflate streams) and `gzip` for the
-1/-9 files.  Hand-built deflate streams are checked against zlib here
when they are meant to be valid.
"""
import os
import struct
import subprocess
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def put(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


# ---- gzip --------------------------------------------------------------

def sample():
    """About 24 KB: Matrix-Market-like text (long matches) with bursts of
    every byte value, so that rare literals get long Huffman codes."""
    x = 12345
    out = bytearray()
    for i in range(1500):
        x = (x * 1103515245 + 12345) & 0x7fffffff
        out += b"%d %d %.6f\n" % (x % 5000 + 1, (x >> 8) % 5000 + 1,
                                  (x % 100000) / 7.0)
        if i % 300 == 0:
            out += bytes(range(256))
    return bytes(out)


def gzip_cmd(data, level):
    return subprocess.run(["gzip", "-n", "-c", level], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def zlib_gzip(data, **kw):
    c = zlib.compressobj(wbits=31, **kw)
    return c.compress(data) + c.flush()


def raw_deflate(data, **kw):
    c = zlib.compressobj(wbits=-15, **kw)
    return c.compress(data) + c.flush()


def member(deflate, data, flags=0, extra=b"", fname=b"", comment=b"",
           hcrc=False, crc=None, isize=None):
    """A gzip member around a raw deflate stream."""
    if hcrc:
        flags |= 2
    if extra:
        flags |= 4
    if fname:
        flags |= 8
    if comment:
        flags |= 16
    h = bytes([0x1f, 0x8b, 8, flags]) + struct.pack("<I", 0) + bytes([0, 3])
    if extra:
        h += struct.pack("<H", len(extra)) + extra
    if fname:
        h += fname + b"\0"
    if comment:
        h += comment + b"\0"
    if hcrc:
        h += struct.pack("<H", zlib.crc32(h) & 0xffff)
    if crc is None:
        crc = zlib.crc32(data)
    if isize is None:
        isize = len(data) & 0xffffffff
    return h + deflate + struct.pack("<II", crc, isize)


class Bits:
    """A deflate bit writer: fields least significant bit first, Huffman
    codes most significant bit first."""

    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value, nbits):
        self.acc |= value << self.n
        self.n += nbits
        while self.n >= 8:
            self.out.append(self.acc & 0xff)
            self.acc >>= 8
            self.n -= 8

    def code(self, code, length):
        rev = 0
        for _ in range(length):
            rev = (rev << 1) | (code & 1)
            code >>= 1
        self.put(rev, length)

    def bytes(self):
        return bytes(self.out) + (bytes([self.acc]) if self.n else b"")


def canonical(lengths):
    """Canonical Huffman codes (RFC 1951 3.2.2): symbol -> (code, len)."""
    maxlen = max(lengths) if lengths else 0
    count = [0] * (maxlen + 2)
    for l in lengths:
        if l:
            count[l] += 1
    code, nxt = 0, [0] * (maxlen + 2)
    for bits in range(1, maxlen + 1):
        code = (code + count[bits - 1]) << 1 if bits > 1 else 0
        nxt[bits] = code
    codes = {}
    for s, l in enumerate(lengths):
        if l:
            codes[s] = (nxt[l], l)
            nxt[l] += 1
    return codes


CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
# a complete code-length code that can also send the repeat symbols
CL_LENS = [4] * 8 + [5] * 8 + [4, 4, 3]


def dynamic_header(b, lit, dist, cl_lens=CL_LENS, symbols=None, last=1):
    """Write a dynamic block header (BFINAL, BTYPE=2, the code lengths).
    "symbols" overrides the code-length symbols sent: (sym, extra, nbits)."""
    b.put(last, 1)
    b.put(2, 2)
    b.put(len(lit) - 257, 5)
    b.put(len(dist) - 1, 5)
    b.put(19 - 4, 4)
    for s in CL_ORDER:
        b.put(cl_lens[s], 3)
    cl = canonical(cl_lens)
    if symbols is None:
        symbols = [(l, 0, 0) for l in lit + dist]
    for sym, extra, nbits in symbols:
        b.code(*cl[sym])
        if nbits:
            b.put(extra, nbits)


def fixed_lit(b, sym):
    """Write literal/length symbol "sym" with the fixed code."""
    if sym < 144:
        b.code(0x30 + sym, 8)
    elif sym < 256:
        b.code(0x190 + sym - 144, 9)
    elif sym < 280:
        b.code(sym - 256, 7)
    else:
        b.code(0xc0 + sym - 280, 8)


def long_codes():
    """A valid dynamic block whose literal/length code has lengths 1..15
    (so codes longer than the decoder's table), a single one-bit distance
    code, then a block with only an end-of-block code."""
    msg = b"abcdefghijklmno"
    lit = [0] * 257
    # 'a' .. 'n' get lengths 2..15, 'o' 15 too: complete with EOB at 1
    for i, ch in enumerate(msg):
        lit[ch] = min(i + 2, 15)
    lit[256] = 1
    dist = [1]
    codes = canonical(lit)
    b = Bits()
    dynamic_header(b, lit, dist, last=0)
    for ch in msg + msg[::-1]:
        b.code(*codes[ch])
    b.code(*codes[256])
    # second block: only the end-of-block symbol (a single 1-bit code)
    lit2 = [0] * 257
    lit2[256] = 1
    dynamic_header(b, lit2, [0], last=1)
    b.code(0, 1)
    data = msg + msg[::-1]
    raw = b.bytes()
    assert zlib.decompress(raw, wbits=-15) == data
    return member(raw, data), data


def bad_streams():
    """Raw deflate streams, each wrong in one way; name -> bytes."""
    s = {}
    b = Bits()
    b.put(1, 1); b.put(3, 2); b.put(0, 16)
    s["bad-blocktype"] = b.bytes()

    b = Bits()
    b.put(1, 1); b.put(0, 2); b.put(0, 5)
    b.put(5, 16); b.put(5, 16)  # NLEN should be ~LEN
    s["bad-stored-len"] = b.bytes() + b"hello"

    b = Bits()  # HLIT = 30 means 287 literal/length codes
    b.put(1, 1); b.put(2, 2); b.put(30, 5); b.put(0, 5); b.put(0, 4)
    b.put(0, 16)
    s["bad-too-many-lens"] = b.bytes()

    lit = [8] * 256 + [8]  # placeholder, never reached
    b = Bits()
    dynamic_header(b, lit, [1], cl_lens=[1] * 19, symbols=[])
    s["bad-cl-oversubscribed"] = b.bytes() + bytes(8)

    b = Bits()
    dynamic_header(b, lit, [1], cl_lens=[2] + [0] * 18, symbols=[])
    s["bad-cl-incomplete"] = b.bytes() + bytes(8)

    b = Bits()
    dynamic_header(b, lit, [1], symbols=[(16, 0, 2)])
    s["bad-repeat-first"] = b.bytes() + bytes(8)

    b = Bits()  # 257 + 1 lengths, but 18 repeats 138 zeros twice
    dynamic_header(b, [0] * 257, [0], symbols=[(18, 127, 7), (18, 127, 7)])
    s["bad-repeat-overflow"] = b.bytes() + bytes(8)

    lit = [8] * 256 + [0]  # no end-of-block code
    b = Bits()
    dynamic_header(b, lit, [1])
    s["bad-no-eob"] = b.bytes() + bytes(8)

    lit = [0] * 257  # 'a', 'b', EOB all of length 1
    lit[97] = lit[98] = lit[256] = 1
    b = Bits()
    dynamic_header(b, lit, [1])
    s["bad-lit-oversubscribed"] = b.bytes() + bytes(8)

    lit = [0] * 257  # lengths 1 and 2: a quarter of the codes unused
    lit[97] = 1
    lit[256] = 2
    b = Bits()
    dynamic_header(b, lit, [1])
    s["bad-lit-incomplete"] = b.bytes() + bytes(8)

    lit = [0] * 258
    lit[97] = lit[256] = lit[257] = 2
    lit[98] = 2
    b = Bits()  # distance code over-subscribed: three codes of length 1
    dynamic_header(b, lit, [1, 1, 1])
    s["bad-dist-oversubscribed"] = b.bytes() + bytes(8)

    lit = [0] * 258  # a single one-bit distance code, but bit 1 is sent
    lit[97] = 1
    lit[256] = lit[257] = 2
    b = Bits()
    dynamic_header(b, lit, [1])
    codes = canonical(lit)
    b.code(*codes[97])
    b.code(*codes[257])
    b.put(1, 1)
    s["bad-dist-unassigned"] = b.bytes() + bytes(8)

    b = Bits()  # 'a', then length 3 at distance 2: only 1 byte back
    b.put(1, 1); b.put(1, 2)
    fixed_lit(b, 97)
    fixed_lit(b, 257)
    b.code(1, 5)  # distance symbol 1: distance 2
    fixed_lit(b, 256)
    s["bad-too-far"] = b.bytes() + bytes(8)

    b = Bits()
    b.put(1, 1); b.put(1, 2)
    fixed_lit(b, 97)
    fixed_lit(b, 257)
    b.code(30, 5)  # distance symbol 30 does not exist
    s["bad-dist-symbol"] = b.bytes() + bytes(8)

    b = Bits()
    b.put(1, 1); b.put(1, 2)
    fixed_lit(b, 286)  # literal/length symbol 286 does not exist
    s["bad-lit-symbol"] = b.bytes() + bytes(8)

    for name, raw in s.items():
        try:
            zlib.decompress(raw, wbits=-15)
        except zlib.error:
            continue
        raise AssertionError(name + " is accepted by zlib")
    return s


def make_gzip():
    data = sample()
    put("sample.bin", data)
    put("sample-1.gz", gzip_cmd(data, "-1"))
    put("sample-9.gz", gzip_cmd(data, "-9"))
    half = len(data) // 2
    put("multi.gz", gzip_cmd(data[:half], "-6") + zlib_gzip(data[half:1000 + half])
        + gzip_cmd(data[1000 + half:], "-9"))
    put("stored.gz", zlib_gzip(data, level=0))
    put("fixed.gz", zlib_gzip(data, strategy=zlib.Z_FIXED))
    put("empty.gz", gzip_cmd(b"", "-9"))
    small = b"stir: a sparse tensor compiler\n" * 3
    put("small.txt", small)
    put("small.gz", gzip_cmd(small, "-9"))
    put("flags.gz", member(raw_deflate(small), small, extra=b"ab\x02\x00xy",
                           fname=b"small.txt", comment=b"a comment",
                           hcrc=True))
    lc, lc_data = long_codes()
    put("long-codes.gz", lc)

    good = gzip_cmd(small, "-9")
    put("bad-magic.gz", b"\x1f\x8c" + good[2:])
    put("bad-method.gz", good[:2] + b"\x07" + good[3:])
    put("bad-flags.gz", good[:3] + b"\x20" + good[4:])
    put("bad-crc.gz", good[:-8] + bytes([good[-8] ^ 1]) + good[-7:])
    put("bad-isize.gz", good[:-4] + struct.pack("<I", len(small) + 1))
    f = bytearray(member(raw_deflate(small), small, fname=b"x", hcrc=True))
    f[12] ^= 0xff  # the header CRC is at offset 12 (after "x\0")
    put("bad-hcrc.gz", bytes(f))
    put("trailing-garbage.gz", good + b"\0\0\0\0")
    for name, raw in bad_streams().items():
        put(name + ".gz", member(raw, b""))


# ---- Matrix Market ---------------------------------------------------

MTX = {
    "general.mtx": """%%MatrixMarket matrix coordinate real general
% a 3 x 4 real matrix, entries out of order, one duplicate
3 4 6
3 1 -1.5
1 4 2
1 2 1e-3

2 3 4.25
1 2 0.5
3 4 7
""",
    "symmetric.mtx": """%%MatrixMarket matrix coordinate integer symmetric
4 4 5
1 1 10
2 1 -3
4 2 7
3 3 1
4 3 2
""",
    "pattern.mtx": """%%MATRIXMARKET Matrix Coordinate Pattern General
%
3 3 4
2 2
1 3
3 1
1 1
""",
    "integer.mtx": """%%MatrixMarket matrix coordinate integer general
2 3 3
2 3 -7
1 1 12
2 3 9
""",
    "real-symmetric.mtx": """%%MatrixMarket matrix coordinate real symmetric
3 3 4
1 1 1.0
3 1 -2.5
2 2 3.0
3 3 0.25
""",
}


def make_mtx():
    for name, text in MTX.items():
        put(name, text.encode())
    put("pattern.mtx.gz", gzip_cmd(MTX["pattern.mtx"].encode(), "-9"))


# ---- NumPy -----------------------------------------------------------

def npy(header, data, version=(1, 0), pad=True):
    """A .npy file with the header dict text "header" (padded as NumPy
    does when pad is set)."""
    h = header.encode("latin1")
    pre = 10 if version[0] == 1 else 12
    if pad:
        total = pre + len(h) + 1
        h += b" " * ((64 - total % 64) % 64) + b"\n"
    lenfield = struct.pack("<H" if version[0] == 1 else "<I", len(h))
    return b"\x93NUMPY" + bytes(version) + lenfield + h + data


def make_npy():
    f8 = struct.pack("<3d", 1.5, -2.0, 1e300)
    put("f8-v1.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f8))
    i4 = struct.pack("<6i", 1, -2, 3, 2**31 - 1, -2**31, 0)
    put("i4-v2.npy", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
                         i4, version=(2, 0)))
    i8 = struct.pack("<2q", 2**62, -5)
    put("i8-v3.npy", npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                         i8, version=(3, 0)))
    # key orders and spacing NumPy never writes
    f4 = struct.pack("<4f", 0.5, 1.0, -3.25, 100.0)
    put("f4-order.npy", npy("{'shape':(2,2),'descr':'<f4','fortran_order':False}", f4))
    put("f2-order.npy", npy('{ "fortran_order" : False ,\n "shape" : ( 2 , ) ,'
                            ' "descr" : "<f2" }', struct.pack("<2H", 0x3c00, 0xc000),
                            pad=False))
    put("i1-scalar.npy", npy("{'descr': '|i1', 'fortran_order': False, 'shape': (), }",
                             bytes([0xfe])))
    put("empty.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 0, 3), }",
                         b""))
    put("f8-v1.npy.gz", gzip_cmd(npy("{'descr': '<f8', 'fortran_order': False, "
                                     "'shape': (3,), }", f8), "-9"))


make_gzip()
make_mtx()
make_npy()
