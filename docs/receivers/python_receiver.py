# A payment_status webhook receiver for the gateway, Python 3.8+ standard library only.
# Run: WEBHOOK_SECRET='<the secret shown when the webhook was created>' PORT=8080 python3 python_receiver.py
#
# X-Signature is the lowercase hex HMAC-SHA256 of the RAW request body bytes, keyed with the UTF-8
# bytes of the secret. Verify those bytes exactly as received: never json.dumps() the parsed body
# (the official naboopay SDK's Webhook.verify does that, and its bytes differ from the gateway's).
import hashlib
import hmac
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ["WEBHOOK_SECRET"].encode("utf-8")
MAX_BODY = 1024 * 1024


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.send_response(413)
            self.end_headers()
            return
        raw = self.rfile.read(length)
        expected = hmac.new(SECRET, raw, hashlib.sha256).hexdigest().encode("ascii")
        signature = (self.headers.get("X-Signature") or "").encode("latin-1")
        if not hmac.compare_digest(expected, signature):
            self.send_response(401)
            self.end_headers()
            return
        event = json.loads(raw)
        # The same event may arrive more than once: make fulfilment idempotent (keyed by order_id).
        # Compare event["amount"] with what you expect; paid_and_blocked counts as paid.
        paid = event.get("transaction_status") in ("paid", "paid_and_blocked")
        print(json.dumps({"verified": True, "order_id": event.get("order_id"),
                          "transaction_status": event.get("transaction_status"),
                          "amount": event.get("amount"), "paid": paid}), flush=True)
        # Answer 2xx fast (within 5 s), also for unknown order ids, so the gateway does not retry.
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass  # no request log lines (they would carry customer data)


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8080"))), Receiver)
    print(json.dumps({"listening": True}), flush=True)
    sys.stdout.flush()
    server.serve_forever()
