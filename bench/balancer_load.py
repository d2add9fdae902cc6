#!/usr/bin/env python3
"""`openspeech serve` replicas behind nginx (deploy/nginx/openspeech.conf), and batches split by --shard (issue 46).

  balancer_load.py --openspeech BIN --corpus DIR [--concurrency 1,2,4,8] [--seconds 15] [--clip jfk]
                   [--knee 2] [--rounds 3] [--batch-files 100] [--parts curves,knee,rolling,batch] [--output FILE]

In one run, on loopback:
- the balancer's cost at the knee: KNEE clients straight to one replica, then through nginx to it, alternated ROUNDS
  times (this machine's speed drifts by more than the cost);
- the load curve: CONCURRENCY clients of the official `openai` client (no retries) send the clip again and again for
  SECONDS, straight to one replica, through nginx to that one replica, and through nginx to two replicas: requests
  per minute, p50 and p99 latency at each concurrency (the knee: where throughput stops growing);
- a rolling restart: two replicas behind nginx under a load of 4 clients; each replica in turn gets SIGTERM, drains,
  exits and is started again on its port, the next only once it answers /health: the requests that failed;
- the batch path: BATCH_FILES corpus files (copied into a folder) through one `openspeech transcribe DIR` process,
  then through two `--shard` processes at once: wall seconds, and the files each shard took.
Replicas run with their defaults (English requests: `language=en`); nginx is Debian's, started here and stopped.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import openai

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url):
    try:
        with urllib.request.urlopen(url + "/health", timeout=2) as response:
            return response.status == 200
    except Exception:
        return False


class Replica:
    def __init__(self, binary, port, folder):
        self.binary, self.port, self.folder = binary, port, folder
        self.start()

    def start(self):
        self.log = open(os.path.join(self.folder, f"replica-{self.port}.log"), "ab")
        self.process = subprocess.Popen([self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                                         "--no-download"], stdout=self.log, stderr=self.log)
        deadline = time.time() + 120
        while not healthy(f"http://127.0.0.1:{self.port}"):
            if self.process.poll() is not None or time.time() > deadline:
                raise SystemExit(f"replica on {self.port} did not start")
            time.sleep(0.05)

    def drain(self):
        """SIGTERM, then wait for the exit: the exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=120)

    def stop(self):
        if self.process.poll() is None:
            self.drain()
        self.log.close()


class Nginx:
    def __init__(self, ports, folder):
        self.folder = os.path.join(folder, f"nginx-{len(ports)}")
        os.makedirs(self.folder)
        os.chmod(self.folder, 0o777)  # workers drop root for nobody
        site = open(os.path.join(ROOT, "deploy/nginx/openspeech.conf")).read()
        lines = [line for line in site.splitlines() if line.strip().startswith("server 127.0.0.1:")]
        template = lines[0]
        site = site.replace("\n".join(lines), "\n".join(
            re.sub(r"127\.0\.0\.1:\d+", f"127.0.0.1:{port}", template) for port in ports))
        self.port = free_port()
        site = site.replace("listen 8000;", f"listen 127.0.0.1:{self.port};")
        open(os.path.join(self.folder, "openspeech.conf"), "w").write(site)
        f = self.folder
        open(os.path.join(f, "nginx.conf"), "w").write(
            f"daemon off; pid {f}/nginx.pid; error_log {f}/error.log warn; worker_processes auto; events {{}}\n"
            f"http {{ access_log off; client_body_temp_path {f}/body; proxy_temp_path {f}/proxy; "
            f"fastcgi_temp_path {f}/fastcgi; uwsgi_temp_path {f}/uwsgi; scgi_temp_path {f}/scgi; "
            f"include {f}/openspeech.conf; }}\n")
        self.process = subprocess.Popen(["nginx", "-c", f"{f}/nginx.conf", "-p", f], stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while not healthy(self.url):
            if self.process.poll() is not None or time.time() > deadline:
                raise SystemExit(f"nginx did not start: {open(f + '/error.log').read()}")
            time.sleep(0.05)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.process.terminate()
        self.process.wait()


def cpu_seconds(pid, children=False):
    """User and system CPU seconds of `pid` (and its children's, e.g. nginx's workers) so far, from /proc."""
    pids = [pid]
    if children:
        pids += [int(p) for p in subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                                                 text=True).stdout.split()]
    total = 0
    for p in pids:
        try:
            fields = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(fraction * (len(values) - 1))))] if values else float("nan")


