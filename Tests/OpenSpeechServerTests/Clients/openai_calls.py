"""Calls an OpenSpeech server through the official `openai` package, unmodified, and prints what came back as JSON
for the Swift tests to check. Usage: openai_calls.py BASE_URL API_KEY MODE ARGS...

  formats FILE            every response_format, word granularity, stream=True, translation, models
  errors FILE BAD_FILE    what the client raises for a wrong key, an unknown model, undecodable audio
  diarized FILE NAME=REF... SILENT
                          response_format="diarized_json": plain, with known speakers (each NAME's reference clip
                          REF sent as a data URL), streamed; verbose_json with diarize=true; a known speaker whose
                          reference is the SILENT clip
  load FILE N CONCURRENCY N requests, CONCURRENCY at a time, no retries: statuses, Retry-After, latencies
  during FILE SECONDS CONCURRENCY PID SIGNAL AT
                          CONCURRENCY clients sending requests one after another for SECONDS, no retries; at AT
                          seconds, SIGNAL (a number) sent to process PID: each request's start, end and status, and
                          the signal's time, on one clock
"""
import base64
import os
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import openai


def client(base_url, key, retries=2):
    return openai.OpenAI(base_url=base_url, api_key=key, max_retries=retries, timeout=600)


def formats(c, path):
    out = {}
    with open(path, "rb") as f:
        out["json"] = c.audio.transcriptions.create(model="whisper-1", file=f, response_format="json").text
    for fmt in ("text", "srt", "vtt"):
        with open(path, "rb") as f:
            out[fmt] = c.audio.transcriptions.create(model="whisper-1", file=f, response_format=fmt)
    with open(path, "rb") as f:
        out["verbose"] = c.audio.transcriptions.create(
            model="whisper-tiny.en", file=f, response_format="verbose_json", language="en").model_dump()
    with open(path, "rb") as f:
        out["verbose_words"] = c.audio.transcriptions.create(
            model="whisper-1", file=f, response_format="verbose_json",
            timestamp_granularities=["word", "segment"]).model_dump()
    with open(path, "rb") as f:
        events = [e.model_dump() for e in c.audio.transcriptions.create(model="whisper-1", file=f, stream=True)]
    out["stream"] = events
    with open(path, "rb") as f:
        out["translation"] = c.audio.translations.create(model="whisper-1", file=f).text
    out["models"] = [m.id for m in c.models.list()]
    out["model"] = c.models.retrieve("whisper-tiny.en").model_dump()
    return out


def error_of(call):
    try:
        call()
        return {"status": 200}
    except openai.APIStatusError as e:
        return {"status": e.status_code, "class": type(e).__name__, "body": e.body, "code": e.code,
                "type": e.type, "param": e.param}


def errors(base_url, key, path, bad_path):
    right = client(base_url, key, retries=0)
    wrong = client(base_url, key + "x", retries=0)
    with open(path, "rb") as f:
        audio = f.read()
    with open(bad_path, "rb") as f:
        bad = f.read()
    return {
        "wrong_key": error_of(lambda: wrong.audio.transcriptions.create(model="whisper-1", file=("a.wav", audio))),
        "wrong_key_models": error_of(lambda: wrong.models.list()),
        "unknown_model": error_of(lambda: right.audio.transcriptions.create(model="no-such-model", file=("a.wav", audio))),
        "unknown_model_get": error_of(lambda: right.models.retrieve("no-such-model")),
        "bad_audio": error_of(lambda: right.audio.transcriptions.create(model="whisper-1", file=("notes.wav", bad))),
        "empty": error_of(lambda: right.audio.transcriptions.create(model="whisper-1", file=("empty.wav", b""))),
        "bad_format": error_of(lambda: right.audio.transcriptions.create(
            model="whisper-1", file=("a.wav", audio), response_format="docx")),
    }


def data_url(path):
    with open(path, "rb") as f:
        return "data:audio/wav;base64," + base64.b64encode(f.read()).decode("ascii")


