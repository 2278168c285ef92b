#!/usr/bin/env python3
"""Proves herd.py against standin.py: bovine-herd's actor follows alice on
the stand-in (found by WebFinger), the stand-in's signed Accept makes the
follow stick, its signed Create of a Note lands in the herd's inbox, an
Update edits the herd's copy and a Delete leaves a Tombstone; unsigned
requests are refused on both sides. Twice: the stand-in's `mastodon`
variant (rsa-sha256, application/activity+json, Follow embedded in the
Accept) and `plain` (hs2019, ld+json with profile, Follow by id).

  check_standin.py            (run with the interpreter that has bovine-herd)

Waits for events, never for a fixed time; the only bound is a generous
deadline (180 s a variant) so a broken run fails instead of hanging.
Prints `ok VARIANT` per variant and exits 0, or one line saying what was missing and exits 1.
"""

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
DEADLINE = 0.0  # set per variant by check()


class Process:
    """A child whose stdout lines are read on a thread into a queue."""

    def __init__(self, *args, cwd):
        self.err_path = os.path.join(cwd, os.path.basename(args[0]) + ".err")
        with open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, *args], cwd=cwd, text=True,
                stdout=subprocess.PIPE, stderr=err,
            )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, prefix):
        while True:
            remaining = DEADLINE - time.monotonic()
            if remaining <= 0:
                fail(f"timed out waiting for `{prefix}`")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                fail(f"process exited before `{prefix}`")
            if line.startswith("failed") or line.startswith("rejected"):
                fail(f"stand-in said: {line}")
            if line.startswith(prefix):
                return line.split()

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def fail(message):
    print(f"check_standin: {message}", file=sys.stderr)
    raise SystemExit(1)


def herd_cli(*args):
    done = subprocess.run([sys.executable, "herd.py", *args], cwd=HERE,
                          capture_output=True, text=True, timeout=max(1, DEADLINE - time.monotonic()))
    if done.returncode != 0:
        fail(f"herd.py {args[0]}: {done.stderr.strip()}")
    return [line for line in done.stdout.splitlines() if line]


def unsigned_status(url, body=None):
    """The status of a request without a signature (both sides must refuse)."""
    request = urllib.request.Request(url, data=body, headers={
        "Accept": "application/activity+json",
        "Content-Type": "application/activity+json",
    })
    # No proxy from the environment: this is loopback.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=max(1, DEADLINE - time.monotonic())) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def wait_for(what, probe):
    """Polls the herd (a read-only query) until probe() is truthy: the herd
    processes inbox items in a background task after answering 202."""
    while time.monotonic() < DEADLINE:
        result = probe()
        if result:
            return result
        time.sleep(0.2)
    fail(f"timed out waiting for {what}")


def check(variant):
    global DEADLINE
    DEADLINE = time.monotonic() + 180
    with tempfile.TemporaryDirectory(prefix="herd-check-") as scratch:
        db = os.path.join(scratch, "herd")
        herd = Process(os.path.join(HERE, "herd.py"), "serve", "--db", db, cwd=scratch)
        standin = Process(os.path.join(HERE, "standin.py"), "--variant", variant, cwd=scratch)
        try:
            _, herd_actor, herd_url = herd.expect("ready")
            _, base = standin.expect("ready")
            alice = f"{base}ap/alice"
            post1, post2 = f"{alice}/posts/1", f"{alice}/posts/2"
            common = ["--herd", herd_url, "--db", db]

            host = base.split("/")[2]
            (follow_id,) = herd_cli("follow", *common, "--target", f"acct:alice@{host}")
            if standin.expect("verified")[1] != herd_actor:
                fail("the Follow was not signed by the herd's actor")
            if standin.expect("follow")[1] != follow_id:
                fail("the stand-in saw another Follow")
            _, status, herd_inbox = standin.expect("accept")
            if status != "202":
                fail(f"the herd answered the Accept with {status}")
            for kind, object_id in [("create", post1), ("update", post1),
                                    ("create", post2), ("delete", post2)]:
                _, status, seen = standin.expect(kind)
                if (status, seen) != ("202", object_id):
                    fail(f"the herd answered {kind} of {seen} with {status}")

            # Signatures are not optional on either side. The herd also
            # refuses an unsigned GET of its actor: a follower's inbox is
            # only found with a signed fetch.
            def forged(actor, target):
                return json.dumps({"type": "Follow", "actor": actor, "object": target}).encode()
            for url, body, who in [
                (f"{alice}/inbox", forged(herd_actor, alice), "stand-in inbox"),
                (herd_inbox, forged(alice, herd_actor), "herd inbox"),
                (herd_actor, None, "herd actor GET"),
            ]:
                status = unsigned_status(url, body)
                if status != 401:
                    fail(f"unsigned request to the {who} got {status}, not 401")

            # The herd handles inbox items in a background task after its
            # 202, so what they did is polled for.
            wait_for("alice in the herd's following",
                     lambda: json.dumps(alice) in herd_cli("following", *common))

            def inbox_types():
                items = [json.loads(line) for line in herd_cli("inbox", *common)]
                kinds = sorted(item.get("type", "?") for item in items)
                return kinds if kinds == ["Accept", "Create", "Create", "Delete", "Update"] else None
            wait_for("Accept, 2 Creates, Update and Delete in the herd's inbox", inbox_types)

            def stored(object_id):
                (line,) = herd_cli("object", *common, "--id", object_id)
                return json.loads(line)
            wait_for("post 1 edited at the herd",
                     lambda: stored(post1).get("content") == "<p>Hello again, edited</p>")
            wait_for("post 2 a Tombstone at the herd",
                     lambda: stored(post2).get("type") == "Tombstone")
            print(f"ok {variant}")
        except SystemExit:
            for process in (herd, standin):
                with open(process.err_path) as err:
                    tail = err.read().splitlines()[-15:]
                print(f"--- {process.err_path}", *tail, sep="\n", file=sys.stderr)
            raise
        finally:
            herd.stop()
            standin.stop()


def main():
    for variant in ["mastodon", "plain"]:
        check(variant)


if __name__ == "__main__":
    main()
