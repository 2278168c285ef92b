#!/usr/bin/env python3
"""The web client in a real browser: Debian's chromium, headless, at a
phone's width, driven by selenium over HTTPS against the real blogd binary.

A person registers, posts with a photo and a place taken from the browser's
(emulated) location, sees the post and its photo (served without its GPS or
camera, checked with exiftool) on the public page, edits it, deletes it (its
page then answers 410 Gone), restores it from the Trash (200 again), deletes
it again and logs out. Exits non-zero on the first failure.

Usage: Tests/Browser/web_client_test.py   (BLOGD_BIN: the blogd to run,
.build/debug/blogd by default). Needs chromium, chromium-driver,
python3-selenium, openssl, libvips-tools and exiftool (Debian's packages).
"""
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLOGD = os.path.abspath(os.environ.get("BLOGD_BIN", os.path.join(ROOT, ".build/debug/blogd")))
WAIT = 60  # seconds: generous, for a busy machine


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(url):
    context = ssl._create_unverified_context()
    try:
        with urllib.request.urlopen(url, context=context, timeout=WAIT) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def fetch(url):
    with urllib.request.urlopen(url, context=ssl._create_unverified_context(), timeout=WAIT) as response:
        return response.read()


def make_photo(folder):
    """A JPEG with a camera and a GPS position, made by libvips and exiftool."""
    path = os.path.join(folder, "camera.jpg")
    subprocess.run(["vips", "black", path, "800", "600", "--bands", "3"], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-Model=SpyCam 9", "-GPSLatitude=48.8584",
                    "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", path], check=True)
    return path


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print("ok -", what)


def start_blogd(folder):
    public = os.path.join(folder, "public")
    os.makedirs(public)
    shutil.copy(os.path.join(ROOT, "public/style.css"), public)
    subprocess.run([os.path.join(ROOT, "scripts/make-tls-certificate.sh"), os.path.join(folder, "tls")],
                   check=True, stdout=subprocess.DEVNULL)
    port, http, https = free_port(), free_port(), free_port()
    env = dict(os.environ,
               BLOGD_DB=os.path.join(folder, "blog.sqlite"), BLOGD_PUBLIC=public, BLOGD_HOST="127.0.0.1",
               BLOGD_PORT=str(port), BLOGD_HTTP_PORT=str(http), BLOGD_HTTPS_PORT=str(https),
               BLOGD_TLS_CERTIFICATE=os.path.join(folder, "tls/blog.crt"),
               BLOGD_TLS_KEY=os.path.join(folder, "tls/blog.key"),
               BLOGD_BASE_URL="https://localhost:%d/" % https, BLOGD_SCRYPT_LOG_N="10")
    log = open(os.path.join(folder, "blogd.log"), "w")
    process = subprocess.Popen([BLOGD, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    base = "https://localhost:%d" % https
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError("blogd ended: " + open(os.path.join(folder, "blogd.log")).read())
        try:
            if status(base + "/healthz") == 200:
                return process, base, public
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError("blogd did not answer on " + base)


def browser(folder):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--ignore-certificate-errors",
                     "--window-size=390,844", "--user-data-dir=" + os.path.join(folder, "chromium")):
        options.add_argument(argument)
    # A phone: narrow, touch, its user agent.
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0},
        "userAgent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def register(driver, wait, base):
    """Registers alice in the browser: signed in, at the web client's top."""
    driver.get(base + "/app/register")
    driver.find_element(By.ID, "name").send_keys("alice")
    driver.find_element(By.ID, "password").send_keys("correct horse")
    driver.find_element(By.ID, "submit").click()
    wait.until(EC.url_to_be(base + "/app/"))


