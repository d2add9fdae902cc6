"""Runs Realtime transcription sessions against an OpenSpeech server through the official `openai` package's
realtime client (`client.beta.realtime.connect`, which needs the `websockets` package), unmodified, and prints what
came back as JSON for the Swift tests to check. Usage: realtime_calls.py BASE_URL API_KEY MODE ARGS...

  stream WAV CHUNK_MS VAD     a 24 kHz 16-bit mono WAV appended in CHUNK_MS pieces as fast as possible; VAD `on`
                              (server VAD; then one second of silence) or `off` (one commit at the end); waits
                              until every committed item is completed or failed
  paced WAV                   the same in 20 ms pieces at real-time pace with server VAD: latency of the events
  errors WAV                  malformed JSON, an unknown event, bad base64, a bad session update, a commit of an
                              empty buffer, a binary message, then a normal commit on the same connection
  hotwords WAV WORDS          manual commits of the same audio without and with `hotwords` in the session update
  refused                     a wrong key and another intent: the error event, and the close code
  options WAV EAGERNESS        semantic VAD at EAGERNESS, far-field noise reduction and logprobs asked for; the WAV in 100 ms
                              pieces as fast as possible, then one second of silence and a commit
  speakers WAV                server VAD with `diarize` (an OpenSpeech extension): the WAV in 100 ms pieces as fast as
                              possible, then one second of silence and a commit; the events, `speaker` on completed
  limit N                     N sessions open (one appends 1.5 s of silence), then one more: its first event and
                              close code; then, one of the N closed, another: its first event
"""
import base64
import json
import sys
import time
import wave

import openai

TIMEOUT = 300


def connect(base_url, key, **query):
    ws_url = base_url.replace("http://", "ws://", 1)
    client = openai.OpenAI(base_url=base_url, api_key=key, websocket_base_url=ws_url)
    return client.beta.realtime.connect(model="whisper-1", extra_query={"intent": "transcription", **query})


def read_pcm(path):
    with wave.open(path, "rb") as w:
        assert w.getframerate() == 24000 and w.getsampwidth() == 2 and w.getnchannels() == 1, "need 24 kHz s16 mono"
        return w.readframes(w.getnframes())


def recv(conn, timeout=TIMEOUT):
    """The next server event as a dict, with its arrival time."""
    message = conn._connection.recv(timeout=timeout)
    event = json.loads(message)
    event["_t"] = time.monotonic()
    return event


def configure(conn, vad, extra=None):
    session = {
        "input_audio_format": "pcm16",
        "input_audio_transcription": {"model": "whisper-1", "language": "en", **(extra or {})},
        "turn_detection": {"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300,
                           "silence_duration_ms": 500} if vad else None,
    }
    conn.send({"type": "transcription_session.update", "session": session})


def append(conn, pcm, chunk_ms, pace=False):
    step = max(2, int(24000 * 2 * chunk_ms / 1000))
    start = time.monotonic()
    for offset in range(0, len(pcm), step):
        piece = pcm[offset:offset + step]
        conn.send({"type": "input_audio_buffer.append", "audio": base64.b64encode(piece).decode()})
        if pace:
            due = start + (offset + len(piece)) / 48000
            time.sleep(max(0, due - time.monotonic()))


def collect(conn, events, pending_commit):
    """Reads events until every committed item has completed or failed (and a pending commit was answered). Server
    VAD's commits each follow a speech_stopped; the client's commit is answered by the one that does not (a slow
    session can complete a VAD item before the client's commit is answered)."""
    committed, done, stops = set(), set(), 0
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        event = recv(conn, timeout=max(1, deadline - time.monotonic()))
        events.append(event)
        kind = event["type"]
        if kind == "input_audio_buffer.speech_stopped":
            stops += 1
        elif kind == "input_audio_buffer.committed":
            committed.add(event["item_id"])
            if stops > 0:
                stops -= 1
            else:
                pending_commit = False
        elif kind in ("conversation.item.input_audio_transcription.completed",
                      "conversation.item.input_audio_transcription.failed"):
            done.add(event["item_id"])
        elif kind == "error" and event["error"].get("code") == "input_audio_buffer_commit_empty":
            pending_commit = False
        if not pending_commit and committed and committed <= done:
            return events
    raise TimeoutError("items not completed: %s" % (committed - done))