def diarized(c, path, known, silent):
    out = {}
    names = [pair.split("=", 1)[0] for pair in known]
    references = [data_url(pair.split("=", 1)[1]) for pair in known]
    with open(path, "rb") as f:
        result = c.audio.transcriptions.create(model="whisper-1", file=f, response_format="diarized_json")
    out["diarized"] = {"class": type(result).__name__, **result.model_dump()}
    with open(path, "rb") as f:
        result = c.audio.transcriptions.create(
            model="whisper-1", file=f, response_format="diarized_json",
            known_speaker_names=names, known_speaker_references=references)
    out["known"] = {"class": type(result).__name__, **result.model_dump()}
    with open(path, "rb") as f:
        out["stream"] = [e.model_dump() for e in c.audio.transcriptions.create(
            model="whisper-1", file=f, response_format="diarized_json", stream=True)]
    with open(path, "rb") as f:
        out["verbose"] = c.audio.transcriptions.create(
            model="whisper-1", file=f, response_format="verbose_json", timestamp_granularities=["word", "segment"],
            extra_body={"diarize": "true"}).model_dump()
    with open(path, "rb") as f:
        audio = f.read()
    out["silent_reference"] = error_of(lambda: client_without_retries(c).audio.transcriptions.create(
        model="whisper-1", file=("talk.wav", audio), response_format="diarized_json",
        known_speaker_names=[names[0], "silence"], known_speaker_references=[references[0], data_url(silent)]))
    return out


def client_without_retries(c):
    return c.with_options(max_retries=0)


def load(base_url, key, path, count, concurrency):
    c = client(base_url, key, retries=0)
    with open(path, "rb") as f:
        audio = f.read()

    def one(_):
        start = time.monotonic()
        try:
            text = c.audio.transcriptions.create(model="whisper-1", file=("clip.wav", audio)).text
            return {"status": 200, "text": text, "seconds": time.monotonic() - start}
        except openai.APIStatusError as e:
            return {"status": e.status_code, "retry_after": e.response.headers.get("retry-after"),
                    "code": e.code, "seconds": time.monotonic() - start}
        except Exception as e:  # a failure the test must see, not hide
            return {"status": -1, "error": repr(e), "seconds": time.monotonic() - start}

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(one, range(count)))


def during(base_url, key, path, seconds, concurrency, pid, signal_number, at):
    c = client(base_url, key, retries=0)
    with open(path, "rb") as f:
        audio = f.read()
    began = time.monotonic()

    def worker(_):
        done = []
        while time.monotonic() - began < seconds:
            start = time.monotonic() - began
            try:
                text = c.audio.transcriptions.create(model="whisper-1", file=("clip.wav", audio)).text
                done.append({"status": 200, "text": text, "start": start, "end": time.monotonic() - began})
            except openai.APIStatusError as e:
                done.append({"status": e.status_code, "error": str(e), "start": start, "end": time.monotonic() - began})
            except Exception as e:  # a failure the test must see, not hide
                done.append({"status": -1, "error": repr(e), "start": start, "end": time.monotonic() - began})
        return done

    with ThreadPoolExecutor(max_workers=concurrency + 1) as pool:
        results = [pool.submit(worker, i) for i in range(concurrency)]
        time.sleep(max(0, at - (time.monotonic() - began)))
        signalled = time.monotonic() - began
        os.kill(pid, signal_number)
        requests = [r for future in results for r in future.result()]
    return {"signalled": signalled, "requests": sorted(requests, key=lambda r: r["start"])}


def main():
    base_url, key, mode = sys.argv[1:4]
    args = sys.argv[4:]
    if mode == "formats":
        result = formats(client(base_url, key), args[0])
    elif mode == "errors":
        result = errors(base_url, key, args[0], args[1])
    elif mode == "diarized":
        result = diarized(client(base_url, key), args[0], args[1:-1], args[-1])
    elif mode == "load":
        result = load(base_url, key, args[0], int(args[1]), int(args[2]))
    elif mode == "during":
        result = during(base_url, key, args[0], float(args[1]), int(args[2]), int(args[3]), int(args[4]), float(args[5]))
    else:
        raise SystemExit(f"unknown mode {mode}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
