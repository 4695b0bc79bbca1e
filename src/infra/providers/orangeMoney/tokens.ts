/**
 * OAuth2 client-credentials tokens for Orange Money (POST /oauth/v1/token): one token shared by
 * every call of the process, refreshed shortly before it expires, and once when the API answers
 * 401 (revoked early, clocks apart). Concurrent callers share ONE refresh: a burst of calls at
 * expiry asks for one token, not one each.
 */
export interface TokenEndpoint {
  /** Asks for a new token; resolves with it and its lifetime in seconds. */
  fetchToken(): Promise<{ accessToken: string; expiresInSeconds: number }>;
}

/** Refresh this long before expiry at most (a call started just before expiry must not carry a dead token). */
const MAX_REFRESH_MARGIN_MS = 30_000;
/** ...and at most this share of a short lifetime (a 10 s token is refreshed 2 s early, not 30). */
const REFRESH_MARGIN_SHARE = 0.2;

export class TokenSource {
  private current: { token: string; refreshAt: number } | undefined;
  private refreshing: Promise<string> | undefined;

  constructor(
    private readonly endpoint: TokenEndpoint,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token that is not about to expire, fetching one (shared) when needed. */
  async get(): Promise<string> {
    if (this.current && this.now() < this.current.refreshAt) return this.current.token;
    return this.refresh();
  }

  /**
   * The API refused `token` (401): forget it unless a newer one already replaced it, so that N
   * calls refused with the same stale token cause one refresh, not N.
   */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private refresh(): Promise<string> {
    this.refreshing ??= (async () => {
      try {
        const { accessToken, expiresInSeconds } = await this.endpoint.fetchToken();
        const lifetimeMs = Math.max(0, expiresInSeconds) * 1000;
        const margin = Math.min(MAX_REFRESH_MARGIN_MS, lifetimeMs * REFRESH_MARGIN_SHARE);
        this.current = { token: accessToken, refreshAt: this.now() + lifetimeMs - margin };
        return accessToken;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}
