#!/usr/bin/env python3
"""A stand-in for blogd's ActivityPub side, only to prove herd.py.

  standin.py [--port P] [--name alice]

Serves, under BASE = http://127.0.0.1:P/ and the URL layout of blogd's
shared decisions: WebFinger, the actor BASE ap/NAME (a Person with an RSA
2048 key, id BASE ap/NAME#main-key), its inbox BASE ap/NAME/inbox and the
shared inbox BASE ap/inbox. Every inbox POST must carry a draft-cavage
signature that bovine's own verifier (SignatureChecker) accepts, with a
Digest that matches, signed by the activity's actor. A Follow of NAME is
answered with a signed Accept to the follower's inbox; then, as a blog
does for its followers, BASE ap/NAME/posts/1 is sent as a Create and an
Update, BASE ap/NAME/posts/2 as a Create and a Delete (a Tombstone), with
the activity ids of blogd's shared decisions.

Our own requests are signed by hand, the way blogd signs them:
draft-cavage-12, rsa-sha256, `(request-target) host date digest` on POST,
`(request-target) host date` on GET, `Digest: SHA-256=<base64>`.

Prints `ready BASE` when listening, then one line per event:
`verified SIGNER`, `follow FOLLOW_ID`, `accept STATUS INBOX`,
`create|update|delete STATUS OBJECT_ID`, `rejected REASON`,
`failed ERROR`.
"""

import argparse
import asyncio
import base64
import hashlib
import json
import os
import signal
import socket
import tempfile
from email.utils import formatdate
from urllib.parse import urlparse

import aiohttp
from aiohttp import web
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

# bovine opens ./bovine_jsonld_cache.sqlite on import: keep it out of the
# caller's folder.
_scratch = tempfile.TemporaryDirectory(prefix="standin-")
os.chdir(_scratch.name)

from bovine.crypto import build_validate_http_signature_raw  # noqa: E402
from bovine.crypto.types import CryptographicIdentifier  # noqa: E402

AS_CONTEXT = "https://www.w3.org/ns/activitystreams"
AS_PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
ACTIVITY_JSON = "application/activity+json"
LD_JSON = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'


def event(*parts):
    print(*parts, flush=True)


class Signer:
    """draft-cavage-12 signing with one RSA key, as blogd does it."""

    def __init__(self, key_id, algorithm="rsa-sha256"):
        self.key_id = key_id
        self.algorithm = algorithm
        self.private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_pem = self.private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode()

    def headers(self, method, url, body=None):
        parsed = urlparse(url)
        target = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        signed = {
            "(request-target)": f"{method.lower()} {target}",
            "host": parsed.netloc,
            "date": formatdate(usegmt=True),
        }
        if body is not None:
            signed["digest"] = "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()
        message = "\n".join(f"{k}: {v}" for k, v in signed.items()).encode()
        signature = base64.b64encode(
            self.private_key.sign(message, padding.PKCS1v15(), hashes.SHA256())
        ).decode()
        out = {k.title(): v for k, v in signed.items() if k != "(request-target)"}
        out["Signature"] = (
            f'keyId="{self.key_id}",algorithm="{self.algorithm}",'
            f'headers="{" ".join(signed)}",signature="{signature}"'
        )
        return out


