"""The bot server under load, loopback only (issue 16's figures; bench/README.md).

    .venv/bin/python bench/bench_server.py [--seconds 15] [--flood-seconds 60] [--hostile 10000]

1. **Overhead**: 50 concurrent clients call ``move`` (trained policy, heuristic) and ``apply``
   on Lunatix Loop positions for ``--seconds`` each, over HTTP against a server process
   (``python -m agents.serve --http``, its pool admitting 50 at once), and the same calls
   in-process (50 threads submitting ``Service.handle`` to a pool of the server's size).
   Each client pauses before its first request and between a reply and its next request,
   as a front end does: exponential pauses averaging ``--think-ms``, seeded per client, the
   same in both runs (Poisson arrivals: a bounded load; without pauses 50 closed-loop
   clients saturate a 2-core machine and the figure measures queueing, not the transport;
   with equal fixed pauses the clients stay in lockstep and every round is a burst of 50).
   Figure: p99 over HTTP minus p99 in-process, at most 3 ms.
2. **MCTS budgets**: ``move`` with ``mcts`` and ``budget_ms`` 100 and 300: the longest think
   time over 20 moves against budget + 10%.
3. **Flood**: 200 concurrent clients for ``--flood-seconds`` on a fixed mix (apply, move
   heuristic, legal, render), each waiting as a 429's ``Retry-After`` says: only 200 and 429
   answers, the 200s' throughput against the
   50-client throughput of the same mix (>= 80%), the server's RSS growth (<= 10%).
4. **Hostile**: ``--hostile`` malformed or hostile requests (the fuzz test's generator): no
   5xx, and a valid request answered after each.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "shared"))

from serving import free_port  # noqa: E402

from agents.serve import Service  # noqa: E402

#: the server's compute threads (the default of ``python -m agents.serve --http``)
WORKERS = 4


def p99(xs: list[float]) -> float:
    """The 99th percentile (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.99 * len(s)))]


