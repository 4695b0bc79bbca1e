/**
 * The sandbox wallet provider: outcomes follow the phone number's last four digits, the way test
 * card numbers work (docs/sandbox.md's table), so every path can be driven from a test or by hand.
 *
 * | ends with | collect (checkout)               | refund                       | payout                    |
 * |-----------|----------------------------------|------------------------------|---------------------------|
 * | 0000      | fails (insufficient funds)       | fails                        | fails                     |
 * | 1111      | stays pending (never confirmed)  | times out (stays pending)    | times out (stays pending) |
 * | 0009      | succeeds                         | fails at the provider        | succeeds                  |
 * | other     | succeeds                         | succeeds                     | succeeds                  |
 *
 * A refund is decided by the wallet the payment came FROM (the payer's phone); a payout by the
 * recipient's wallet. A timed-out refund or payout (1111) went through after all: its status
 * question answers `succeeded`.
 *
 * It behaves as ONE external provider shared by every gateway instance: its books are the
 * database table SandboxProviderCall, never a process's memory, so a status question asked by
 * another instance (or after a restart) gets the true answer, and a reference it never received
 * is `not_found` for everyone. Like a real provider it de-duplicates on our reference: a call sent
 * again is answered from its record and not done again, and `calls` counts how often it was sent
 * (the fault suite checks it is 1).
 *
 * A call is received (recorded) at once; SANDBOX_LATENCY_MS delays only the answer, the way a slow
 * wallet acts and answers late (a status question is answered from the books at once). So a caller that stops waiting (the flow's deadline aborts the
 * signal) or dies meanwhile loses the answer, not the call: its reconciler later finds it done.
 * The record is written again after a dropped database connection (the provider's books do not
 * depend on our database's blips); `lastSendId` makes such a rewrite count as the same send.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, PaymentProvider, ProviderAnswer, ProviderRequest, ProviderStatusAnswer } from '../../domain/ports.js';
import { isTransientDatabaseError } from '../../domain/providerFlow.js';
import { runStatement } from '../../domain/statements.js';

export interface SandboxOptions {
  /** Where the sandbox keeps its books (the gateway's own database: it stands for a shared service). */
  db: Db;
  /** Artificial latency of every call (SANDBOX_LATENCY_MS): lets tests overlap two calls. */
  latencyMs?: number;
}

type CallKind = 'collect' | 'refund' | 'payout';

/** What the provider did with a call: `answer` is what the caller hears now, `recorded` what it did. */
interface Decision {
  recorded: ProviderStatusAnswer['status'];
  /** Differs from `recorded` only when the answer is lost on the way back (1111: a timeout). */
  answered: ProviderAnswer['status'];
  reason?: string;
}

/** A stable provider id per our reference: the same call asked twice gets the same answer. */
const providerReferenceOf = (kind: CallKind, reference: string): string =>
  `sbx_${kind}_${createHash('sha256').update(`${kind}:${reference}`).digest('hex').slice(0, 20)}`;

const suffixOf = (phone: string): string => phone.replace(/\D/g, '').slice(-4);

function decide(kind: CallKind, request: ProviderRequest): Decision {
  const suffix = suffixOf(request.phone);
  if (kind === 'collect') {
    if (suffix === '0000') return { recorded: 'failed', answered: 'failed', reason: 'insufficient funds on the wallet' };
    if (suffix === '1111') return { recorded: 'pending', answered: 'pending', reason: 'the customer has not confirmed' };
    return { recorded: 'succeeded', answered: 'succeeded' };
  }
  if (suffix === '0000' || (kind === 'refund' && suffix === '0009')) {
    const reason =
      kind === 'refund' ? `${request.method} refused the refund` : `${request.method} refused the withdrawal: the recipient wallet cannot receive it`;
    return { recorded: 'failed', answered: 'failed', reason };
  }
  // 1111: the wallet received the money; only the provider's answer was lost on the way back.
  if (suffix === '1111') return { recorded: 'succeeded', answered: 'pending', reason: 'the provider did not answer in time' };
  return { recorded: 'succeeded', answered: 'succeeded' };
}

