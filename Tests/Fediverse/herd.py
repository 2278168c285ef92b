#!/usr/bin/env python3
"""An independent ActivityPub server (bovine-herd, from PyPI) on loopback,
driven from the command line so blogd's tests can follow a blog from it.

  herd.py serve     --db DIR [--port P] [--actor NAME]...
      Runs bovine-herd on http://127.0.0.1:P (P=0: a free port) with its
      SQLite database in DIR, creates the local actors NAME (default
      `herd`; the option repeats) on first start, and prints, once the
      socket listens, `actor NAME ACTOR_ID INBOX` for each, then
      `ready ACTOR_ID HERD_URL` (the first actor). While it runs it prints
      one line for each signed request it answers, `request {JSON}`
      (method, path, status, accept, digest, content_type, key_id,
      algorithm, signed: the Signature's `headers`), and one for each of
      its own deliveries that failed, `delivery-failed STATUS INBOX`
      (STATUS 0 when no HTTP answer came).
  herd.py follow    --herd URL --db DIR --actor NAME --target TARGET
      POSTs a Follow of TARGET (an actor URL, or acct:USER@HOST looked up by
      WebFinger over http) to NAME's outbox (client-to-server); the herd
      then fetches the target and delivers the signed Follow. Prints the
      Follow's id.
  herd.py inbox     --herd URL --db DIR --actor NAME
  herd.py following --herd URL --db DIR --actor NAME
      Print, one JSON document a line, the items of NAME's inbox or
      following collection as the herd stored them.
  herd.py object    --herd URL --db DIR --actor NAME --id OBJECT_ID
      Prints the object as the herd has it now (through NAME's proxyUrl:
      stored copy, e.g. after an Update, or a Tombstone after a Delete).
  herd.py reply     --herd URL --db DIR --actor NAME --target OBJECT_ID --content TEXT
      Posts a Create of a Note replying to OBJECT_ID (bovine's
      ObjectFactory.reply: inReplyTo it, addressed to its author) to NAME's
      outbox; the herd delivers it, signed. Prints the Create's id.
  herd.py like      --herd URL --db DIR --actor NAME --target OBJECT_ID
      Posts a Like of OBJECT_ID, addressed to its author. Prints its id.
  herd.py undo      --herd URL --db DIR --actor NAME --id ACTIVITY_ID
      Posts an Undo of NAME's own activity ACTIVITY_ID (e.g. a Follow),
      as bovine's ActivityFactory.undo makes it: the object by its id
      only, addressed as the activity was. Prints the Undo's id.

Exit status: 0 on success, 1 with one line on stderr otherwise.

What bovine-herd 0.5.19 needed, and what this script works around
-----------------------------------------------------------------
* Serving: `BovineHerd(Quart app, db_url=...)` wires everything; tortoise
  creates the tables itself (`generate_schemas=True`). We run it with
  hypercorn on a socket we bind ourselves (127.0.0.1, port 0 allowed) and
  hand over as `fd://N`, so the port is known before the actor is made.
* Plain http: nothing in the herd forces https for requests it serves:
  `bovine_herd/server/utils.py` `path_from_request` takes the request's own
  scheme (https only with `X-Forwarded-Proto: https`). The only hard-coded
  https is the WebFinger answer for the application actor `acct:bovine@`
  (`bovine_herd/server/wellknown.py` line 62), which nothing here uses.
  Actors must be registered with an http base: `BovineAdminStore(domain=
  "http://127.0.0.1:P")` keeps the scheme (it adds https only when the
  domain has no "://"). So an actor's URLs carry the port: restart a
  database on the same port.
* Outgoing requests to http://127.0.0.1 work: bovine and bovine-store have
  no scheme or private-address check (aiohttp plain sessions).
* Client-to-server auth: the herd accepts `Moo-Auth-1` (an Ed25519 did:key
  attached to the actor, as `python -m bovine_store key --new` does) or an
  HTTP signature whose key owner is the actor. We attach a did:key on first
  start, keep its secret in DIR/NAME.secret, and use `BovineClient(domain=
  HERD_URL, secret=...)`, which finds the actor by WebFinger on the did.
* The herd never auto-accepts Follows it receives (that is left to a
  client); as a follower it needs nothing extra: an Accept whose object is
  (or resolves to) our Follow adds the target to `following`.
* JSON-LD: the herd compacts every activity it stores with pyld; bovine's
  document loader knows the ActivityStreams context but fetches any other
  (e.g. https://w3id.org/security/v1, which actors name for `publicKey`)
  from the internet with a 60 s timeout, and caches the result, an empty
  context on failure, in ./bovine_jsonld_cache.sqlite of the *current
  folder*, opened when bovine is imported. We import bovine from inside DIR
  and seed security/v1 into that cache (did/v1 and multikey/v1, which the
  herd names in its own activities, as the empty context they load as
  offline), so nothing leaves loopback.
* WebFinger for acct: targets: bovine's lookup_uri_with_webfinger tries
  https://HOST (http only after a connection error with BUTCHER_ALLOW_HTTP
  set), so `follow` calls its lookup_with_webfinger on http://HOST itself.
* Signals: a child of a Swift test process inherits a mask with SIGTERM
  blocked; we unblock all signals first, or `serve` would never stop.
* The request log uses Quart's own `after_request` hook on the app we
  make; the failed deliveries are read from the warning bovine_process
  logs (`send_item.py`: "Sending to %s failed with %s", the aiohttp error
  carrying the status), through a logging handler of our own.
* No monkeypatching of site-packages was needed.
"""

