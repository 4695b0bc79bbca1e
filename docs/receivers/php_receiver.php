<?php
// A payment_status webhook receiver for the gateway, PHP 7.3+ with no dependency.
// Serve it at your webhook URL; set WEBHOOK_SECRET to the secret shown when the webhook was created.
//
// X-Signature is the lowercase hex HMAC-SHA256 of the RAW request body bytes, keyed with the UTF-8
// bytes of the secret. Read php://input (the raw bytes), never a re-encoded json_decode() result.
$secret = getenv('WEBHOOK_SECRET');
$raw = file_get_contents('php://input');
$signature = $_SERVER['HTTP_X_SIGNATURE'] ?? '';
$expected = hash_hmac('sha256', $raw, $secret);
if ($_SERVER['REQUEST_METHOD'] !== 'POST' || !is_string($secret) || $secret === '' || !hash_equals($expected, $signature)) {
    http_response_code(401);
    exit;
}
$event = json_decode($raw, true);
// The same event may arrive more than once: make fulfilment idempotent (keyed by order_id).
// Compare $event['amount'] with what you expect; paid_and_blocked counts as paid.
$paid = in_array($event['transaction_status'] ?? '', ['paid', 'paid_and_blocked'], true);
// ... fulfil the order here when $paid ...
// Answer 2xx fast (within 5 s), also for unknown order ids, so the gateway does not retry.
http_response_code(200);
