/**
 * A GraphQL subscription over Server-Sent Events, as a client would hold one: POST /graphql with
 * `Accept: text/event-stream`, the stream read as it arrives. Each `next` event is kept with the
 * time it arrived, so tests and the bench can measure delivery delays. (Not a test file itself.)
 */

interface SseEvent<T = any> {
  /** The GraphQL result carried by a `next` event: `{ data }` or `{ errors }`. */
  payload: { data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] };
  /** Date.now() when it was read. */
  receivedAt: number;
}

export interface SseSubscription<T = any> {
  status: number;
  contentType: string;
  /** The body, when the answer was not an event stream (a refusal in JSON). */
  body?: any;
  events: SseEvent<T>[];
  /** True once the server completed the stream (or the connection ended). */
  readonly ended: boolean;
  /** The first event not taken yet, waiting up to `timeoutMs` for it (rejects when none comes). */
  next(timeoutMs?: number): Promise<SseEvent<T>>;
  /** Waits up to `timeoutMs` and resolves with the events that arrived meanwhile (for "nothing comes"). */
  quiet(timeoutMs: number): Promise<SseEvent<T>[]>;
  close(): void;
}

export async function subscribe<T = any>(
  baseUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
  /** More request headers (a dashboard session's cookie and X-CSRF-Token). */
  headers: Record<string, string> = {},
): Promise<SseSubscription<T>> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(token && { authorization: `Bearer ${token}` }), ...headers },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  const contentType = response.headers.get('content-type') ?? '';
  const events: SseEvent<T>[] = [];
  let taken = 0;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };

  if (!contentType.startsWith('text/event-stream') || !response.body) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
    ended = true;
    return {
      status: response.status,
      contentType,
      body,
      events,
      ended,
      next: () => Promise.reject(new Error(`not an event stream: ${text}`)),
      quiet: async () => [],
      close: () => undefined,
    };
  }

  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of stream) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const lines = block.split('\n');
          const event = lines
            .find((line) => line.startsWith('event:'))
            ?.slice(6)
            .trim();
          const data = lines
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (event === 'next' && data) {
            events.push({ payload: JSON.parse(data), receivedAt: Date.now() });
            notify();
          }
        }
      }
    } catch {
      // aborted by close(), or the connection dropped: ended either way
    } finally {
      ended = true;
      notify();
    }
  };
  void read(response.body);

  const subscription: SseSubscription<T> = {
    status: response.status,
    contentType,
    events,
    get ended() {
      return ended;
    },
    async next(timeoutMs = 2_000) {
      const deadline = Date.now() + timeoutMs;
      while (taken >= events.length) {
        if (ended) throw new Error('the event stream ended');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return events[taken++]!;
    },
    async quiet(timeoutMs) {
      const before = events.length;
      await new Promise((resolve) => setTimeout(resolve, timeoutMs));
      return events.slice(before);
    },
    close() {
      abort.abort();
    },
  };
  return subscription;
}

export const TRANSACTION_STATUS_CHANGED = `subscription ($organizationId: ID) { transactionStatusChanged(organizationId: $organizationId) { orderId organizationId status changedAt } }`;
export const PAYOUT_STATUS_CHANGED = `subscription ($organizationId: ID) { payoutStatusChanged(organizationId: $organizationId) { orderId organizationId status changedAt } }`;
export const PAYOUT_BATCH_STATUS_CHANGED = `subscription ($organizationId: ID) { payoutBatchStatusChanged(organizationId: $organizationId) { batchId organizationId status changedAt } }`;
export const PAYOUT_BATCH_PROGRESS = `subscription ($id: ID!) { payoutBatchProgress(id: $id) { id status validCount counts { queued pending completed failed cancelled } } }`;
