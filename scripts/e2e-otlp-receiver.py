#!/usr/bin/env python3
"""A minimal OTLP/HTTP metrics receiver for scripts/e2e.sh: listens on 127.0.0.1 at a free port
(written to PORT_FILE once it listens), and stores the body of every POST to /v1/metrics, gunzipped
when it came with Content-Encoding: gzip, as STORE_DIR/NNNNNN.pb (NNNNNN.gz.pb when it came
gzipped), numbered in arrival order; answers 200 with an empty ExportMetricsServiceResponse.
The bodies are decoded later, by scripts/e2e-check-otlp.py, so that a body this receiver could
not read still reaches the checker.

    python3 scripts/e2e-otlp-receiver.py PORT_FILE STORE_DIR

Runs until killed.
"""
import gzip
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, STORE_DIR = sys.argv[1], sys.argv[2]
os.makedirs(STORE_DIR, exist_ok=True)
lock = threading.Lock()
received = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        global received
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/metrics" or self.headers.get("Content-Type") != "application/x-protobuf":
            self.answer(404 if self.path != "/v1/metrics" else 415)
            return
        gzipped = self.headers.get("Content-Encoding") == "gzip"
        if gzipped:
            body = gzip.decompress(body)
        with lock:
            received += 1
            name = f"{received:06d}{'.gz' if gzipped else ''}.pb"
        with open(os.path.join(STORE_DIR, name + ".tmp"), "wb") as f:
            f.write(body)
        os.rename(os.path.join(STORE_DIR, name + ".tmp"), os.path.join(STORE_DIR, name))
        self.answer(200)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
