#!/usr/bin/env python3
"""estuary_serve_probe against the estuary program: `estuary --headless --serve` on a free port
(the CPU backend, so any Vulkan will do), the probe watching it for a few seconds as a page
would. Checks that the probe's JSON report (written atomically to --report) has frames of the
program's picture size, the server's encoder, and, with --stamp, the frame stamp read back from
every decoded frame (its ids those of the frames' metadata) and the server's latencies from the
probe's reports of the stamps it read and of the frames it got; then that a bad URL is refused with exit 2 and nothing written.
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--estuary", required=True)
    parser.add_argument("--probe", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        app = subprocess.Popen(
            [args.estuary, "--headless", "--backend", "cpu", "--resolution", "320x240",
             "--serve", f"127.0.0.1:{port}", "--screenshot", os.path.join(tmp, "shot.png")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp)
        try:
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
            assert url, "estuary never printed the URL it serves at"
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
            app.send_signal(signal.SIGINT)
            try:
                app.wait(timeout=30)
            except subprocess.TimeoutExpired:
                app.kill()
                raise
        bad = subprocess.run([args.probe, "ws://nowhere", "--report",
                              os.path.join(tmp, "bad.json")], capture_output=True, text=True)
        assert bad.returncode == 2, bad.returncode
        assert "http://" in bad.stderr, bad.stderr
        assert not os.path.exists(os.path.join(tmp, "bad.json"))
    print("OK")


if __name__ == "__main__":
    sys.exit(main())
