#!/usr/bin/env python3
"""Latency of Realtime transcription sessions (`/v1/realtime?intent=transcription`, server VAD) through the official
`openai` package's realtime client: corpus clips sent as 24 kHz PCM16 in 20 ms appends at real-time pace, one
session per clip, then a second of silence. For every item, measured from the moment the audio at its
`audio_end_ms` (the end of the speech) had been sent: when `speech_stopped` arrived, the first `delta`, and
`completed`. Also the WER of the items' text against the reference.

  realtime_latency.py --openspeech BIN --corpus DIR [--clips N] [--model ID] [--output FILE]
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_runs import read_manifest, wav_path  # noqa: E402
from server_load import percentile, start_server  # noqa: E402

import openai  # noqa: E402


def words(text):
    """Lower case, letters, digits and apostrophes: a rough normalization (the tests' scorer is in Swift)."""
    return "".join(c if c.isalnum() or c == "'" else " " for c in text.lower()).split()


def edit_distance(reference, hypothesis):
    row = list(range(len(hypothesis) + 1))
    for i, r in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hypothesis, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1]


def pcm24k(path, folder):
    out = os.path.join(folder, os.path.basename(path) + ".24k.wav")
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", path, "-ac", "1", "-ar", "24000",
                    "-c:a", "pcm_s16le", out], check=True)
    with wave.open(out, "rb") as w:
        return w.readframes(w.getnframes())


def session(base_url, pcm, model):
    client = openai.OpenAI(base_url=base_url, api_key="unused", websocket_base_url=base_url.replace("http", "ws", 1))
    events = []
    with client.beta.realtime.connect(model="whisper-1", extra_query={"intent": "transcription"}) as conn:
        raw = conn._connection
        json.loads(raw.recv(timeout=60))
        conn.send({"type": "transcription_session.update", "session": {
            "input_audio_format": "pcm16", "input_audio_transcription": {"model": model, "language": "en"},
            "turn_detection": {"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300,
                               "silence_duration_ms": 500}}})
        json.loads(raw.recv(timeout=60))
        audio = pcm + bytes(48000 * 2)
        done = threading.Event()
        start = time.monotonic()

        def reader():
            pending = set()
            idle = 0.0
            while idle < 30:
                if done.is_set() and not pending:
                    return
                try:
                    event = json.loads(raw.recv(timeout=0.5))
                except TimeoutError:
                    idle += 0.5
                    continue
                idle = 0.0
                event["_t"] = time.monotonic() - start
                events.append(event)
                if event["type"] == "input_audio_buffer.committed":
                    pending.add(event["item_id"])
                if event["type"].endswith("transcription.completed") or event["type"].endswith("transcription.failed"):
                    pending.discard(event["item_id"])

        thread = threading.Thread(target=reader)
        thread.start()
        step = 960  # 20 ms of 24 kHz 16-bit
        for offset in range(0, len(audio), step):
            piece = audio[offset:offset + step]
            conn.send({"type": "input_audio_buffer.append", "audio": base64.b64encode(piece).decode()})
            due = start + (offset + len(piece)) / 48000
            time.sleep(max(0, due - time.monotonic()))
        done.set()
        thread.join(120)
    return events


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--openspeech", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--clips", type=int, default=12)
    parser.add_argument("--model", default="whisper-tiny.en")
    parser.add_argument("--output")
    args = parser.parse_args()
    items = [i for i in read_manifest(args.corpus, "") if 4 <= float(i["duration_s"]) <= 20]
    items = items[:args.clips]
    stopped, first_delta, completed, texts = [], [], [], []
    # Deltas sent while the speech was still arriving: how long after the speech began the first came, and how
    # many of the items' words had been sent by the end of the speech.
    early_from_start, early_words, all_words = [], 0, 0
    with tempfile.TemporaryDirectory() as folder, tempfile.NamedTemporaryFile("w+", suffix=".log") as log:
        process, base_url = start_server(args.openspeech, 2, "float32", log)
        try:
            for item in items:
                events = session(base_url, pcm24k(wav_path(args.corpus, item), folder), args.model)
                by_item = {}
                for event in events:
                    if "item_id" in event:
                        by_item.setdefault(event["item_id"], []).append(event)
                text = []
                for item_events in by_item.values():
                    stop = next((e for e in item_events if e["type"] == "input_audio_buffer.speech_stopped"), None)
                    if stop is None:
                        continue
                    speech_end = stop["audio_end_ms"] / 1000
                    delta = next((e for e in item_events if e["type"].endswith("transcription.delta")), None)
                    done = next((e for e in item_events if e["type"].endswith("transcription.completed")), None)
                    stopped.append(stop["_t"] - speech_end)
                    if delta:
                        first_delta.append(delta["_t"] - speech_end)
                    start = next((e for e in item_events if e["type"] == "input_audio_buffer.speech_started"), None)
                    early = [e for e in item_events if e["type"].endswith("transcription.delta") and e["_t"] <= stop["_t"]]
                    if start and early:
                        early_from_start.append(early[0]["_t"] - start["audio_start_ms"] / 1000)
                    early_words += len(words("".join(e["delta"] for e in early)))
                    if done:
                        completed.append(done["_t"] - speech_end)
                        text.append(done["transcript"])
                        all_words += len(words(done["transcript"]))
                texts.append((item, " ".join(text)))
        finally:
            process.terminate()
            process.wait(timeout=60)
    errors = sum(edit_distance(words(i["transcript"]), words(t)) for i, t in texts)
    rate = errors / max(1, sum(len(words(i["transcript"])) for i, _ in texts))
    result = {
        "clips": len(items), "items": len(completed), "wer_rough": rate,
        "speech_stopped": {"p50": percentile(stopped, 0.5), "p95": percentile(stopped, 0.95)},
        "items_with_early_deltas": len(early_from_start),
        "first_early_delta_from_speech_start": {"p50": percentile(early_from_start, 0.5),
                                                "p95": percentile(early_from_start, 0.95)},
        "words_sent_before_speech_stopped": early_words / max(1, all_words),
        "first_delta": {"p50": percentile(first_delta, 0.5), "p95": percentile(first_delta, 0.95)},
        "completed": {"p50": percentile(completed, 0.5), "p95": percentile(completed, 0.95)},
        "texts": [{"id": i["id"], "reference": i["transcript"], "text": t} for i, t in texts],
    }
    print(json.dumps({k: v for k, v in result.items() if k != "texts"}, indent=1))
    if args.output:
        with open(args.output, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
