"""Reads a blogd blog as a fediverse server would, with bovine's parsers
(PyPI), and checks what Mastodon documents it requires: WebFinger with a
`self` link of type application/activity+json, an actor with inbox,
outbox, preferredUsername and publicKey.publicKeyPem (id and owner
matching), the page's alternate link to its object, NodeInfo 2.0.

    python ap_check.py http://127.0.0.1:PORT/ https://blog.example/ alice POST_ID

The site's documents name its base URL (the second argument); they are
fetched from the first. Prints one "ok ..." line per check; exits 1 with
the reason on the first failure.
"""
import json
import os
import sys
import tempfile
import urllib.request

# bovine keeps fetched JSON-LD contexts in a SQLite file in the working
# folder: a fresh one, seeded with the security context (no network here).
os.chdir(tempfile.mkdtemp())
from bovine.jsonld import jsonld_cache  # noqa: E402
from bovine.parse import Actor, Object  # noqa: E402
from bovine.types.jrd import JrdData  # noqa: E402
from bovine.types.nodeinfo import NodeInfo  # noqa: E402
from bovine.utils import activity_pub_object_id_from_html_body  # noqa: E402

jsonld_cache.add("https://w3id.org/security/v1", {
    "sec": "https://w3id.org/security#",
    "publicKey": {"@id": "sec:publicKey", "@type": "@id"},
    "publicKeyPem": "sec:publicKeyPem",
    "owner": {"@id": "sec:owner", "@type": "@id"},
})
for url in ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"]:
    jsonld_cache.add(url, [])

server, base, user, post_id = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
host = base.split("://", 1)[1].rstrip("/")
# What Mastodon sends when it fetches an actor or an object.
MASTODON_ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def fetch(url, accept):
    local = url.replace(base, server) if url.startswith(base) else url
    request = urllib.request.Request(local, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.headers.get("Content-Type", ""), response.read().decode("utf-8")


def fetch_json(url, accept=MASTODON_ACCEPT):
    kind, body = fetch(url, accept)
    return kind, json.loads(body)


# WebFinger, as Mastodon asks it.
kind, jrd = fetch_json(base + ".well-known/webfinger?resource=acct:%s@%s" % (user, host), "application/jrd+json")
if not kind.startswith("application/jrd+json"):
    fail("webfinger type " + kind)
JrdData.model_validate(jrd)
links = [link for link in jrd.get("links", []) if link.get("rel") == "self"
         and link.get("type") == "application/activity+json"]
if not links:
    fail("webfinger has no self link of type application/activity+json")
actor_id = links[0]["href"]
print("ok webfinger " + jrd["subject"] + " -> " + actor_id)

# The actor.
kind, data = fetch_json(actor_id)
if not kind.startswith("application/activity+json"):
    fail("actor type " + kind)
actor = Actor(data, domain=host)
if actor.id != actor_id:
    fail("actor id %s is not the webfinger link %s" % (actor.id, actor_id))
pem = actor.publicKeyPem(actor_id + "#main-key")
if not pem or "BEGIN PUBLIC KEY" not in pem:
    fail("no publicKeyPem")
if actor.unvalidated_acct_uri != jrd["subject"]:
    fail("preferredUsername@host %s is not the webfinger subject %s" % (actor.unvalidated_acct_uri, jrd["subject"]))
for field in ["inbox", "outbox", "followers", "following", "preferredUsername"]:
    if not isinstance(data.get(field), str):
        fail("actor without " + field)
print("ok actor " + actor.id + " key " + data["publicKey"]["id"])

# A post's page names its object; the object is a Note by the actor.
_, page = fetch(base + "%s/%s.html" % (user, post_id), BROWSER_ACCEPT)
object_id = activity_pub_object_id_from_html_body(page)
if not object_id:
    fail("the post page has no alternate link to its object")
kind, data = fetch_json(object_id)
note = Object(data, domain=host)
if data.get("type") != "Note" or note.attributed_to_id != actor_id:
    fail("object %s is not a Note by the actor" % object_id)
if not any(tag.get("type") == "Hashtag" for tag in note.tags):
    fail("the Note has no Hashtag")
print("ok note " + note.identifier + " tags " + ",".join(tag["name"] for tag in note.tags))

# The page's URL fetched as ActivityPub: the same object (a pasted URL).
_, same = fetch_json(base + "%s/%s.html" % (user, post_id))
if same.get("id") != object_id:
    fail("the post page's URL fetched as JSON is %s" % same.get("id"))
_, blog = fetch(base + user + ".html", BROWSER_ACCEPT)
if activity_pub_object_id_from_html_body(blog) != actor_id:
    fail("the blog page does not link its actor")
print("ok pages link " + object_id + " and " + actor_id)

# The outbox and its first page.
_, outbox = fetch_json(data["attributedTo"] + "/outbox")
if outbox.get("type") != "OrderedCollection" or not isinstance(outbox.get("totalItems"), int):
    fail("outbox is not an OrderedCollection with totalItems")
_, first = fetch_json(outbox["first"])
items = first.get("orderedItems", [])
if first.get("type") != "OrderedCollectionPage" or not all(item.get("type") == "Create" for item in items):
    fail("outbox page is not an OrderedCollectionPage of Creates")
print("ok outbox %d items, first page %d" % (outbox["totalItems"], len(items)))

# NodeInfo: the well-known links, then the 2.0 document by its schema.
_, wellknown = fetch_json(base + ".well-known/nodeinfo", "application/json")
schema20 = [link["href"] for link in wellknown["links"]
            if link["rel"] == "http://nodeinfo.diaspora.software/ns/schema/2.0"]
if not schema20:
    fail("no nodeinfo 2.0 link")
_, info = fetch_json(schema20[0], "application/json")
NodeInfo.model_validate(info)
print("ok nodeinfo %s %s users %d posts %d" % (info["software"]["name"], info["software"]["version"],
                                               info["usage"]["users"]["total"], info["usage"]["localPosts"]))