import argparse
import asyncio
import json
import logging
import os
import re
import signal
import socket
import sys

# https://w3id.org/security/v1, the context Mastodon-style actors (and
# blogd's) name for `publicKey`; seeded so the herd never fetches it.
SECURITY_V1 = {
    "id": "@id", "type": "@type",
    "dc": "http://purl.org/dc/terms/",
    "sec": "https://w3id.org/security#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "EcdsaKoblitzSignature2016": "sec:EcdsaKoblitzSignature2016",
    "Ed25519Signature2018": "sec:Ed25519Signature2018",
    "EncryptedMessage": "sec:EncryptedMessage",
    "GraphSignature2012": "sec:GraphSignature2012",
    "LinkedDataSignature2015": "sec:LinkedDataSignature2015",
    "LinkedDataSignature2016": "sec:LinkedDataSignature2016",
    "CryptographicKey": "sec:Key",
    "authenticationTag": "sec:authenticationTag",
    "canonicalizationAlgorithm": "sec:canonicalizationAlgorithm",
    "cipherAlgorithm": "sec:cipherAlgorithm",
    "cipherData": "sec:cipherData",
    "cipherKey": "sec:cipherKey",
    "created": {"@id": "dc:created", "@type": "xsd:dateTime"},
    "creator": {"@id": "dc:creator", "@type": "@id"},
    "digestAlgorithm": "sec:digestAlgorithm",
    "digestValue": "sec:digestValue",
    "domain": "sec:domain",
    "encryptionKey": "sec:encryptionKey",
    "expiration": {"@id": "sec:expiration", "@type": "xsd:dateTime"},
    "expires": {"@id": "sec:expiration", "@type": "xsd:dateTime"},
    "initializationVector": "sec:initializationVector",
    "iterationCount": "sec:iterationCount",
    "nonce": "sec:nonce",
    "normalizationAlgorithm": "sec:normalizationAlgorithm",
    "owner": {"@id": "sec:owner", "@type": "@id"},
    "password": "sec:password",
    "privateKey": {"@id": "sec:privateKey", "@type": "@id"},
    "privateKeyPem": "sec:privateKeyPem",
    "publicKey": {"@id": "sec:publicKey", "@type": "@id"},
    "publicKeyBase58": "sec:publicKeyBase58",
    "publicKeyPem": "sec:publicKeyPem",
    "publicKeyWif": "sec:publicKeyWif",
    "publicKeyService": {"@id": "sec:publicKeyService", "@type": "@id"},
    "revoked": {"@id": "sec:revoked", "@type": "xsd:dateTime"},
    "salt": "sec:salt",
    "signature": "sec:signature",
    "signatureAlgorithm": "sec:signingAlgorithm",
    "signatureValue": "sec:signatureValue",
}


