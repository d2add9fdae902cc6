"""Hostile clients of an OpenSpeech server, on raw sockets (no client library would send these), each printing what
it saw as JSON for the Swift tests (and bench/server's hostile-load run) to check.

Usage: hostile_clients.py HOST PORT API_KEY MODE ARGS...

  reset-streams N FILE [DELAYS]  N streamed uploads (stream=true) of FILE, each reset (RST) DELAYS (seconds, in
                           turn; default 0,0.05,0.2) after its last byte
  no-boundary SIZE         a POST typed multipart/form-data without a boundary and SIZE bytes of body
  wrong-type SIZE          the same typed application/octet-stream
  long-field SIZE FILE [NAME]  FILE with a field NAME (default `prompt`) of SIZE letters and no space
  slow-headers N SECONDS   N connections sending one header line a second for up to SECONDS: when each was closed
  framing                  Content-Length with Transfer-Encoding, two Content-Lengths, a 100 KB header, 1,000 headers
  idle SECONDS             a connection that sends nothing: when the server closed it
  realtime-flood N [PID]   a Realtime session sent N small messages, reading nothing: how it ended (and the
                           resident memory of process PID before and after, read from /proc)
  realtime-oversize BYTES  one Realtime message of BYTES: the close code
  origin ORIGIN HOST       a WebSocket upgrade with these Origin and Host headers: the status line
"""
import base64
import json
import os
import socket
import struct
import sys
import time
import uuid


def connect(host, port, timeout=30):
    s = socket.create_connection((host, port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def multipart(fields, file_path=None):
    boundary = "hostile" + uuid.uuid4().hex
    parts = []
    for name, value in fields:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode() + value + b"\r\n")
    if file_path:
        with open(file_path, "rb") as f:
            audio = f.read()
        name = os.path.basename(file_path)
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                     f"Content-Type: application/octet-stream\r\n\r\n".encode() + audio + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return boundary, b"".join(parts)


def request(path, headers, body=b"", key=None, method="POST"):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if key:
        lines.append(f"Authorization: Bearer {key}")
    lines += headers
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def read_response(s, deadline):
    """The status code and body of one response (None: the connection closed or timed out first)."""
    data = b""
    while time.time() < deadline:
        s.settimeout(max(0.01, deadline - time.time()))
        try:
            chunk = s.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
        head, sep, rest = data.partition(b"\r\n\r\n")
        if sep:
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), None)
            if length is not None and len(rest) >= length:
                break
    if not data.startswith(b"HTTP/1.1 "):
        return None, data.decode(errors="replace")
    head, _, rest = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), rest.decode(errors="replace")


def closed_within(s, seconds):
    """Whether the server closes the connection (EOF or reset) within `seconds`, and when."""
    start = time.time()
    s.settimeout(seconds)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return True, time.time() - start
    except socket.timeout:
        return False, time.time() - start
    except (ConnectionResetError, BrokenPipeError):
        return True, time.time() - start


