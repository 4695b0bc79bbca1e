/**
 * The events of a text/event-stream body (WHATWG's format), as the gateway's own clients read its
 * GraphQL subscriptions: `gateway listen` (src/cli/listen.ts) and the dashboard's live progress
 * (src/dashboard/client/api.ts, in the browser). Comments (the gateway's pings) come as empty
 * events, so a reader can count them as signs of life. Read through the stream's reader, which
 * Node and every browser have.
 */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
        yield { event, data: data.join('\n') };
      }
    }
  } finally {
    // Stopped early (the reader broke off): the body is not read further.
    await reader.cancel().catch(() => undefined);
  }
}
