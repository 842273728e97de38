#!/usr/bin/env python3
"""The served page in a real browser: Debian's chromium, headless, driven by selenium through
chromium-driver. Three runs of estuary, each serving on a free port:

A. `--headless --no-ui`, a 3D simulation on the CPU backend (a drag orbits the camera):
  1. the page connects and frames arrive and change (the simulation runs);
  2. headless chromium's WebCodecs is asked about H.264 (negotiation): the page says what it
     found, and the stream falls back to JPEG, which it shows; ?codec=jpeg forces the fallback;
  3. Space in the page pauses the simulation: the picture stops changing;
  4. a drag turns the camera: the paused picture changes;
  5. resizing the browser's window resizes the served picture to the page's size;
  5b. a page opened with ?stamp (the codec this chromium negotiates) and then one with
     ?codec=jpeg&stamp read the frame stamp back from each decoded frame they drew: the ids
     increase, each is the id of the frame's metadata, none is lost once they start, and the
     server's stamp latencies of them come back;
  6. SIGINT: estuary exits 130 and the page sees a clean close (1000 or 1001).
B. `--headless`, 2D gray-scott with the panels drawn into the served picture (JPEG, whose 16x16
   blocks change only where the picture does):
  7. Space pauses: the field holds still;
  8. a brush stroke paints: the field changes under the stroke and nowhere else;
  9. the pick readout under the cursor comes back to the page;
  10. a click on the Simulation panel's Pause box (ImGui) sets the simulation running again.
C. a window (Xvfb) serving its swapchain's picture, panels included, under the validation layer:
  11. a click on the Pause box pauses (the field holds still) and a second one resumes it; SIGINT
      ends the run (130) with no validation message.

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


def start_estuary(estuary, flags, cwd):
    """estuary serving on a free port, and the URL it printed."""
    process = subprocess.Popen([estuary] + flags + ["--serve", f"127.0.0.1:{free_port()}"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               cwd=cwd)
    line = ""
    while "serving at" not in line:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"estuary ended before serving (exit {process.wait()})")
        print(line, end="")
    return process, line.split("serving at ", 1)[1].strip()


def stop_estuary(process, what):
    """SIGINT: exit 130; returns what it printed."""
    process.send_signal(signal.SIGINT)
    code = process.wait(timeout=60)
    rest = process.stdout.read()
    print(rest, end="")
    assert code == 130, f"{what} exited {code} after SIGINT, not 130"
    return rest


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

    work = tempfile.mkdtemp(prefix="estuary-browser-")
    app = painted = window = browser = None
    try:
        app, url = start_estuary(
            args.estuary,
            ["--sim", "gray-scott-3d", "--headless", "--backend", "cpu", "--size", "32x32x32",
             "--resolution", "256x192", "--fps-cap", "30", "--no-ui",
             "--screenshot", os.path.join(work, "last.png")], work)

        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync",
                     f"--user-data-dir={os.path.join(work, 'profile')}",
                     "--window-size=1000,800"):
            options.add_argument(flag)
        browser = webdriver.Chrome(service=Service(driver), options=options)
        browser.set_script_timeout(10)
        state = lambda key: browser.execute_script(f"return window.estuary.{key};")
        picture = lambda *region: browser.execute_script(
            "return window.estuaryPictureHash(...arguments);", *region)
        canvas = lambda: browser.find_element(By.ID, "view")

        def at(x, y):
            """ActionChains that put the pointer on picture pixel (x, y)."""
            dx, dy = browser.execute_script("return window.estuaryScreenOffset(...arguments);",
                                            x, y)
            return ActionChains(browser).move_to_element_with_offset(canvas(), dx, dy)

        def held_still(*region):
            """Frames drain and H.264 refines a still scene for a few frames: wait (bounded) for
            the picture (or a region of it) to hold still for a second while frames arrive; a
            running simulation changes it every frame and never does."""
            def still():
                before, frames = picture(*region), state("frames")
                time.sleep(1.0)
                return picture(*region) == before and state("frames") > frames and before
            return still

        def press(key):
            browser.execute_script("document.getElementById('view').focus();")
            ActionChains(browser).send_keys(key).perform()

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
        press(" ")
        paused = wait_for("the picture to hold still after Space", held_still(), 20)
        print("Space paused the simulation")

        # 4. A drag turns the camera: the paused picture changes.
        at(128, 96).click_and_hold().move_by_offset(60, 10).move_by_offset(60, 10) \
            .release().perform()
        wait_for("the picture to change after a drag", lambda: picture() != paused, 10)
        print("a drag turned the camera")

        # 5. The browser's window resized: the served picture follows the page's size.
        assert (state("width"), state("height")) == (256, 192), "the picture starts at 256x192"
        browser.set_window_size(700, 500)
        inner = browser.execute_script(
            "return [Math.round(innerWidth * devicePixelRatio),"
            " Math.round(innerHeight * devicePixelRatio)];")
        expected = (inner[0] // 2 * 2, inner[1] // 2 * 2)
        wait_for(f"frames of the page's size {expected}",
                 lambda: (state("width"), state("height")) == expected, 15)
        print(f"the window resized: the served picture is now {expected[0]}x{expected[1]}")

        def stamps_read_back(what):
            """The page's stamps, read from the frames it decoded and drew, and the server's
            latencies of them; returns (stamps read, the latencies)."""
            wait_for(f"{what}: stamps read back", lambda: state("stamp")["read"] >= 20, 30)
            wait_for(f"{what}: the server's stamp latencies",
                     lambda: len(state("stampLatencyMs")) >= 10, 15)
            stamp, stats = state("stamp"), state("serveStats")
            assert stamp["mismatched"] == 0, f"{what}: ids unlike the metadata's: {stamp}"
            assert stamp["backwards"] == 0, f"{what}: ids that did not increase: {stamp}"
            assert stamp["lost"] == 0, f"{what}: unreadable stamps after the first: {stamp}"
            assert stats["stamp_on"] and stats["stamps_mismatched"] == 0, stats
            latencies = sorted(state("stampLatencyMs"))
            assert all(ms > 0 for ms in latencies), latencies
            return stamp["read"], latencies

        # 5b. The stamp read back from the decoded frames, in a page that watches.
        browser.switch_to.new_window("tab")
        browser.get(url + ("&" if "?" in url else "?") + "stamp")
        wait_for("frames in the stamp page", lambda: (state("frames") or 0) > 3)
        negotiated = state("codec")
        read, latencies = stamps_read_back(f"?stamp ({negotiated})")
        print(f"?stamp ({negotiated}): {read} stamps read back, server stamp latency "
              f"p50 {latencies[len(latencies) // 2]:.1f} ms, max {latencies[-1]:.1f} ms "
              f"({len(latencies)} samples)")
        browser.close()
        browser.switch_to.window(browser.window_handles[0])

        # 2b. ?codec=jpeg forces the fallback, in a second page that watches (and reads stamps).
        browser.switch_to.new_window("tab")
        browser.get(url + ("&" if "?" in url else "?") + "codec=jpeg&stamp")
        wait_for("frames in the second page", lambda: (state("frames") or 0) > 3)
        assert state("h264") is False and state("codec") == "jpeg"
        assert not state("steering"), "the second page watches"
        read, latencies = stamps_read_back("?codec=jpeg&stamp")
        print(f"?codec=jpeg: JPEG frames shown in a watching page; {read} stamps read back, "
              f"server stamp latency p50 {latencies[len(latencies) // 2]:.1f} ms, max "
              f"{latencies[-1]:.1f} ms ({len(latencies)} samples)")

        # 6. SIGINT: exit 130, and the page sees the server close cleanly.
        rest = stop_estuary(app, "estuary")
        assert f"wrote {os.path.join(work, 'last.png')} ({expected[0]}x{expected[1]})" in rest, \
            "the last picture is the page's size"
        close = wait_for("the page's close", lambda: state("closeCode"), 10)
        assert close in (1000, 1001), f"the page saw close code {close}"
        print(f"SIGINT: exit 130, the page saw close code {close}")
        browser.close()
        browser.switch_to.window(browser.window_handles[0])
        browser.set_window_size(1000, 800)

        # B. 2D gray-scott, panels drawn: the brush, the pick readout and the panel's Pause box.
        # At 800x600 the Simulation panel takes the left, Performance the top right; the field
        # shows between x 310 and 700, y 310 and 545 (4.7 pixels a cell).
        painted, url = start_estuary(
            args.estuary, ["--headless", "--backend", "cpu", "--size", "128x128",
                           "--resolution", "800x600", "--fps-cap", "30",
                           "--screenshot", os.path.join(work, "painted.png")], work)
        browser.get(url + ("&" if "?" in url else "?") + "codec=jpeg")
        wait_for("frames of the 2D run", lambda: (state("frames") or 0) > 5)
        stroke, elsewhere = (352, 384, 96, 32), (560, 480, 96, 32)  # 16x16 JPEG blocks
        press(" ")
        wait_for("the field to hold still after Space", held_still(330, 320, 360, 220), 20)
        before, other = picture(*stroke), picture(*elsewhere)
        at(340, 400).click_and_hold().move_by_offset(30, 0).move_by_offset(30, 0) \
            .move_by_offset(30, 0).move_by_offset(30, 0).release().perform()
        wait_for("the field to change under the brush stroke",
                 lambda: picture(*stroke) != before, 10)
        wait_for("the painted field to hold still", held_still(*stroke), 10)
        assert picture(*elsewhere) == other, "the stroke changed the field away from it"
        print("a brush stroke painted the paused field where it was drawn, and only there")

        at(600, 500).perform()
        probe = wait_for("the pick readout under the cursor",
                         lambda: (state("pick") or {}).get("probe"), 10)
        assert len(probe["values"]) >= 1 and 100 <= probe["x"] <= 128, probe
        shown = browser.find_element(By.ID, "pick").text
        assert f"({probe['x']}, {probe['y']})" in shown, shown
        print(f"the pick readout under the cursor: {shown}")

        at(27, 46).click().perform()  # the Simulation panel's "Pause (space)" box
        wait_for("the field to change after a click on the panel's Pause box",
                 lambda: picture(*elsewhere) != other, 10)
        print("a click on the panel's Pause box set the simulation running again")
        stop_estuary(painted, "the 2D run")

        # C. The window's picture, served, panels included, with validation on.
        window, url = start_estuary(
            args.estuary, ["--backend", "cpu", "--size", "64x64", "--resolution", "640x480",
                           "--fps-cap", "30", "--validate"], work)
        browser.get(url + ("&" if "?" in url else "?") + "codec=jpeg")
        wait_for("frames of the window", lambda: (state("frames") or 0) > 5)
        field = (336, 320, 160, 80)
        running = picture(*field)
        wait_for("the window's field to change", lambda: picture(*field) != running, 10)
        at(27, 46).click().perform()
        still = wait_for("the window's field to hold still after a click on Pause",
                         held_still(*field), 20)
        at(27, 46).click().perform()
        wait_for("the window's field to change after a second click",
                 lambda: picture(*field) != still, 10)
        print("in the window, the page's clicks on the panel's Pause box paused and resumed")
        rest = stop_estuary(window, "the windowed run")
        assert "validation layer reported 0 message(s)" in rest
        print("the window's picture is served, validation clean")
        print("PASS")
        return 0
    finally:
        if browser:
            browser.quit()
        for process in (app, painted, window):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
