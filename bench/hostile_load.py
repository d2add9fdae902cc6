#!/usr/bin/env python3
"""`openspeech serve` under its normal load with and without attackers beside it (issue 40), in one run.

  hostile_load.py --openspeech BIN --corpus DIR --model ID [--concurrency 2] [--requests 24] [--attacks a,b]
                  [--output FILE]

A server is started with --max-concurrency C --max-queue 2C and a home and temporary folder of its own. Phase
"quiet": C clients (the server's capacity) each send the same English corpus clips one after another through the
official `openai` client. Phase "attacked": the same clients and clips, while attackers on raw sockets
(Tests/OpenSpeechServerTests/Clients/hostile_clients.py) repeat every attack of the issue: streamed uploads reset at
any instant, bodies without a boundary or of another type, ambiguous framing and oversized heads, slow heads, idle
connections, a Realtime client that sends and never reads, oversized Realtime messages, requests from a foreign
origin with a rebound host, and a transcription with a 64 KB prompt. Reported: every normal request's status,
latency p50/p99 per phase and their ratio (target: p99 attacked within 1.5x of quiet), the server's resident memory
sampled through each phase, and after the run (a quiet second): transcriptions running, uploads in progress, queue
depth and files left in the server's temporary folder (target: 0 each). The attacked phase runs twice, the resident
memory read after each (memory flat: the second no higher than the first, beyond the allocator's noise); the worse
p99 is the one compared.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "Tests", "OpenSpeechServerTests", "Clients"))
from cli_runs import read_manifest, wav_path  # noqa: E402
from server_load import listening_port  # noqa: E402
import hostile_clients as hostile  # noqa: E402

import openai  # noqa: E402


def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(fraction * (len(values) - 1))))] if values else float("nan")


def resident_kilobytes(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def server_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def metrics(port):
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    values = {}
    for line in body.splitlines():
        if line.startswith("openspeech_") and " " in line and "{" not in line:
            name, value = line.rsplit(" ", 1)
            values[name[len("openspeech_"):]] = float(value)
    return values


def start_server(binary, concurrency, temporary, log):
    environment = dict(os.environ, TMPDIR=temporary, OPENSPEECH_API_KEY="")
    process = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--max-concurrency", str(concurrency),
         "--max-queue", str(2 * concurrency), "--no-download", "--request-timeout", "10"],
        stdout=log, stderr=log, env=environment)
    return process, listening_port(process, log)


def normal_load(port, model, paths, concurrency, requests):
    """C clients, each sending `requests` clips in turn; returns (status, seconds) per request."""
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0, timeout=600)

    def one(index):
        path = paths[index % len(paths)]
        start = time.monotonic()
        try:
            with open(path, "rb") as f:
                client.audio.transcriptions.create(model=model, file=f)
            return 200, time.monotonic() - start
        except openai.APIStatusError as error:
            return error.status_code, time.monotonic() - start
        except Exception as error:  # noqa: BLE001 - a normal request must never fail; say how it did
            return repr(error), time.monotonic() - start

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(one, range(requests)))


def attackers(port, clip, stop, only=()):
    """Every attack, over and over, until `stop` is set; returns the count of each."""
    counts = {}

    def repeat(name, attack, pause):
        while not stop.is_set():
            try:
                attack()
            except Exception:  # noqa: BLE001 - an attack failing on the client's side is not the server's failure
                pass
            counts[name] = counts.get(name, 0) + 1
            stop.wait(pause)

    host = "127.0.0.1"
    # Each attack every few seconds: the attackers share the machine's cores with the server, and an attacker that
    # spins measures the client's CPU, not the server's defences.
    attacks = [
        ("reset-streams", lambda: hostile.reset_streams(host, port, None, 3, clip, "0,0.02,0.2"), 2.0),
        ("no-boundary", lambda: hostile.typed_body(host, port, None, 200_000, "multipart/form-data"), 2.0),
        ("wrong-type", lambda: hostile.typed_body(host, port, None, 200_000, "application/octet-stream"), 2.0),
        ("framing", lambda: hostile.framing(host, port, None), 2.0),
        ("slow-headers", lambda: hostile.slow_headers(host, port, 20, 15), 0.1),
        ("idle", lambda: hostile.idle(host, port, 15), 0.1),
        ("realtime-flood", lambda: hostile.realtime_flood(host, port, None, 50_000), 5.0),
        ("realtime-oversize", lambda: hostile.realtime_oversize(host, port, None, 17 << 20), 5.0),
        ("foreign-origin", lambda: hostile.origin(host, port, None, "https://evil.example", f"evil.example:{port}"),
         2.0),
        ("long-prompt", lambda: hostile.long_field(host, port, None, 65_536, clip, "prompt"), 10.0),
    ]
    attacks = [attack for attack in attacks if not only or attack[0] in only]
    threads = [threading.Thread(target=repeat, args=attack, daemon=True) for attack in attacks]
    for thread in threads:
        thread.start()
    return threads, counts


def phase(port, pid, model, paths, concurrency, requests, attacked, clip, only=()):
    stop = threading.Event()
    rss = [resident_kilobytes(pid)]
    sampler_stop = threading.Event()

    def sample():
        while not sampler_stop.wait(1.0):
            rss.append(resident_kilobytes(pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    threads, counts = attackers(port, clip, stop, only) if attacked else ([], {})
    server_cpu = server_cpu_seconds(pid)
    start, cpu = time.monotonic(), time.process_time()
    results = normal_load(port, model, paths, concurrency, requests)
    wall = time.monotonic() - start
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    sampler_stop.set()
    sampler.join()
    client_cpu = time.process_time() - cpu
    server_cpu = server_cpu_seconds(pid) - server_cpu
    latencies = [seconds for status, seconds in results if status == 200]
    return {
        "attacked": attacked, "requests": len(results), "answered_200": sum(1 for s, _ in results if s == 200),
        "failures": [s for s, _ in results if s != 200], "wall_seconds": wall,
        "p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99),
        "rss_kb_first": rss[0], "rss_kb_max": max(rss), "rss_kb_last": rss[-1], "attacks": counts,
        "client_cpu_seconds": client_cpu, "server_cpu_seconds": server_cpu,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--openspeech", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--requests", type=int, default=24)
    parser.add_argument("--attacks", default="", help="only these attacks (comma-separated names)")
    parser.add_argument("--output")
    args = parser.parse_args()
    only = tuple(a for a in args.attacks.split(",") if a)
    items = [i for i in read_manifest(args.corpus, "") if 4 <= float(i["duration_s"]) <= 15][:12]
    paths = [wav_path(args.corpus, i) for i in items]
    clip = paths[0]
    temporary = tempfile.mkdtemp(prefix="openspeech-hostile-")
    with tempfile.NamedTemporaryFile("w+", suffix=".log") as log:
        process, port = start_server(args.openspeech, args.concurrency, temporary, log)
        try:
            # Warm-up (model load, first allocations), then the quiet and the attacked phase.
            normal_load(port, args.model, paths, args.concurrency, args.concurrency * 2)
            quiet = phase(port, process.pid, args.model, paths, args.concurrency, args.requests, False, clip)
            # Two attacked phases: memory that grows in the first and not in the second is the allocator's, not a leak.
            rounds = []
            for _ in range(2):
                rounds.append(phase(port, process.pid, args.model, paths, args.concurrency, args.requests, True, clip,
                                    only))
                time.sleep(15)  # the attackers' last connections time out
                rounds[-1]["rss_kb_after_quiet"] = resident_kilobytes(process.pid)
            attacked = max(rounds, key=lambda r: r["p99"])
            after = metrics(port)
            leftovers = os.listdir(temporary)
            final_rss = resident_kilobytes(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=120)
            shutil.rmtree(temporary, ignore_errors=True)
    report = {
        "model": args.model, "concurrency": args.concurrency, "quiet": quiet, "attacked_rounds": rounds,
        "attacked": attacked,
        "p99_ratio": attacked["p99"] / quiet["p99"],
        "after": {"transcriptions_running": after.get("transcriptions_running"),
                  "uploads_in_progress": after.get("uploads_in_progress"), "queue_depth": after.get("queue_depth"),
                  "temporary_files": leftovers, "rss_kb": final_rss},
    }
    report["targets_met"] = (quiet["answered_200"] == quiet["requests"]
                             and all(r["answered_200"] == r["requests"] for r in rounds)
                             and report["p99_ratio"] <= 1.5 and not leftovers
                             and after.get("transcriptions_running") == 0 and after.get("uploads_in_progress") == 0)
    text = json.dumps(report, indent=2)
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