def stream(base_url, key, path, chunk_ms, vad):
    pcm = read_pcm(path)
    with connect(base_url, key) as conn:
        events = [recv(conn)]
        configure(conn, vad == "on")
        events.append(recv(conn))
        append(conn, pcm, float(chunk_ms))
        if vad == "on":
            append(conn, bytes(48000), 100)
        sent = time.monotonic()
        conn.send({"type": "input_audio_buffer.commit"})
        collect(conn, events, pending_commit=True)
    for event in events:
        event["_t"] -= sent
    return events


def paced(base_url, key, path):
    pcm = read_pcm(path) + bytes(48000)
    with connect(base_url, key) as conn:
        events = [recv(conn)]
        configure(conn, True)
        events.append(recv(conn))
        start = time.monotonic()
        # Reading happens after sending: event times are when they were read, so read on a second thread.
        import threading
        received = []

        def reader():
            try:
                while True:
                    received.append(recv(conn, timeout=60))
                    if received[-1]["type"] == "conversation.item.input_audio_transcription.completed" and \
                            time.monotonic() - start > len(pcm) / 48000:
                        break
            except Exception as error:  # the end of the session
                received.append({"type": "_reader_end", "error": repr(error), "_t": time.monotonic()})

        thread = threading.Thread(target=reader)
        thread.start()
        append(conn, pcm, 20, pace=True)
        thread.join(TIMEOUT)
    for event in events + received:
        event["_t"] -= start
    return events + received


def errors(base_url, key, path):
    pcm = read_pcm(path)
    out = {}
    with connect(base_url, key) as conn:
        recv(conn)
        raw = conn._connection
        raw.send("{this is not json")
        out["malformed"] = recv(conn)
        raw.send("[1, 2, 3]")
        out["not_object"] = recv(conn)
        conn.send({"type": "response.create", "event_id": "client_7"})
        out["unknown"] = recv(conn)
        conn.send({"type": "input_audio_buffer.append", "audio": "%%%not base64%%%", "event_id": "client_8"})
        out["bad_base64"] = recv(conn)
        conn.send({"type": "input_audio_buffer.append"})
        out["no_audio"] = recv(conn)
        conn.send({"type": "transcription_session.update",
                   "session": {"turn_detection": {"type": "server_vad", "threshold": 7}}})
        out["bad_threshold"] = recv(conn)
        conn.send({"type": "transcription_session.update", "session": {"input_audio_format": "mp3"}})
        out["bad_format"] = recv(conn)
        conn.send({"type": "transcription_session.update",
                   "session": {"input_audio_transcription": {"model": "no-such-model"}}})
        out["bad_model"] = recv(conn)
        conn.send({"type": "input_audio_buffer.commit"})
        out["empty_commit"] = recv(conn)
        raw.send(b"\x00\x01binary")
        out["binary"] = recv(conn)
        # The same connection still transcribes.
        configure(conn, False)
        out["updated"] = recv(conn)
        append(conn, pcm, 100)
        conn.send({"type": "input_audio_buffer.commit"})
        out["after"] = collect(conn, [], pending_commit=True)
    return out


def hotwords(base_url, key, path, words):
    pcm = read_pcm(path)
    out = {}
    with connect(base_url, key) as conn:
        recv(conn)
        for name, extra in (("plain", {}), ("hotwords", {"hotwords": words})):
            configure(conn, False, extra)
            out[name + "_session"] = recv(conn)["session"]
            append(conn, pcm, 200)
            conn.send({"type": "input_audio_buffer.commit"})
            events = collect(conn, [], pending_commit=True)
            out[name] = [e["transcript"] for e in events if e["type"].endswith("transcription.completed")]
    return out