def prepare_bovine(db_dir):
    """bovine opens ./bovine_jsonld_cache.sqlite on import and fetches any
    JSON-LD context it lacks from the internet (60 s timeout, failures
    cached as an empty context): import it from inside DIR, offline."""
    os.chdir(db_dir)
    from bovine.jsonld import jsonld_cache

    jsonld_cache.cache["https://w3id.org/security/v1"] = SECURITY_V1
    # The herd names these in its own activities' @context; offline they
    # load as empty contexts anyway, so say so without trying the network.
    for url in ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"]:
        jsonld_cache.cache.setdefault(url, [])


def secret_path(db_dir, name):
    return os.path.join(db_dir, f"{name}.secret")


def db_url(db_dir):
    return "sqlite://" + os.path.join(db_dir, "herd.sqlite3")


async def ensure_actor(db_dir, name, base_url):
    """Registers NAME with an http base and a Moo-Auth key on first start;
    returns its actor id. Runs inside the app's tortoise connection."""
    from bovine.crypto import generate_ed25519_private_key, private_key_to_did_key
    from bovine_store import BovineAdminStore
    from bovine_store.models import BovineActor
    from bovine.types import Visibility

    store = BovineAdminStore(domain=base_url)
    existing = await BovineActor.get_or_none(handle_name=name)
    if existing is None:
        bovine_name = await store.register(name)
        secret = generate_ed25519_private_key()
        did_key = private_key_to_did_key(secret)
        await store.add_identity_string_to_actor(bovine_name, "harness", did_key)
        fd = os.open(secret_path(db_dir, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fp:
            fp.write(secret)
    else:
        bovine_name = existing.bovine_name
    actor = await store.actor_for_name(bovine_name)
    await actor.session.close()
    return actor.actor_object.build(visibility=Visibility.OWNER)


async def serve(args):
    from hypercorn.asyncio import serve as hypercorn_serve
    from hypercorn.config import Config
    from quart import Quart
    from bovine_herd import BovineHerd

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    port = sock.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}"

    app = Quart(__name__)
    BovineHerd(app, db_url=db_url(args.db))
    log_requests(app)
    logging.getLogger("bovine_process.send_item").addHandler(FailedDeliveries())

    # Registered after BovineHerd's hooks, so tortoise is up when it runs;
    # the socket already listens, so "ready" means connectable.
    @app.before_serving
    async def announce():
        first = None
        for name in args.actor or ["herd"]:
            actor = await ensure_actor(args.db, name, base_url)
            first = first or actor["id"]
            print(f"actor {name} {actor['id']} {actor['inbox']}", flush=True)
        print(f"ready {first} {base_url}", flush=True)

    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.accesslog = "-" if args.verbose else None
    config.errorlog = "-"
    await hypercorn_serve(app, config)


def signature_parameters(header):
    """A draft-cavage Signature header's parameters (keyId, headers, ...)."""
    return dict(re.findall(r'(\w+)="([^"]*)"', header or ""))


def log_requests(app):
    """One `request {JSON}` line for each signed request the herd answers:
    what blogd sends (its signature's header list, Digest, Accept) is seen
    on the wire, as the herd received it."""
    from quart import request

    @app.after_request
    async def log(response):
        signature = request.headers.get("signature")
        if signature:
            parameters = signature_parameters(signature)
            print("request " + json.dumps({
                "method": request.method, "path": request.path, "status": response.status_code,
                "accept": request.headers.get("accept"), "digest": request.headers.get("digest"),
                "content_type": request.headers.get("content-type"),
                "key_id": parameters.get("keyId"), "algorithm": parameters.get("algorithm"),
                "signed": parameters.get("headers"),
            }, sort_keys=True), flush=True)
        return response


class FailedDeliveries(logging.Handler):
    """bovine_process logs a delivery that failed (a refusal included:
    bovine raises on any status >= 400) and never retries it; this prints
    `delivery-failed STATUS INBOX` for the driving test."""

    def emit(self, record):
        if record.msg == "Sending to %s failed with %s" and len(record.args or ()) == 2:
            inbox, error = record.args
            print(f"delivery-failed {getattr(error, 'status', 0)} {inbox}", flush=True)


async def client_for(args):
    from bovine import BovineClient

    with open(secret_path(args.db, args.actor)) as fp:
        secret = fp.read().strip()
    client = BovineClient(domain=args.herd.rstrip("/"), secret=secret)
    await client.init()
    return client


async def resolve_target(session, target):
    """acct:NAME@HOST is looked up with bovine's own WebFinger client and
    JRD model, over http: bovine's lookup_uri_with_webfinger would try
    https://HOST first (bovine/clients/__init__.py), wrong for loopback."""
    if not target.startswith("acct:"):
        return target
    from bovine.clients.lookup_account import lookup_with_webfinger

    host = target.rsplit("@", 1)[1]
    actor_id = await lookup_with_webfinger(
        session, f"http://{host}/.well-known/webfinger", {"resource": target}
    )
    if not actor_id:
        raise RuntimeError(f"WebFinger found no activity+json self link for {target}")
    return actor_id


async def follow(args):
    client = await client_for(args)
    try:
        target = await resolve_target(client.session, args.target)
        print(await send(client, client.activity_factory.follow(target).build()))
    finally:
        await client.session.close()


async def send(client, activity):
    """POSTs activity to the client's outbox; the herd's id for it."""
    response = await client.send_to_outbox(activity)
    if response.status != 201:
        raise RuntimeError(f"outbox answered {response.status}: {await response.text()}")
    return response.headers.get("location", "")


async def reply(args):
    from bovine.activitystreams.utils import id_for_object

    client = await client_for(args)
    try:
        parent = await client.proxy(args.target)
        if id_for_object(parent.get("attributedTo")) is None:
            raise RuntimeError(f"{args.target} has no author: {parent}")
        note = client.object_factory.reply(parent, content=args.content).build()
        print(await send(client, client.activity_factory.create(note).build()))
    finally:
        await client.session.close()


async def like(args):
    from bovine.activitystreams.utils import id_for_object

    client = await client_for(args)
    try:
        parent = await client.proxy(args.target)
        author = id_for_object(parent.get("attributedTo"))
        if author is None:
            raise RuntimeError(f"{args.target} has no author: {parent}")
        print(await send(client, client.activity_factory.like(args.target, to={author}).build()))
    finally:
        await client.session.close()


async def undo(args):
    client = await client_for(args)
    try:
        activity = await client.proxy(args.id)
        if activity.get("id") != args.id:
            raise RuntimeError(f"the herd has no activity {args.id}: {activity}")
        print(await send(client, client.activity_factory.undo(activity).build()))
    finally:
        await client.session.close()


async def list_collection(args, key):
    client = await client_for(args)
    try:
        collection_id = client.information[key]
        async for item in client.collection_helper(collection_id, resolve=key == "inbox"):
            print(json.dumps(item, sort_keys=True), flush=True)
    finally:
        await client.session.close()


async def show_object(args):
    client = await client_for(args)
    try:
        print(json.dumps(await client.proxy(args.id), sort_keys=True))
    finally:
        await client.session.close()


def main():
    # A child of a test process (Swift's Foundation spawns from a thread
    # that blocks most signals) inherits a mask with SIGTERM blocked, and
    # would never stop: unblock everything.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve")
    p.add_argument("--db", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--actor", action="append", help="an actor to create (repeats; default: herd)")
    p.add_argument("--verbose", action="store_true")
    for name in ["follow", "inbox", "following", "object", "reply", "like", "undo"]:
        p = sub.add_parser(name)
        p.add_argument("--herd", required=True)
        p.add_argument("--db", required=True)
        p.add_argument("--actor", default="herd")
        if name in ["follow", "reply", "like"]:
            p.add_argument("--target", required=True)
        if name == "reply":
            p.add_argument("--content", required=True)
        if name in ["object", "undo"]:
            p.add_argument("--id", required=True)
    args = parser.parse_args()

    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
                        stream=sys.stderr)
    commands = {
        "serve": serve,
        "follow": follow,
        "inbox": lambda a: list_collection(a, "inbox"),
        "following": lambda a: list_collection(a, "following"),
        "object": show_object,
        "reply": reply,
        "like": like,
        "undo": undo,
    }
    try:
        args.db = os.path.abspath(args.db)
        if args.command == "serve":
            os.makedirs(args.db, exist_ok=True)
        prepare_bovine(args.db)
        asyncio.run(commands[args.command](args))
    except KeyboardInterrupt:
        pass
    except Exception as error:  # one line for the driving test
        print(f"herd.py {args.command}: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
