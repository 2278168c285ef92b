#!/usr/bin/env python3
"""IndieAuth in a real browser: Debian's chromium, headless, driven by
selenium over HTTPS against the real blogd binary, with a small app of
our own on loopback (http://127.0.0.1:PORT/, its client_id).

The app discovers the endpoints from the blog's page, sends the browser to
the authorization page with a PKCE challenge; the person (signed out) logs
in there, is brought back to the page, sees the app, unticks a scope and
approves; the browser lands on the app's callback (so the page's
form-action lets its redirect reach the app) with code, state and iss;
the app trades the code for a token, posts with Micropub, revokes the
token, and the token is refused. Exits non-zero on the first failure.

Usage: Tests/Browser/indieauth_test.py   (BLOGD_BIN: the blogd to run,
.build/debug/blogd by default). Needs what web_client_test.py needs.
"""
import base64
import hashlib
import http.server
import json
import os
import re
import secrets
import shutil
import ssl
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_client_test import WAIT, browser, check, free_port, register, start_blogd  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CONTEXT = ssl._create_unverified_context()


def request(url, form=None, token=None):
    """(status, headers, body) of a GET, or a form POST when `form` is given."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    req = urllib.request.Request(url, data=data)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, context=CONTEXT, timeout=WAIT) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def link(rel, page):
    match = re.search(r'<link rel="%s" href="([^"]+)"' % re.escape(rel), page)
    return match.group(1).replace("&amp;", "&") if match else None


class App:
    """The app's own web server: records what its callback receives."""

    def __init__(self):
        self.port = free_port()
        self.received = None
        app = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/callback"):
                    app.received = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
                body = b"<!DOCTYPE html><title>The app</title><h1>Back at the app</h1>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def client_id(self):
        return "http://127.0.0.1:%d/" % self.port

    @property
    def redirect_uri(self):
        return "http://127.0.0.1:%d/callback" % self.port


def main():
    folder = tempfile.mkdtemp(prefix="blogd-indieauth-")
    process = None
    driver = None
    app = App()
    try:
        process, base, public = start_blogd(folder)
        driver = browser(folder)
        wait = WebDriverWait(driver, WAIT)

        register(driver, wait, base)
        driver.find_element(By.ID, "logout").click()
        wait.until(EC.url_to_be(base + "/app/login"))

        # The app, given the blog's address, finds the server.
        me = base + "/alice.html"
        status, _, page = request(me)
        metadata_url = urllib.parse.urljoin(me, link("indieauth-metadata", page.decode()) or "")
        check(status == 200 and metadata_url.endswith("/.well-known/oauth-authorization-server"),
              "the blog's page names its IndieAuth metadata")
        status, _, body = request(metadata_url)
        metadata = json.loads(body)
        check(status == 200 and metadata["code_challenge_methods_supported"] == ["S256"], "the metadata, S256 only")

        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        state = secrets.token_urlsafe(12)
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": app.client_id, "redirect_uri": app.redirect_uri, "state": state,
            "code_challenge": challenge, "code_challenge_method": "S256", "scope": "create media profile", "me": me})
        driver.get(metadata["authorization_endpoint"] + "?" + query)

        # Signed out: the login form, then back to the app's request.
        wait.until(EC.url_contains("/app/login"))
        driver.find_element(By.ID, "name").send_keys("alice")
        driver.find_element(By.ID, "password").send_keys("correct horse")
        driver.find_element(By.ID, "submit").click()
        wait.until(EC.presence_of_element_located((By.ID, "approve")))
        check(driver.find_element(By.ID, "app-name").text == "127.0.0.1", "the page names the app (its host)")
        check(driver.find_element(By.ID, "client-id").text == app.client_id, "and its client_id")
        check(driver.find_element(By.ID, "scope-create").is_selected()
              and driver.find_element(By.ID, "scope-media").is_selected()
              and not driver.find_element(By.ID, "scope-delete").is_selected(), "the scopes asked for are ticked")
        driver.find_element(By.ID, "scope-media").click()
        driver.find_element(By.ID, "approve").click()
        wait.until(lambda d: app.received is not None)
        wait.until(EC.url_contains("127.0.0.1:%d/callback" % app.port))
        received = app.received
        check(received.get("state") == state and received.get("iss") == metadata["issuer"] and received.get("code"),
              "approved: the browser is at the app's callback with code, state and iss")

        status, _, body = request(metadata["token_endpoint"], {
            "grant_type": "authorization_code", "code": received["code"], "client_id": app.client_id,
            "redirect_uri": app.redirect_uri, "code_verifier": verifier})
        token = json.loads(body)
        check(status == 200 and token["me"] == me and token["scope"] == "create profile", "the code for a token")
        status, headers, _ = request(base + "/micropub", {"h": "entry", "content": "Posted by an app"},
                                     token=token["access_token"])
        check(status == 201, "a Micropub post with the token")
        driver.get(base + "/alice.html")
        check("Posted by an app" in driver.page_source, "the post is on the blog")
        driver.get(base + "/app/settings")
        check(app.client_id in driver.page_source, "the app's token is listed in Settings")

        status, _, _ = request(metadata["revocation_endpoint"], {"token": token["access_token"]})
        check(status == 200, "revoked")
        status, _, _ = request(base + "/micropub", {"h": "entry", "content": "Too late"}, token=token["access_token"])
        check(status == 403, "the revoked token is refused")
        print("indieauth browser test passed")
    finally:
        if driver:
            driver.quit()
        if process:
            process.terminate()
            process.wait(timeout=WAIT)
        app.server.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # one line, then the status CI reads
        print("not ok -", error, file=sys.stderr)
        sys.exit(1)