def refused(base_url, key):
    """A wrong key and another intent: the event the server sends, and how it closes."""
    from websockets.exceptions import ConnectionClosed
    out = {}
    for name, (k, query) in {"wrong_key": (key + "x", {}), "no_intent": (key, {"intent": "conversation"})}.items():
        with connect(base_url, k, **query) as conn:
            result = {"event": recv(conn)}
            try:
                recv(conn, timeout=30)
                result["closed"] = None
            except ConnectionClosed as closed:
                result["closed"] = closed.rcvd.code if closed.rcvd else -1
            out[name] = result
    return out


def options(base_url, key, path, eagerness):
    pcm = read_pcm(path)
    with connect(base_url, key) as conn:
        events = [recv(conn)]
        conn.send({"type": "transcription_session.update", "session": {
            "input_audio_format": "pcm16",
            "input_audio_transcription": {"model": "whisper-1", "language": "en"},
            "turn_detection": {"type": "semantic_vad", "eagerness": eagerness},
            "input_audio_noise_reduction": {"type": "far_field"},
            "include": ["item.input_audio_transcription.logprobs"],
        }})
        events.append(recv(conn))
        append(conn, pcm, 100)
        append(conn, bytes(48000), 100)
        conn.send({"type": "input_audio_buffer.commit"})
        collect(conn, events, pending_commit=True)
    return events


def limit(base_url, key, count):
    """Sessions up to the server's limit, one over it, and one after a place was freed."""
    import contextlib
    from websockets.exceptions import ConnectionClosed
    out = {}
    with contextlib.ExitStack() as stack:
        conns = []
        for _ in range(count):
            conn = stack.enter_context(connect(base_url, key))
            assert recv(conn)["type"] == "transcription_session.created"
            conns.append(conn)
        conns[0].send({"type": "input_audio_buffer.append", "audio": base64.b64encode(bytes(72000)).decode()})
        with connect(base_url, key) as extra:
            result = {"event": recv(extra)}
            try:
                recv(extra, timeout=30)
                result["closed"] = None
            except ConnectionClosed as closed:
                result["closed"] = closed.rcvd.code if closed.rcvd else -1
            out["over"] = result
        conns[-1].close()
        time.sleep(1)
        with connect(base_url, key) as again:
            out["after_close"] = recv(again)
    return out


def speakers(base_url, key, path):
    pcm = read_pcm(path)
    with connect(base_url, key) as conn:
        events = [recv(conn)]
        configure(conn, True, {"diarize": True})
        events.append(recv(conn))
        append(conn, pcm, 100)
        append(conn, bytes(48000), 100)
        conn.send({"type": "input_audio_buffer.commit"})
        collect(conn, events, pending_commit=True)
    return events


def no_speakers(base_url, key):
    """Speaker labels asked of a server without the speaker model: the error, then the session still updates."""
    with connect(base_url, key) as conn:
        recv(conn)
        configure(conn, False, {"diarize": True})
        out = {"refused": recv(conn)}
        configure(conn, False)
        out["updated"] = recv(conn)
    return out


def main():
    base_url, key, mode, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if mode == "stream":
        result = stream(base_url, key, args[0], args[1], args[2])
    elif mode == "paced":
        result = paced(base_url, key, args[0])
    elif mode == "errors":
        result = errors(base_url, key, args[0])
    elif mode == "hotwords":
        result = hotwords(base_url, key, args[0], args[1])
    elif mode == "options":
        result = options(base_url, key, args[0], args[1])
    elif mode == "speakers":
        result = speakers(base_url, key, args[0])
    elif mode == "no_speakers":
        result = no_speakers(base_url, key)
    elif mode == "limit":
        result = limit(base_url, key, int(args[0]))
    elif mode == "refused":
        result = refused(base_url, key)
    else:
        raise SystemExit("unknown mode " + mode)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