def reset(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def reset_streams(host, port, key, count, path, delays="0,0.05,0.2"):
    """Each upload is reset after one of `delays` seconds in turn: before, while and after the server reads it."""
    boundary, body = multipart([("stream", b"true"), ("response_format", b"text")], path)
    waits = [float(d) for d in delays.split(",")]
    for index in range(int(count)):
        s = connect(host, port)
        s.sendall(request("/v1/audio/transcriptions", [f"Content-Type: multipart/form-data; boundary={boundary}",
                                                        f"Content-Length: {len(body)}"], body, key))
        time.sleep(waits[index % len(waits)])
        reset(s)
    return {"sent": int(count)}


def typed_body(host, port, key, size, content_type):
    s = connect(host, port)
    start = time.time()
    body = b"x" * int(size)
    s.sendall(request("/v1/audio/transcriptions", [f"Content-Type: {content_type}", f"Content-Length: {len(body)}"],
                      key=key))
    # The body goes in pieces, as a client would send it, while the answer may already be on its way.
    sent = 0
    try:
        while sent < len(body):
            sent += s.send(body[sent:sent + 65536])
    except (BrokenPipeError, ConnectionResetError):
        pass
    status, text = read_response(s, time.time() + 20)
    result = {"status": status, "seconds": time.time() - start, "body": text[:500]}
    result["closed"], _ = closed_within(s, 10)
    s.close()
    return result


def long_field(host, port, key, size, path, field="prompt"):
    letters = b"a" * int(size)
    boundary, body = multipart([(field, letters), ("response_format", b"json")], path)
    s = connect(host, port, timeout=120)
    start = time.time()
    s.sendall(request("/v1/audio/transcriptions", [f"Content-Type: multipart/form-data; boundary={boundary}",
                                                    f"Content-Length: {len(body)}"], body, key))
    status, text = read_response(s, time.time() + 120)
    s.close()
    return {"status": status, "seconds": time.time() - start, "body": text[:500]}


def slow_headers(host, port, count, seconds):
    sockets = [connect(host, port) for _ in range(int(count))]
    for s in sockets:
        s.sendall(b"GET /health HTTP/1.1\r\n")
        s.setblocking(False)
    start = time.time()
    closed_at = [None] * len(sockets)
    line = 0
    while time.time() - start < float(seconds) and None in closed_at:
        for index, s in enumerate(sockets):
            if closed_at[index] is not None:
                continue
            try:
                s.send(f"X-Slow-{line}: {line}\r\n".encode())
                if s.recv(65536) == b"":
                    closed_at[index] = time.time() - start
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                closed_at[index] = time.time() - start
        line += 1
        time.sleep(1)
    for s in sockets:
        s.close()
    return {"closed_after": closed_at}


def framing(host, port, key):
    cases = {
        "cl_and_te": ["Content-Type: application/json", "Content-Length: 5", "Transfer-Encoding: chunked"],
        "two_cl": ["Content-Type: application/json", "Content-Length: 5", "Content-Length: 6"],
        "big_header": ["X-Big: " + "b" * 100_000],
        "many_headers": [f"X-Many-{i}: {i}" for i in range(1000)],
    }
    out = {}
    for name, headers in cases.items():
        s = connect(host, port)
        start = time.time()
        s.sendall(request("/v1/models", headers, b"0\r\n\r\n" if name == "cl_and_te" else b"", key, method="GET"))
        status, _ = read_response(s, time.time() + 10)
        closed, _ = closed_within(s, 10)
        out[name] = {"status": status, "closed": closed, "seconds": time.time() - start}
        s.close()
    return out


def idle(host, port, seconds):
    s = connect(host, port)
    closed, after = closed_within(s, float(seconds))
    s.close()
    return {"closed": closed, "after": after}


def websocket_handshake(host, port, key, extra=(), path="/v1/realtime?intent=transcription"):
    s = connect(host, port)
    nonce = base64.b64encode(os.urandom(16)).decode()
    headers = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1:%d" % port, "Upgrade: websocket", "Connection: Upgrade",
               f"Sec-WebSocket-Key: {nonce}", "Sec-WebSocket-Version: 13"]
    if key:
        headers.append(f"Authorization: Bearer {key}")
    headers += list(extra)
    s.sendall(("\r\n".join(headers) + "\r\n\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return s, data.split(b"\r\n", 1)[0].decode(errors="replace")


def frame(payload, opcode=1):
    """One masked client frame (the mask applied as one big integer XOR: fast for megabytes)."""
    mask = os.urandom(4)
    header = bytes([0x80 | opcode])
    length = len(payload)
    if length < 126:
        header += bytes([0x80 | length])
    elif length < 65536:
        header += bytes([0x80 | 126]) + struct.pack(">H", length)
    else:
        header += bytes([0x80 | 127]) + struct.pack(">Q", length)
    key = (mask * (len(payload) // 4 + 1))[:len(payload)]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(len(payload), "big")
    return header + mask + masked


def read_frames(s, seconds):
    """Frames the server sent until it closed or `seconds` passed: (opcode, payload) pairs."""
    chunks = []
    deadline = time.time() + seconds
    s.settimeout(1)
    while time.time() < deadline:
        try:
            chunk = s.recv(1 << 20)
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            break
        if not chunk:
            break
        chunks.append(chunk)
    data = b"".join(chunks)
    frames, at = [], 0
    while len(data) - at >= 2:
        opcode, length, offset = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
        if length == 126:
            length, offset = struct.unpack(">H", data[at + 2:at + 4])[0], at + 4
        elif length == 127:
            length, offset = struct.unpack(">Q", data[at + 2:at + 10])[0], at + 10
        if len(data) < offset + length:
            break
        frames.append((opcode, data[offset:offset + length]))
        at = offset + length
    return frames


def resident_kilobytes(pid):
    if not pid:
        return None
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def realtime_flood(host, port, key, count, pid=None):
    before = resident_kilobytes(pid)
    s, status = websocket_handshake(host, port, key)
    # Every message makes the server answer (an error event for a malformed one), and this client reads nothing.
    message = frame(b'{"type":"no.such.event"}')
    sent, start = 0, time.time()
    s.settimeout(5)
    try:
        for _ in range(int(count)):
            s.sendall(message)
            sent += 1
    except (socket.timeout, BrokenPipeError, ConnectionResetError):
        pass
    elapsed = time.time() - start
    time.sleep(1)
    after = resident_kilobytes(pid)
    frames = read_frames(s, 10)
    s.close()
    close = next((payload for opcode, payload in frames if opcode == 8), None)
    errors = [json.loads(p).get("error", {}).get("code") for o, p in frames if o == 1]
    return {"status": status, "sent": sent, "seconds": elapsed, "rss_before_kb": before, "rss_after_kb": after,
            "close_code": struct.unpack(">H", close[:2])[0] if close and len(close) >= 2 else None,
            "last_error": errors[-1] if errors else None}


def realtime_oversize(host, port, key, size):
    s, status = websocket_handshake(host, port, key)
    try:
        s.sendall(frame(b'{"type":"input_audio_buffer.append","audio":"' + b"A" * int(size) + b'"}'))
    except (BrokenPipeError, ConnectionResetError):
        pass
    frames = read_frames(s, 20)
    s.close()
    close = next((payload for opcode, payload in frames if opcode == 8), None)
    return {"status": status, "close_code": struct.unpack(">H", close[:2])[0] if close and len(close) >= 2 else None}


def origin(host, port, key, origin_value, host_value):
    s = connect(host, port)
    nonce = base64.b64encode(os.urandom(16)).decode()
    headers = ["GET /v1/realtime?intent=transcription HTTP/1.1", f"Host: {host_value}", "Upgrade: websocket",
               "Connection: Upgrade", f"Sec-WebSocket-Key: {nonce}", "Sec-WebSocket-Version: 13"]
    if origin_value != "-":
        headers.append(f"Origin: {origin_value}")
    if key:
        headers.append(f"Authorization: Bearer {key}")
    s.sendall(("\r\n".join(headers) + "\r\n\r\n").encode())
    status, body = read_response(s, time.time() + 10)
    s.close()
    return {"status": status, "body": body[:300]}


def main():
    host, port, key, mode, args = sys.argv[1], int(sys.argv[2]), sys.argv[3] or None, sys.argv[4], sys.argv[5:]
    modes = {
        "reset-streams": lambda: reset_streams(host, port, key, *args),
        "no-boundary": lambda: typed_body(host, port, key, args[0], "multipart/form-data"),
        "wrong-type": lambda: typed_body(host, port, key, args[0], "application/octet-stream"),
        "long-field": lambda: long_field(host, port, key, *args),
        "slow-headers": lambda: slow_headers(host, port, *args),
        "framing": lambda: framing(host, port, key),
        "idle": lambda: idle(host, port, *args),
        "realtime-flood": lambda: realtime_flood(host, port, key, *args),
        "realtime-oversize": lambda: realtime_oversize(host, port, key, *args),
        "origin": lambda: origin(host, port, key, *args),
    }
    print(json.dumps(modes[mode]()))


if __name__ == "__main__":
    main()