def rss_kb(pid: int) -> int:
    """Resident memory of a process (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class ServerProcess:
    """``python -m agents.serve --http`` in a subprocess on a free port."""

    def __init__(self, workers: int, queue: int) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agents.serve",
                "--http",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
                "--queue",
                str(queue),
            ],
            cwd=ROOT,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(600):
            try:
                httpx.get(f"{self.base}/v1/info", timeout=5)
                return
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        """End the server."""
        self.proc.terminate()
        self.proc.wait(30)


def requests_of(svc: Service) -> dict[str, dict[str, Any]]:
    """The calls measured: positions a few steps into a 2-player Lunatix Loop game."""
    r = svc.handle({"cmd": "new_game", "game": "lunatix", "players": 2, "seed": 11})
    pos = r["position"]
    for step in range(6):  # into the first turns
        acts = {}
        for seat in r["deciding"]:
            m = svc.handle(
                {"cmd": "move", "position": pos, "seat": seat, "bot": "random", "seed": step}
            )
            acts[str(seat)] = m["action"]
        r = svc.handle({"cmd": "apply", "position": pos, "actions": acts, "seed": step})
        pos = r["position"]
    seat = r["deciding"][0]
    acts = {}
    for s in r["deciding"]:
        acts[str(s)] = svc.handle(
            {"cmd": "move", "position": pos, "seat": s, "bot": "random", "seed": 0}
        )["action"]
    base = {"position": pos, "seat": seat, "seed": 3}
    return {
        "move trained": {"cmd": "move", **base, "bot": "trained"},
        "move heuristic": {"cmd": "move", **base, "bot": "heuristic"},
        "apply": {"cmd": "apply", "position": pos, "actions": acts, "seed": 3},
        "legal": {"cmd": "legal", "position": pos, "seat": seat},
        "render": {"cmd": "render", "position": pos},
    }


def thinking(mean: float, client: int) -> Iterator[float]:
    """A client's pauses: before its first request and after each reply, exponential with
    ``mean`` seconds (0: none), seeded by the client's number. Independent front ends send
    at random moments (Poisson arrivals), not in lockstep; the same pauses are drawn for the
    in-process and the HTTP runs."""
    rng = random.Random(client)
    while True:
        yield rng.expovariate(1 / mean) if mean > 0 else 0.0


def in_process(
    svc: Service,
    req: dict[str, Any],
    clients: int,
    seconds: float,
    workers: int,
    think: float = 0.0,
) -> list[float]:
    """Latencies (ms) of ``clients`` threads calling ``svc.handle`` for ``seconds`` through a
    pool of ``workers`` threads, as the HTTP server computes: the same concurrency without
    the transport (HTTP, JSON text, the event loop)."""
    out: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    pool = ThreadPoolExecutor(max_workers=workers)

    def client(k: int) -> None:
        mine = []
        pause = thinking(think, k)
        time.sleep(next(pause))
        while time.perf_counter() < deadline:
            t = time.perf_counter()
            r = pool.submit(svc.handle, req).result()
            mine.append((time.perf_counter() - t) * 1000)
            assert r["ok"], r
            time.sleep(next(pause))
        with lock:
            out.extend(mine)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pool.shutdown()
    return out


def over_http(
    base: str, mix: list[dict[str, Any]], clients: int, seconds: float, think: float = 0.0
) -> tuple[list[float], dict[int, int], float]:
    """Latencies (ms) of 200 answers, the count of each status, and 200s per second, for
    ``clients`` concurrent clients (threads, each with its own kept-alive connection, through
    the standard library's ``http.client``: a load generator much lighter than the server, so
    that its own queueing stays out of the figures) cycling through ``mix`` for ``seconds``."""
    lat: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    host, port = base.removeprefix("http://").split(":")
    bodies = [(r["cmd"], json.dumps({k: v for k, v in r.items() if k != "cmd"})) for r in mix]
    start = time.perf_counter()
    deadline = start + seconds

    def client(k: int) -> None:
        conn = http.client.HTTPConnection(host, int(port), timeout=120)
        mine: list[float] = []
        seen: dict[int, int] = {}
        i = k
        pause = thinking(think, k)
        time.sleep(next(pause))
        while time.perf_counter() < deadline:
            cmd, body = bodies[i % len(bodies)]
            i += 1
            t = time.perf_counter()
            conn.request("POST", f"/v1/{cmd}", body, {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            seen[r.status] = seen.get(r.status, 0) + 1
            if r.status == 200:
                mine.append((time.perf_counter() - t) * 1000)
            elif r.status == 429:  # a well-behaved client waits as told
                time.sleep(float(r.getheader("Retry-After", "1")))
            time.sleep(next(pause))
        conn.close()
        with lock:
            lat.extend(mine)
            for code, n in seen.items():
                statuses[code] = statuses.get(code, 0) + n

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    return lat, statuses, statuses.get(200, 0) / elapsed


def main() -> None:
    """Run the four measurements and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--flood-seconds", type=float, default=60.0)
    ap.add_argument(
        "--think-ms",
        type=float,
        default=500.0,
        help="1.: each client's mean pause between a reply and its next request",
    )
    ap.add_argument("--hostile", type=int, default=10_000)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--parts", default="1234", help="which of the four measurements to run (e.g. 13)"
    )
    args = ap.parse_args()
    svc = Service()
    svc.warm(copies=WORKERS)
    calls = requests_of(svc)
    results: dict[str, Any] = {}

    # 50 admitted at once (WORKERS computing, the rest waiting): no 429 at 50 clients
    if "1" in args.parts:
        overhead(svc, calls, args, results)
    if "2" in args.parts:
        mcts_budgets(svc, calls, results)
    if "3" in args.parts:
        flood(calls, args, results)
    if "4" in args.parts:
        hostile(calls, args, results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def overhead(svc: Service, calls: dict[str, Any], args: Any, results: dict[str, Any]) -> None:
    """1.: p99 over HTTP minus p99 in-process at 50 clients."""
    server = ServerProcess(workers=WORKERS, queue=50 - WORKERS)
    try:
        print("1. overhead at 50 concurrent clients (p99 ms)", flush=True)
        for name in ("move trained", "move heuristic", "apply"):
            req = calls[name]
            think = args.think_ms / 1000.0
            local = in_process(svc, req, 50, args.seconds, WORKERS, think)
            remote, statuses, rate = over_http(server.base, [req], 50, args.seconds, think)
            d = p99(remote) - p99(local)
            results[name] = {
                "p99_http": p99(remote),
                "p99_in_process": p99(local),
                "diff": d,
                "statuses": statuses,
                "http_per_s": rate,
            }
            print(
                f"   {name:15s} http {p99(remote):8.2f}  in-process {p99(local):8.2f}  "
                f"diff {d:+7.2f} ms ({'ok' if d <= 3 else 'ABOVE'} 3)  statuses {statuses}",
                flush=True,
            )
    finally:
        server.stop()


def mcts_budgets(svc: Service, calls: dict[str, Any], results: dict[str, Any]) -> None:
    """2.: MCTS think times against their budgets."""
    print("2. MCTS budgets", flush=True)
    req = dict(calls["move heuristic"])
    for budget in (100, 300):
        think = []
        for seed in range(20):
            r = svc.handle(
                {**req, "bot": "mcts:prior=heuristic,norm=1", "budget_ms": budget, "seed": seed}
            )
            think.append(r["think_ms"])
        worst = max(think)
        results[f"mcts {budget} ms"] = {"worst_ms": worst, "median_ms": statistics.median(think)}
        print(
            f"   budget {budget} ms: median {statistics.median(think):.1f}, worst {worst:.1f} "
            f"({'ok' if worst <= budget * 1.1 else 'ABOVE'} {budget * 1.1:.0f})",
            flush=True,
        )


def flood(calls: dict[str, Any], args: Any, results: dict[str, Any]) -> None:
    """3.: 200 clients against 50 on a fixed mix."""
    print("3. flood: 200 clients against 50, a fixed mix", flush=True)
    mix = [calls[k] for k in ("apply", "move heuristic", "legal", "render")]
    server = ServerProcess(workers=WORKERS, queue=50 - WORKERS)
    try:
        over_http(server.base, mix, 50, 3)  # warm
        _, s50, rate50 = over_http(server.base, mix, 50, args.flood_seconds / 3)
        rss0 = rss_kb(server.proc.pid)
        _, s200, rate200 = over_http(server.base, mix, 200, args.flood_seconds)
        rss1 = rss_kb(server.proc.pid)
    finally:
        server.stop()
    only = set(s200) <= {200, 429}
    growth = (rss1 - rss0) / rss0
    results["flood"] = {
        "statuses_50": s50,
        "statuses_200": s200,
        "rate_50": rate50,
        "rate_200": rate200,
        "rss_kb": [rss0, rss1],
    }
    print(
        f"   50 clients {rate50:.1f} ok/s {s50}; 200 clients {rate200:.1f} ok/s {s200}", flush=True
    )
    print(
        f"   only 200/429: {only}; throughput 200/50 {rate200 / rate50:.2f} (>= 0.8); "
        f"RSS {rss0 / 1024:.0f} -> {rss1 / 1024:.0f} MiB ({growth:+.1%}, <= 10%)",
        flush=True,
    )


def hostile(calls: dict[str, Any], args: Any, results: dict[str, Any]) -> None:
    """4.: hostile requests over HTTP."""
    print("4. hostile requests over HTTP", flush=True)
    from hypothesis import HealthCheck, given, settings
    from test_server_fuzz import requests as hostile_requests

    server = ServerProcess(workers=WORKERS, queue=50 - WORKERS)
    bad: list[Any] = []
    sent = [0]
    valid = json.dumps({"position": calls["apply"]["position"]})
    try:
        with httpx.Client(base_url=server.base, timeout=60) as c:

            @settings(
                max_examples=args.hostile,
                deadline=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
            )
            @given(hostile_requests())
            def fire(req: Any) -> None:
                cmd = req.pop("cmd", "info")
                cmd = cmd if isinstance(cmd, str) and cmd.isidentifier() else "info"
                if isinstance(req.get("budget_ms"), int | float):
                    req["budget_ms"] = 50
                r = c.post(f"/v1/{cmd}", content=json.dumps(req))
                sent[0] += 1
                if r.status_code >= 500:
                    bad.append((cmd, r.status_code, r.text[:200]))
                after = c.post("/v1/validate", content=valid)
                if after.status_code != 200:
                    bad.append(("valid after", after.status_code, after.text[:200]))

            fire()
    finally:
        server.stop()
    results["hostile"] = {"sent": sent[0], "5xx_or_not_served_after": len(bad)}
    print(
        f"   {sent[0]} hostile requests: {len(bad)} 5xx or a valid request refused after",
        flush=True,
    )
    for b in bad[:5]:
        print("   ", b)


if __name__ == "__main__":
    main()
