#!/usr/bin/env python3
"""A minimal OTLP metrics receiver for scripts/e2e.sh: listens on 127.0.0.1 at a free port (written
to PORT_FILE once it listens), and stores every ExportMetricsServiceRequest it gets as
STORE_DIR/NNNNNN.pb, numbered in arrival order, answering with an empty ExportMetricsServiceResponse.

- OTLP/HTTP (the default): the body of every POST to /v1/metrics, gunzipped when it came with
  Content-Encoding: gzip (then stored as NNNNNN.gz.pb).
- OTLP/gRPC (--grpc): the MetricsService/Export call served by grpcio (Debian's python3-grpcio),
  a gRPC server no one here wrote, through a generic handler (no generated stubs): the message as
  grpcio hands it over, decompressed by grpcio if it came compressed.

The bodies are decoded later, by scripts/e2e-check-otlp.py, so that a body this receiver could
not read still reaches the checker.

- OTLP/HTTP over TLS (--tls DIR): with DIR/receiver.pem and DIR/receiver.key, and only for a client
  whose certificate DIR/ca.pem signed (mutual TLS); a handshake without one is refused.

    python3 scripts/e2e-otlp-receiver.py [--grpc | --tls DIR] PORT_FILE STORE_DIR

Runs until killed.
"""
import gzip
import os
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = sys.argv[1:]
GRPC = ARGS[0] == "--grpc"
TLS_DIR = ARGS[1] if ARGS[0] == "--tls" else None
PORT_FILE, STORE_DIR = ARGS[-2], ARGS[-1]
os.makedirs(STORE_DIR, exist_ok=True)
lock = threading.Lock()
received = 0


def store(body, gzipped):
    global received
    with lock:
        received += 1
        name = f"{received:06d}{'.gz' if gzipped else ''}.pb"
    with open(os.path.join(STORE_DIR, name + ".tmp"), "wb") as f:
        f.write(body)
    os.rename(os.path.join(STORE_DIR, name + ".tmp"), os.path.join(STORE_DIR, name))


def write_port(port):
    with open(PORT_FILE + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(PORT_FILE + ".tmp", PORT_FILE)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/metrics" or self.headers.get("Content-Type") != "application/x-protobuf":
            self.answer(404 if self.path != "/v1/metrics" else 415)
            return
        gzipped = self.headers.get("Content-Encoding") == "gzip"
        if gzipped:
            body = gzip.decompress(body)
        store(body, gzipped)
        self.answer(200)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def serve_grpc():
    from concurrent import futures

    import grpc

    def export(request, context):
        store(request, False)
        return b""  # an empty ExportMetricsServiceResponse

    # No (de)serializers: the request arrives as its bytes, and the answer goes as bytes.
    handler = grpc.method_handlers_generic_handler(
        "opentelemetry.proto.collector.metrics.v1.MetricsService",
        {"Export": grpc.unary_unary_rpc_method_handler(export)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), handlers=[handler])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    write_port(port)
    server.wait_for_termination()


if GRPC:
    serve_grpc()
else:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if TLS_DIR:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(TLS_DIR, "receiver.pem"), os.path.join(TLS_DIR, "receiver.key"))
        context.load_verify_locations(os.path.join(TLS_DIR, "ca.pem"))
        context.verify_mode = ssl.CERT_REQUIRED
        server.socket = context.wrap_socket(server.socket, server_side=True)
    write_port(server.server_address[1])
    server.serve_forever()