def load(url, audio, concurrency, seconds, during=None):
    """`concurrency` clients for `seconds` (or while `during` runs, in a thread of its own): the requests."""
    client = openai.OpenAI(base_url=url + "/v1", api_key="none", max_retries=0, timeout=600)
    began = time.monotonic()
    finished = {"flag": False}

    def worker(_):
        done = []
        while not finished["flag"] and (during is not None or time.monotonic() - began < seconds):
            start = time.monotonic()
            try:
                client.audio.transcriptions.create(model="whisper-1", file=("clip.wav", audio), language="en")
                done.append((200, start - began, time.monotonic() - start))
            except openai.APIStatusError as e:
                done.append((e.status_code, start - began, time.monotonic() - start))
            except Exception as e:  # noqa: BLE001 (every failure counts)
                done.append((-1, start - began, time.monotonic() - start))
        return done

    with ThreadPoolExecutor(max_workers=concurrency + 1) as pool:
        futures = [pool.submit(worker, i) for i in range(concurrency)]
        if during is not None:
            during()
            finished["flag"] = True
        requests = [r for f in futures for r in f.result()]
    wall = time.monotonic() - began
    ok = [r for r in requests if r[0] == 200]
    latencies = [r[2] for r in ok]
    return {"concurrency": concurrency, "requests": len(requests), "failed": len(requests) - len(ok),
            "statuses": sorted({r[0] for r in requests}), "per_minute": 60 * len(ok) / wall,
            "p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99), "wall": wall}


def batch(binary, corpus, count, folder):
    files = sorted(f for f in os.listdir(os.path.join(corpus, "wav16k")) if f.endswith(".wav"))[:count]
    tree = os.path.join(folder, "batch-in")
    os.makedirs(tree)
    for name in files:
        shutil.copy(os.path.join(corpus, "wav16k", name), tree)
    results = {"files": len(files)}
    for label, shards in (("one process", 1), ("two shards at once", 2)):
        out = os.path.join(folder, f"batch-out-{shards}")
        began = time.monotonic()
        processes = [subprocess.Popen([binary, "transcribe", tree, "--output-dir", out, "--quiet"]
                                      + (["--shard", f"{i}/{shards}"] if shards > 1 else []))
                     for i in range(shards)]
        statuses = [p.wait() for p in processes]
        written = sum(len(names) for _, _, names in os.walk(out))
        results[label] = {"wall": time.monotonic() - began, "exit": statuses, "outputs": written}
        if shards > 1:
            results[label]["per_shard"] = [
                sum(1 for name in files if fnv1a(name) % shards == i) for i in range(shards)]
    return results


def fnv1a(text):
    value = 0xcbf29ce484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--openspeech", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--concurrency", default="1,2,4,8")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clip", default="jfk")
    parser.add_argument("--batch-files", type=int, default=100)
    parser.add_argument("--parts", default="curves,knee,rolling,batch", help="which measurements, comma-separated")
    parser.add_argument("--knee", type=int, default=2, help="the concurrency the knee measurement runs at")
    parser.add_argument("--rounds", type=int, default=3, help="direct/nginx alternations at the knee")
    parser.add_argument("--output")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    audio = open(os.path.join(args.corpus, "wav16k", args.clip + ".wav"), "rb").read()
    levels = [int(c) for c in args.concurrency.split(",")]
    folder = tempfile.mkdtemp(prefix="openspeech-balancer-")
    report = {"clip": args.clip, "seconds": args.seconds, "curves": {}}
    try:
        first = Replica(args.openspeech, free_port(), folder)
        load(f"http://127.0.0.1:{first.port}", audio, 1, 3)  # warm: the model loaded, first requests paid
        if "curves" in parts:
            report["curves"]["replica alone"] = [load(f"http://127.0.0.1:{first.port}", audio, c, args.seconds)
                                                 for c in levels]
            one = Nginx([first.port], folder)
            report["curves"]["nginx, 1 replica"] = [load(one.url, audio, c, args.seconds) for c in levels]
            one.stop()
        if "knee" in parts:
            # The balancer's cost at the knee, alternated to cancel the machine's drift: direct, through nginx, ...
            # nginx's own CPU against the replica's over the rounds through it: the cost the noise hides.
            one = Nginx([first.port], folder)
            report["knee"] = []
            nginx_cpu = replica_cpu = 0.0
            for _ in range(args.rounds):
                direct = load(f"http://127.0.0.1:{first.port}", audio, args.knee, args.seconds)
                before = (cpu_seconds(one.process.pid, children=True), cpu_seconds(first.process.pid))
                through = load(one.url, audio, args.knee, args.seconds)
                nginx_cpu += cpu_seconds(one.process.pid, children=True) - before[0]
                replica_cpu += cpu_seconds(first.process.pid) - before[1]
                report["knee"].append({"direct": direct, "nginx": through})
            report["knee_cpu"] = {"nginx": nginx_cpu, "replica": replica_cpu}
            one.stop()
        second = Replica(args.openspeech, free_port(), folder)
        load(f"http://127.0.0.1:{second.port}", audio, 1, 3)
        two = Nginx([first.port, second.port], folder)
        if "curves" in parts:
            report["curves"]["nginx, 2 replicas"] = [load(two.url, audio, c, args.seconds) for c in levels]

        def rolling():
            time.sleep(3)
            report["rolling_exits"] = []
            for replica in (first, second):
                report["rolling_exits"].append(replica.drain())
                replica.log.close()
                replica.start()
                time.sleep(3)
        if "rolling" in parts:
            report["rolling restart"] = load(two.url, audio, 4, None, during=rolling)
        two.stop()
        first.stop()
        second.stop()
        if "batch" in parts:
            report["batch"] = batch(args.openspeech, args.corpus, args.batch_files, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for name, curve in report["curves"].items():
        for point in curve:
            print(f"{name:18} C={point['concurrency']}: {point['per_minute']:6.1f} req/min, p50 {point['p50']:.2f} s, "
                  f"p99 {point['p99']:.2f} s, failed {point['failed']} of {point['requests']}")
    if "knee" in report:
        direct = sum(r["direct"]["per_minute"] for r in report["knee"])
        through = sum(r["nginx"]["per_minute"] for r in report["knee"])
        print(f"knee C={args.knee}: direct " + ", ".join(f"{r['direct']['per_minute']:.1f}" for r in report["knee"])
              + "; nginx " + ", ".join(f"{r['nginx']['per_minute']:.1f}" for r in report["knee"])
              + f" req/min; nginx/direct {through / direct:.3f}; CPU through nginx: nginx "
              + f"{report['knee_cpu']['nginx']:.2f} s, the replica {report['knee_cpu']['replica']:.1f} s")
    if "rolling restart" in report:
        r = report["rolling restart"]
        print(f"rolling restart: {r['requests']} requests, {r['failed']} failed (statuses {r['statuses']}), "
              f"exits {report['rolling_exits']}, {r['wall']:.1f} s")
    if "batch" in report:
        print("batch:", json.dumps(report["batch"]))
    if args.output:
        json.dump(report, open(args.output, "w"), indent=1)


if __name__ == "__main__":
    main()
