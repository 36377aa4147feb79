#!/usr/bin/env python3
"""A small gridops client with `requests`: login -> import -> power flow -> result.

Usage: python3 examples/gridops_client.py [BASE_URL] [CASE.m]
(defaults http://127.0.0.1:8080 and ../shared/cases/case9.m; GRIDOPS_USER / GRIDOPS_PASSWORD
default to admin / admin). Prints a JSON summary on standard output.
The calls follow the OpenAPI document at BASE_URL/api/v1/openapi.json (docs/clients.md).
"""
import json
import os
import sys
import time

import requests


class GridopsError(Exception):
    """An error answer of the API: its SPEC error body (code, message, doc_url)."""

    def __init__(self, status, body):
        err = body.get("error", {}) if isinstance(body, dict) else {}
        self.status, self.code, self.details = status, err.get("code"), err.get("details")
        super().__init__(f"{status} {err.get('code')}: {err.get('message')} (see {err.get('doc_url')})")


class Gridops:
    def __init__(self, base_url, timeout=60):
        self.base = base_url.rstrip("/")
        self.http = requests.Session()
        self.timeout = timeout

    def _call(self, method, path, **kw):
        while True:
            r = self.http.request(method, self.base + path, timeout=self.timeout, **kw)
            if r.status_code == 429:  # rate limited: wait as the server says, then retry
                time.sleep(int(r.headers.get("Retry-After", "1")))
                continue
            body = r.json() if r.headers.get("content-type", "").startswith("application/json") else r.text
            if r.status_code >= 400:
                raise GridopsError(r.status_code, body)
            return body["data"] if isinstance(body, dict) and "data" in body else body

    def login(self, username, password):
        data = self._call("POST", "/api/v1/auth/token", json={"username": username, "password": password})
        self.http.headers["Authorization"] = f"Bearer {data['token']}"
        return data

    def import_case(self, path, name=None):
        with open(path, "rb") as f:
            params = {"name": name} if name else {}
            return self._call("POST", "/api/v1/networks/import", params=params, files={"file": (os.path.basename(path), f)})

    def power_flow(self, network_id, **options):
        """Queues an asynchronous power flow and polls its task until it has finished."""
        task = self._call("POST", f"/api/v1/networks/{network_id}/powerflow", json={"async": True, **options})
        while True:
            t = self._call("GET", task["poll_url"])
            if t["status"] in ("completed", "failed", "cancelled"):
                break
            time.sleep(0.05)
        if t["status"] != "completed":
            raise RuntimeError(f"task {t['task_id']} {t['status']}: {t.get('error')}")
        return self._call("GET", t["result_url"])  # the task with its whole result


def main():
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
    case = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "shared", "cases", "case9.m")
    g = Gridops(base)
    g.login(os.environ.get("GRIDOPS_USER", "admin"), os.environ.get("GRIDOPS_PASSWORD", "admin"))
    net = g.import_case(case)
    task = g.power_flow(net["id"], method="newton_raphson")
    r = task["result"]
    print(json.dumps({
        "network_id": net["id"], "task_id": task["task_id"], "status": r["status"], "iterations": r["iterations"],
        "losses_mw": r["losses"]["p_mw"], "bus_count": len(r["buses"]), "v": [b["v"] for b in r["buses"]],
        "branch_index": [b["index"] for b in r["branches"]],
    }))


if __name__ == "__main__":
    main()
