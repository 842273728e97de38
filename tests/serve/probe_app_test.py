#!/usr/bin/env python3
"""estuary_serve_probe against the estuary program: `estuary --headless --serve` on a free port
(the CPU backend, so any Vulkan will do), the probe watching it for a few seconds as a page
would. Checks that the probe's JSON report (written atomically to --report) has frames of the
program's picture size, the server's encoder, and, with --stamp, the frame stamp read back from
every decoded frame (its ids those of the frames' metadata) and the server's latencies from the
probe's reports of the stamps it read and of the frames it got; that at a display's pace a
frame reaches the page about one frame interval after it is drawn, not after the whole ring;
then that a bad URL is refused with exit 2 and nothing written.
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(estuary, tmp, *extra):
    """estuary serving headless on a free port, and the URL it printed."""
    port = free_port()
    app = subprocess.Popen(
        [estuary, "--headless", "--backend", "cpu", "--resolution", "320x240",
         "--serve", f"127.0.0.1:{port}", "--screenshot", os.path.join(tmp, "shot.png"), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp)
    url = None
    end = time.monotonic() + 60
    while url is None and time.monotonic() < end:
        line = app.stdout.readline()
        if not line:
            break
        print(line, end="")
        match = re.search(r"serving at (\S+)", line)
        if match:
            url = match.group(1)
    if not url:
        app.kill()
        raise AssertionError("estuary never printed the URL it serves at")
    return app, url


def stop_app(app):
    app.send_signal(signal.SIGINT)
    try:
        app.wait(timeout=30)
    except subprocess.TimeoutExpired:
        app.kill()
        raise


def capped_latency(args, tmp):
    """At a display's pace a served frame leaves once drawn, not when its ring entry comes round
    again: at 10 frames/s with 8 in flight that would put it about 8 intervals (800 ms) late;
    collected at the next frame's start it is about one interval late, plus the encode and the
    probe's decode. Four intervals is the line between the two."""
    app, url = start_app(args.estuary, tmp, "--fps-cap", "10", "--frames-in-flight", "8")
    try:
        report = os.path.join(tmp, "capped.json")
        probe = subprocess.run([args.probe, url, "--seconds", "4", "--report", report, "--stamp"],
                               timeout=60)
        assert probe.returncode == 0, f"the probe exited {probe.returncode}"
        with open(report) as f:
            server = json.load(f)["server"]
        latency = server["stamp_latency_ms"]
        print(f"at 10 fps, 8 in flight: stamp latency p50 {latency['p50']:.1f} ms "
              f"over {latency['count']} frames")
        assert latency["count"] >= 5, latency
        assert latency["p50"] < 400, f"served frames wait for the ring: {latency}"
    finally:
        stop_app(app)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--estuary", required=True)
    parser.add_argument("--probe", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app, url = start_app(args.estuary, tmp)
        try:
            report = os.path.join(tmp, "probe.json")
            probe = subprocess.run([args.probe, url, "--seconds", "3", "--report", report,
                                    "--stamp"],
                                   timeout=60)
            assert probe.returncode == 0, f"the probe exited {probe.returncode}"
            with open(report) as f:
                r = json.load(f)
            print(json.dumps(r, indent=1))
            assert r["connected"] and r["error"] == "", r["error"]
            assert r["frames"] >= 3, f"{r['frames']} frames in 3 s"
            assert (r["width"], r["height"]) == (320, 240), (r["width"], r["height"])
            assert r["codec"] in ("h264", "jpeg"), r["codec"]
            assert r["server"]["encoder"], "no serve_stats from the server"
            stamp, server = r["stamp"], r["server"]
            assert stamp["decode_error"] == "", stamp["decode_error"]
            assert stamp["read"] >= 3 and stamp["read"] == stamp["frames_decoded"], stamp
            assert stamp["unreadable"] == 0 and stamp["mismatched"] == 0, stamp
            assert stamp["backwards"] == 0, stamp
            assert stamp["decode_ms"]["count"] == stamp["frames_decoded"], stamp
            assert server["stamp_latency_ms"]["count"] > 0, "no latency from the stamps read"
            assert server["stamp_latency_ms"]["p50"] > 0
            assert server["stamps_mismatched"] == 0 and server["stamps_unreadable"] == 0, server
            assert server["metadata_latency_ms"]["count"] > 0, "no metadata latency"
            if r["codec"] == "h264":
                first = r["first_h264"]
                assert first["keyframe"] and first["sps"] and first["pps"], first
            assert not [n for n in os.listdir(tmp) if n.startswith("probe.json.")], \
                "a temporary report was left behind"
        finally:
            stop_app(app)
        capped_latency(args, tmp)
        bad = subprocess.run([args.probe, "ws://nowhere", "--report",
                              os.path.join(tmp, "bad.json")], capture_output=True, text=True)
        assert bad.returncode == 2, bad.returncode
        assert "http://" in bad.stderr, bad.stderr
        assert not os.path.exists(os.path.join(tmp, "bad.json"))
    print("OK")


if __name__ == "__main__":
    sys.exit(main())
