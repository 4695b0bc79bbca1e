/** Helpers for payment link tests: the link page over plain HTTP, as a phone's browser posts it. */
export interface Page {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

export async function openPage(url: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(url, { headers, redirect: 'manual' });
  return { status: response.status, html: await response.text(), headers: response.headers, location: response.headers.get('location') };
}

export const formTokenOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';

export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, html: await response.text(), headers: response.headers, location: response.headers.get('location') };
}

/** Opens the link's page and posts its form as the customer (the page's own token). */
export async function fillLink(url: string, customer: { first_name?: string; last_name?: string; phone?: string }): Promise<Page> {
  const page = await openPage(url);
  return postForm(url, { csrf_token: formTokenOf(page.html), first_name: 'Awa', last_name: 'Diop', phone: '+221771234567', ...customer });
}

/** Text as a reader sees it. */
export const textOf = (html: string): string =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