def main():
    folder = tempfile.mkdtemp(prefix="blogd-browser-")
    process = None
    driver = None
    try:
        process, base, public = start_blogd(folder)
        driver = browser(folder)
        wait = WebDriverWait(driver, WAIT)

        register(driver, wait, base)
        check("My posts" in driver.page_source, "registered and signed in")
        cookie = driver.get_cookie("__Host-blogd_session")
        check(cookie and cookie["httpOnly"] and cookie["secure"] and cookie.get("sameSite") == "Lax",
              "the session cookie is __Host-, HttpOnly, Secure and SameSite=Lax")
        check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"),
              "no sideways scrolling at a phone's width")

        # The place from the browser's location, which the author asks for.
        origin = base
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["geolocation"]})
        driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                               {"latitude": 59.3293, "longitude": 18.0686, "accuracy": 10})
        driver.find_element(By.ID, "title").send_keys("From my phone")
        driver.find_element(By.ID, "content").send_keys("Written in a browser.\nSecond line.")
        driver.find_element(By.ID, "photo").send_keys(make_photo(folder))
        driver.find_element(By.ID, "alt").send_keys("A black square")
        driver.find_element(By.CSS_SELECTOR, "details.place-fields summary").click()
        driver.find_element(By.ID, "locate").click()
        wait.until(lambda d: d.find_element(By.ID, "latitude").get_attribute("value") != "")
        check(driver.find_element(By.ID, "latitude").get_attribute("value") == "59.329300", "the location filled in")
        driver.find_element(By.ID, "publish").click()
        wait.until(EC.url_contains("done=posted"))
        check("Published." in driver.page_source, "posted")

        # A photo over the limit: the browser shows the form as typed, not a reset.
        big = os.path.join(folder, "big.jpg")
        with open(big, "wb") as file:
            file.write(b"\xff" * (12 << 20))
        driver.find_element(By.ID, "title").send_keys("Too big")
        driver.find_element(By.ID, "content").send_keys("Kept text.")
        driver.find_element(By.ID, "photo").send_keys(big)
        driver.find_element(By.ID, "publish").click()
        wait.until(lambda d: "at most 10 MiB" in d.page_source)
        check(driver.find_element(By.ID, "title").get_attribute("value") == "Too big"
              and driver.find_element(By.ID, "content").get_attribute("value") == "Kept text.",
              "a photo over the limit: the form comes back as typed, the limit named")

        # A new password: this browser stays signed in.
        driver.get(base + "/app/settings")
        driver.find_element(By.ID, "old-password").send_keys("correct horse")
        driver.find_element(By.ID, "new-password").send_keys("battery staple")
        driver.find_element(By.ID, "new-password-again").send_keys("battery staple")
        driver.find_element(By.ID, "change-password").click()
        wait.until(EC.url_contains("done=password"))
        check("Password changed" in driver.page_source, "the password changed; still signed in")

        driver.get(base + "/alice.html")
        check("From my phone" in driver.page_source, "the post is on the public page")
        driver.find_element(By.LINK_TEXT, "From my phone").click()
        wait.until(EC.url_matches(r"/alice/\d+\.html$"))
        post_url = driver.current_url
        check("openstreetmap.org" in driver.page_source, "the post's page links its place on OpenStreetMap")
        images = driver.find_elements(By.CSS_SELECTOR, "figure.photos img")
        check(len(images) == 1 and driver.execute_script("return arguments[0].naturalWidth", images[0]) > 0,
              "the post's page shows the photo")
        check(images[0].get_attribute("alt") == "A black square", "with its alt text")
        photo_url = images[0].find_element(By.XPATH, "..").get_attribute("href")
        check(photo_url.endswith(".jpg") and status(photo_url) == 200, "the full photo is served")
        tags = subprocess.run(["exiftool", "-j", "-a", "-G1", "-"], input=fetch(photo_url), capture_output=True).stdout
        check(b"GPS" not in tags and b"SpyCam" not in tags, "the served photo carries no GPS and no camera")

        driver.get(base + "/app/")
        driver.find_element(By.CSS_SELECTOR, "ul.my-posts a.edit").click()
        title = driver.find_element(By.ID, "title")
        title.clear()
        title.send_keys("From my phone, edited")
        check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"),
              "the edit form, with its photo, needs no sideways scrolling")
        alt = driver.find_element(By.CSS_SELECTOR, "fieldset.photo-fields input[id^='alt-']")
        check(alt.get_attribute("value") == "A black square", "the edit form shows the photo's alt text")
        alt.clear()
        alt.send_keys("A very black square")
        driver.find_element(By.ID, "publish").click()
        wait.until(EC.url_contains("done=edited"))
        driver.get(post_url)
        check("From my phone, edited" in driver.page_source and "edited" in driver.page_source.lower(),
              "the edit is on the post's page")
        check(driver.find_element(By.CSS_SELECTOR, "figure.photos img").get_attribute("alt") == "A very black square",
              "the edited alt text is on the post's page")

        driver.get(base + "/app/")
        driver.find_element(By.CSS_SELECTOR, "ul.my-posts button.delete").click()
        wait.until(EC.url_contains("done=deleted"))
        check("No posts yet." in driver.page_source, "deleted from my posts")
        check(status(post_url) == 410, "the deleted post's page answers 410 Gone")

        driver.get(base + "/app/trash")
        driver.find_element(By.CSS_SELECTOR, "ul.trash button.restore").click()
        wait.until(EC.url_contains("done=restored"))
        check("The trash is empty." in driver.page_source, "restored out of the trash")
        check(status(post_url) == 200, "the restored post's page is back at its URL")
        driver.get(base + "/app/")
        driver.find_element(By.CSS_SELECTOR, "ul.my-posts button.delete").click()
        wait.until(EC.url_contains("done=deleted"))
        check(status(post_url) == 410, "deleted again: 410 Gone")

        driver.find_element(By.ID, "logout").click()
        wait.until(EC.url_to_be(base + "/app/login"))
        driver.get(base + "/app/")
        check(driver.current_url == base + "/app/login", "logged out: my posts ask for a login again")
        print("browser test passed")
    finally:
        if driver:
            driver.quit()
        if process:
            process.terminate()
            process.wait(timeout=WAIT)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # one line, then the status CI reads
        print("not ok -", error, file=sys.stderr)
        sys.exit(1)