/**
 * Records the call, or counts a repeat of it, in ONE statement: of two instances sending the same
 * reference at once, exactly one records it; the other is answered from that record.
 */
const RECORD_CALL = {
  name: 'gw_sandbox_record',
  text: `INSERT INTO "SandboxProviderCall" (kind, reference, method, phone, amount, status, "providerReference", reason, "lastSendId")
    VALUES ($1, $2, $3::"PaymentMethod", $4, $5::bigint, $6, $7, $8, $9::uuid)
    ON CONFLICT (kind, reference) DO UPDATE SET
      calls = "SandboxProviderCall".calls + CASE WHEN "SandboxProviderCall"."lastSendId" = EXCLUDED."lastSendId" THEN 0 ELSE 1 END,
      "lastSendId" = EXCLUDED."lastSendId", "updatedAt" = now()
    RETURNING status, "providerReference", reason, calls, "lastSendId" = $9::uuid AND calls = 1 AS "firstSend"`,
};

/** Tries of writing one record across dropped connections (a real provider is not affected by ours). */
const RECORD_TRIES = 5;

const FIND_CALL = {
  name: 'gw_sandbox_find',
  text: `SELECT status, "providerReference", reason FROM "SandboxProviderCall" WHERE kind = $1 AND reference = $2`,
};

const NEVER_RECEIVED: Record<CallKind, string> = {
  collect: 'no payment request was received with this reference',
  refund: 'no refund was received with this reference',
  payout: 'no payout was received with this reference',
};

export function createSandboxProvider(options: SandboxOptions): PaymentProvider {
  const { db } = options;
  const latency = async (signal?: AbortSignal) => {
    if (options.latencyMs) await sleep(options.latencyMs, undefined, { signal });
  };

  const record = async (values: unknown[]) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await runStatement<{ status: ProviderAnswer['status']; providerReference: string; reason: string | null; calls: number; firstSend: boolean }>(
          db,
          RECORD_CALL,
          values,
        );
      } catch (error) {
        if (attempt >= RECORD_TRIES || !isTransientDatabaseError(error)) throw error;
        await sleep(50 * attempt);
      }
    }
  };

  const send = async (kind: CallKind, request: ProviderRequest): Promise<ProviderAnswer> => {
    request.signal?.throwIfAborted();
    const decision = decide(kind, request);
    const providerReference = decision.recorded === 'failed' ? '' : providerReferenceOf(kind, request.reference);
    const [row] = await record([
      kind,
      request.reference,
      request.method,
      request.phone,
      String(request.amount),
      decision.recorded,
      providerReference,
      decision.reason ?? null,
      randomUUID(),
    ]);
    if (!row) throw new Error('the sandbox could not record a call');
    // Received and done: only the answer takes its time (and is lost to a caller that stops waiting).
    await latency(request.signal);
    // A repeat is answered from the record (a real provider de-duplicates on our reference).
    if (!row.firstSend) return { status: row.status, providerReference: row.providerReference, ...(row.reason && { reason: row.reason }) };
    return {
      status: decision.answered,
      providerReference: decision.answered === 'pending' ? '' : providerReference,
      ...(decision.reason && { reason: decision.reason }),
    };
  };

  // A status question reads the books: it is not delayed (SANDBOX_LATENCY_MS is the wallet acting).
  const status = async (kind: CallKind, reference: string): Promise<ProviderStatusAnswer> => {
    const [row] = await runStatement<{ status: ProviderStatusAnswer['status']; providerReference: string; reason: string | null }>(db, FIND_CALL, [
      kind,
      reference,
    ]);
    if (!row) return { status: 'not_found', providerReference: '', reason: NEVER_RECEIVED[kind] };
    return { status: row.status, providerReference: row.providerReference, ...(row.reason && { reason: row.reason }) };
  };

  return {
    collect: (request) => send('collect', request),
    collectStatus: (reference) => status('collect', reference),
    refund: (request) => send('refund', request),
    refundStatus: (reference) => status('refund', reference),
    payout: (request) => send('payout', request),
    payoutStatus: (reference) => status('payout', reference),
  };
}
