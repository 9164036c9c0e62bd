"""spyread.py -- the messages a spy bot recorded (tests/bots/spy.c: each a
4-byte little-endian length and the msgpack bytes), read with a minimal
msgpack reader of the standard library alone."""
import struct

def unpack(buf):
    obj, pos = _unpack(buf, 0)
    if pos != len(buf):
        raise ValueError("trailing bytes")
    return obj


def _unpack(b, i):
    t = b[i]
    i += 1
    if t <= 0x7f:
        return t, i
    if 0x80 <= t <= 0x8f:
        return _map(b, i, t & 0x0f)
    if 0x90 <= t <= 0x9f:
        return _arr(b, i, t & 0x0f)
    if 0xa0 <= t <= 0xbf:
        n = t & 0x1f
        return b[i:i + n].decode("utf-8"), i + n
    if t >= 0xe0:
        return t - 0x100, i
    if t == 0xc0:
        return None, i
    if t == 0xc2:
        return False, i
    if t == 0xc3:
        return True, i
    fmt = {0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q",
           0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q",
           0xca: ">f", 0xcb: ">d"}
    if t in fmt:
        n = struct.calcsize(fmt[t])
        return struct.unpack(fmt[t], b[i:i + n])[0], i + n
    if t in (0xd9, 0xda, 0xdb, 0xc4, 0xc5, 0xc6):
        w = {0xd9: 1, 0xda: 2, 0xdb: 4, 0xc4: 1, 0xc5: 2, 0xc6: 4}[t]
        n = int.from_bytes(b[i:i + w], "big")
        i += w
        raw = b[i:i + n]
        return (raw.decode("utf-8") if t >= 0xd9 else bytes(raw)), i + n
    if t in (0xdc, 0xdd):
        w = 2 if t == 0xdc else 4
        return _arr(b, i + w, int.from_bytes(b[i:i + w], "big"))
    if t in (0xde, 0xdf):
        w = 2 if t == 0xde else 4
        return _map(b, i + w, int.from_bytes(b[i:i + w], "big"))
    raise ValueError("msgpack type 0x%02x not expected" % t)


def _arr(b, i, n):
    out = []
    for _ in range(n):
        v, i = _unpack(b, i)
        out.append(v)
    return out, i


def _map(b, i, n):
    out = {}
    for _ in range(n):
        k, i = _unpack(b, i)
        v, i = _unpack(b, i)
        out[k] = v
    return out, i


def spy_messages(path):
    """The messages of one spy's file, decoded, in the order received."""
    with open(path, "rb") as f:
        data = f.read()
    pos, out = 0, []
    while pos + 4 <= len(data):
        n = struct.unpack("<I", data[pos:pos + 4])[0]
        out.append(unpack(data[pos + 4:pos + 4 + n]))
        pos += 4 + n
    return out