class StandIn:
    def __init__(self, base, name, variant):
        self.base = base
        self.name = name
        self.variant = variant
        self.actor_id = f"{base}ap/{name}"
        self.signer = Signer(f"{self.actor_id}#main-key",
                             "rsa-sha256" if variant == "mastodon" else "hs2019")
        self.content_type = ACTIVITY_JSON if variant == "mastodon" else LD_JSON
        self.session = None
        self.verify = build_validate_http_signature_raw(self.fetch_key)
        self.tasks = set()

    async def signed_get(self, url):
        headers = {"Accept": ACTIVITY_JSON, **self.signer.headers("GET", url)}
        async with self.session.get(url, headers=headers) as response:
            if response.status != 200:
                raise RuntimeError(f"GET {url}: {response.status}")
            return json.loads(await response.text())

    async def signed_post(self, url, document):
        body = json.dumps(document).encode()
        headers = {"Content-Type": self.content_type, **self.signer.headers("POST", url, body)}
        async with self.session.post(url, data=body, headers=headers) as response:
            await response.read()
            return response.status

    async def fetch_key(self, key_id):
        document = await self.signed_get(key_id.split("#")[0])
        key = document.get("publicKey", document)
        if isinstance(key, list):
            key = next((k for k in key if k.get("id") == key_id), {})
        if key.get("id") != key_id:
            return None
        return CryptographicIdentifier.from_pem(key["publicKeyPem"], key["owner"])

    # Documents

    def actor(self):
        return {
            "@context": [AS_CONTEXT, "https://w3id.org/security/v1"],
            "id": self.actor_id,
            "type": "Person",
            "preferredUsername": self.name,
            "name": self.name.title(),
            "inbox": f"{self.actor_id}/inbox",
            "outbox": f"{self.actor_id}/outbox",
            "followers": f"{self.actor_id}/followers",
            "following": f"{self.actor_id}/following",
            "endpoints": {"sharedInbox": f"{self.base}ap/inbox"},
            "url": f"{self.base}{self.name}.html",
            "publicKey": {
                "id": self.signer.key_id,
                "owner": self.actor_id,
                "publicKeyPem": self.signer.public_pem,
            },
        }

    def note(self, number, content):
        note_id = f"{self.actor_id}/posts/{number}"
        return {
            "id": note_id,
            "type": "Note",
            "attributedTo": self.actor_id,
            "content": content,
            "url": f"{self.base}{self.name}/{number}.html",
            "published": "2026-01-01T00:00:00Z",
            "to": [AS_PUBLIC],
            "cc": [f"{self.actor_id}/followers"],
        }

    def activity(self, kind, activity_id, obj):
        return {
            "@context": AS_CONTEXT,
            "id": activity_id,
            "type": kind,
            "actor": self.actor_id,
            "to": [AS_PUBLIC],
            "cc": [f"{self.actor_id}/followers"],
            "object": obj,
        }

    # Handlers

    async def webfinger(self, request):
        host = urlparse(self.base).netloc
        if request.query.get("resource") != f"acct:{self.name}@{host}":
            return web.json_response({"error": "not found"}, status=404)
        return web.json_response(
            {
                "subject": f"acct:{self.name}@{host}",
                "links": [{"rel": "self", "type": ACTIVITY_JSON, "href": self.actor_id}],
            },
            content_type="application/jrd+json",
        )

    async def get_actor(self, request):
        if request.match_info["name"] != self.name:
            raise web.HTTPNotFound()
        return web.Response(text=json.dumps(self.actor()), content_type=ACTIVITY_JSON)

    async def inbox(self, request):
        if request.match_info.get("name", self.name) != self.name:
            raise web.HTTPNotFound()
        body = await request.read()

        async def get_body():
            return body

        headers = {k.lower(): v for k, v in request.headers.items()}
        url = f"{self.base.rstrip('/')}{request.path_qs}"
        signer = await self.verify(request.method, url, headers, get_body)
        if signer is None:
            event("rejected signature")
            return web.json_response({"error": "bad signature"}, status=401)
        activity = json.loads(body)
        actor = activity.get("actor")
        actor = actor.get("id") if isinstance(actor, dict) else actor
        if actor != signer:
            event("rejected actor-mismatch", actor, signer)
            return web.json_response({"error": "actor is not the signer"}, status=401)
        event("verified", signer)

        target = activity.get("object")
        target = target.get("id") if isinstance(target, dict) else target
        if activity.get("type") == "Follow" and target == self.actor_id:
            event("follow", activity.get("id"))
            task = asyncio.get_running_loop().create_task(self.answer_follow(activity))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return web.Response(status=202)

    async def answer_follow(self, follow):
        """Accept, then what a blog sends its followers: post 1 created and
        edited, post 2 created and deleted; each step waits for its answer."""
        try:
            follower = await self.signed_get(follow["actor"])
            inbox = follower["inbox"]
            follow_hash = hashlib.sha256(follow["id"].encode()).hexdigest()[:16]
            accept = {
                "@context": AS_CONTEXT,
                "id": f"{self.actor_id}#accept-{follow_hash}",
                "type": "Accept",
                "actor": self.actor_id,
                "to": [follow["actor"]],
                "object": follow if self.variant == "mastodon" else follow["id"],
            }
            event("accept", await self.signed_post(inbox, accept), inbox)

            first = self.note(1, "<p>Hello from the stand-in</p>")
            event("create", await self.signed_post(
                inbox, self.activity("Create", f"{first['id']}#create", first)), first["id"])
            edited = {**first, "content": "<p>Hello again, edited</p>",
                      "updated": "2026-01-02T00:00:00Z"}
            event("update", await self.signed_post(
                inbox, self.activity("Update", f"{first['id']}#update-1767312000000", edited)),
                first["id"])

            second = self.note(2, "<p>Soon gone</p>")
            event("create", await self.signed_post(
                inbox, self.activity("Create", f"{second['id']}#create", second)), second["id"])
            tombstone = {"id": second["id"], "type": "Tombstone"}
            event("delete", await self.signed_post(
                inbox, self.activity("Delete", f"{second['id']}#delete", tombstone)), second["id"])
        except Exception as error:
            event("failed", type(error).__name__, str(error).replace("\n", " "))


async def main():
    # A test process may spawn us with SIGTERM blocked (inherited mask).
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--name", default="alice")
    parser.add_argument("--variant", choices=["mastodon", "plain"], default="mastodon",
                        help="mastodon: rsa-sha256, activity+json, the Follow embedded "
                             "in the Accept; plain: hs2019, ld+json, the Follow by id")
    args = parser.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}/"

    standin = StandIn(base, args.name, args.variant)
    standin.session = aiohttp.ClientSession()
    app = web.Application()
    app.router.add_get("/.well-known/webfinger", standin.webfinger)
    app.router.add_get("/ap/{name}", standin.get_actor)
    app.router.add_post("/ap/{name}/inbox", standin.inbox)
    app.router.add_post("/ap/inbox", standin.inbox)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    event("ready", base)
    try:
        await asyncio.Event().wait()
    finally:
        await standin.session.close()
        await runner.cleanup()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
