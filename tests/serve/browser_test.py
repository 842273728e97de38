#!/usr/bin/env python3
"""The served page in a real browser: Debian's chromium, headless, driven by selenium through
chromium-driver. Starts `estuary --headless --serve` on a free port (a 3D simulation on the CPU
backend, so that a drag orbits the camera) and checks, in order:

  1. the page connects and frames arrive and change (the simulation runs);
  2. headless chromium's WebCodecs is asked about H.264 (negotiation): the page says what it
     found, and the stream falls back to JPEG, which it shows; ?codec=jpeg forces the fallback;
  3. Space in the page pauses the simulation: the picture stops changing;
  4. a drag turns the camera: the paused picture changes;
  5. SIGINT: estuary exits 130 and the page sees a clean close (1000 or 1001);
  6. a windowed run (Xvfb) serves its swapchain's picture, panels included, under the validation
     layer: frames arrive, the run ends by itself with exit 0 and no validation message.

Exit 77 (ctest's SKIP_RETURN_CODE) only when chromium, its driver or selenium is missing.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(SKIP)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, predicate, seconds=30.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--estuary", required=True, help="the estuary executable")
    args = parser.parse_args()
    args.estuary = os.path.abspath(args.estuary)

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        skip("chromium and chromium-driver are not installed (apt-get install chromium "
             "chromium-driver python3-selenium)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
    except ImportError:
        skip("python3-selenium is not installed")

    port = free_port()
    work = tempfile.mkdtemp(prefix="estuary-browser-")
    app = subprocess.Popen(
        [args.estuary, "--sim", "gray-scott-3d", "--headless", "--backend", "cpu",
         "--size", "32x32x32", "--resolution", "256x192", "--fps-cap", "30",
         "--screenshot", os.path.join(work, "last.png"), "--serve", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=work)
    browser = window = None
    try:
        line = ""
        while "serving at" not in line:
            line = app.stdout.readline()
            if not line:
                raise AssertionError(f"estuary ended before serving (exit {app.wait()})")
            print(line, end="")
        url = line.split("serving at ", 1)[1].strip()

        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync",
                     f"--user-data-dir={os.path.join(work, 'profile')}",
                     "--window-size=800,600"):
            options.add_argument(flag)
        browser = webdriver.Chrome(service=Service(driver), options=options)
        browser.set_script_timeout(10)
        state = lambda key: browser.execute_script(f"return window.estuary.{key};")
        picture = lambda: browser.execute_script("return window.estuaryPictureHash();")

        # 1. Frames arrive and change.
        browser.get(url)
        wait_for("frames", lambda: (state("frames") or 0) > 5)
        first = picture()
        wait_for("the picture to change (the simulation runs)", lambda: picture() != first)
        print(f"frames arrive and change ({state('frames')} so far)")

        # 2. Negotiation: whatever WebCodecs says, a page that cannot decode H.264 gets JPEG.
        h264 = state("h264")
        codec = state("codec")
        print(f"WebCodecs H.264 in this chromium: {h264}; the stream is {codec}")
        assert codec in ("jpeg", "h264"), codec
        if not h264:
            assert codec == "jpeg", "a page without H.264 must get JPEG"
        assert state("steering"), "the first page steers"

        # 3. Space pauses the simulation: the picture stops changing.
        canvas = browser.find_element(By.ID, "view")
        ActionChains(browser).move_to_element(canvas).click().perform()
        ActionChains(browser).send_keys(" ").perform()

        # Frames in flight drain, and H.264 keeps refining a still scene for a few frames, so
        # wait (bounded) for the picture to hold still for a second while frames keep arriving;
        # a running simulation changes it every frame and never does.
        def held_still():
            before, frames = picture(), state("frames")
            time.sleep(1.0)
            return picture() == before and state("frames") > frames and before
        paused = wait_for("the picture to hold still after Space", held_still, 20)
        print("Space paused the simulation")

        # 4. A drag turns the camera: the paused picture changes.
        ActionChains(browser).move_to_element(canvas).click_and_hold() \
            .move_by_offset(60, 10).move_by_offset(60, 10).release().perform()
        wait_for("the picture to change after a drag", lambda: picture() != paused, 10)
        print("a drag turned the camera")

        # 2b. ?codec=jpeg forces the fallback, in a second page that watches.
        browser.switch_to.new_window("tab")
        browser.get(url + ("&" if "?" in url else "?") + "codec=jpeg")
        wait_for("frames in the second page", lambda: (state("frames") or 0) > 3)
        assert state("h264") is False and state("codec") == "jpeg"
        assert not state("steering"), "the second page watches"
        print("?codec=jpeg: JPEG frames shown in a watching page")

        # 5. SIGINT: exit 130, and the page sees the server close cleanly.
        app.send_signal(signal.SIGINT)
        code = app.wait(timeout=30)
        print(app.stdout.read(), end="")
        assert code == 130, f"estuary exited {code} after SIGINT, not 130"
        close = wait_for("the page's close", lambda: state("closeCode"), 10)
        assert close in (1000, 1001), f"the page saw close code {close}"
        print(f"SIGINT: exit 130, the page saw close code {close}")

        # 6. The window's picture, served, with validation on.
        port = free_port()
        window = subprocess.Popen(
            [args.estuary, "--backend", "cpu", "--size", "64x64", "--resolution", "200x150",
             "--fps-cap", "30", "--frames", "150", "--validate", "--serve", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=work)
        line = ""
        while "serving at" not in line:
            line = window.stdout.readline()
            if not line:
                raise AssertionError(f"the windowed estuary ended before serving ({window.wait()})")
        browser.get(line.split("serving at ", 1)[1].strip())
        wait_for("frames of the window", lambda: (state("frames") or 0) > 5)
        rest = window.communicate(timeout=60)[0]
        print(rest, end="")
        assert window.returncode == 0, f"the windowed run exited {window.returncode}"
        assert "validation layer reported 0 message(s)" in rest
        print("the window's picture is served, validation clean")
        print("PASS")
        return 0
    finally:
        if browser:
            browser.quit()
        for process in (app, window):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
