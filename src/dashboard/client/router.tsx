/**
 * Client-side routes under /dashboard (the server answers every one of them with the same shell):
 * the path and query of the address bar, pushState on a link, popstate on back/forward.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const ROOT = '/dashboard';

export interface Location {
  /** The path below /dashboard: '/', '/transactions/ord_1'... */
  path: string;
  query: URLSearchParams;
}

const current = (): Location => ({
  path: location.pathname.slice(ROOT.length).replace(/\/+$/, '') || '/',
  query: new URLSearchParams(location.search),
});

const listeners = new Set<() => void>();

/** Goes to a dashboard path (with its query), as a link click would. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = `${ROOT}${to === '/' ? '' : to}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
  // A new page: start at its top, and let keyboard and screen-reader users start there too.
  window.scrollTo(0, 0);
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return location;
}

/** A link to a dashboard path: an ordinary <a href> (open in a new tab works), routed here on a plain click. */
export function Link({ to, children, ...rest }: { to: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' }) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={`${ROOT}${to === '/' ? '' : to}`} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}

/** Matches `/transactions/:id` against a path: the parameters, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const wanted = pattern.split('/');
  const actual = path.split('/');
  if (wanted.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < wanted.length; index++) {
    const part = wanted[index]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(actual[index]!);
    else if (part !== actual[index]) return null;
  }
  return params;
}
