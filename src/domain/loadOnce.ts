/**
 * A lazy load (a module imported on first use, a provider's public key) made once and shared by
 * every caller while it runs and after it succeeded. A load that failed is forgotten, so the next
 * caller tries again: a transient failure (out of file descriptors, a network blip) must not last
 * until the process restarts. The first caller's arguments are the load's; `forget()` drops a
 * result that went stale (a key the provider revoked).
 */
export type LoadOnce<Args extends unknown[], T> = ((...args: Args) => Promise<T>) & { forget(): void };

export function loadOnce<Args extends unknown[], T>(load: (...args: Args) => Promise<T>): LoadOnce<Args, T> {
  let loading: Promise<T> | undefined;
  const loaded = (...args: Args): Promise<T> => {
    if (!loading) {
      const started = load(...args);
      loading = started;
      started.catch(() => {
        if (loading === started) loading = undefined;
      });
    }
    return loading;
  };
  return Object.assign(loaded, { forget: () => (loading = undefined) });
}
