/**
 * The merchant dashboard on the API origin (docs/dashboard.md): a Preact app, bundled at build time
 * (scripts/build.mjs -> dist/dashboard/assets/), that is a client of /graphql with a merchant-user
 * session (src/dashboard/auth/). This file only serves it:
 *
 * GET /dashboard, /dashboard/*          the HTML shell (every client-side route), never cached
 * GET /dashboard/assets/<name>-<hash>.* the bundle and its stylesheet, precompressed, cached for a year
 *
 * The shell names the hashed files, so a new build is picked up by the next page load while a
 * browser keeps the old files as long as it likes. No rule lives here: who may do what is the
 * access policy's, enforced by the GraphQL API.
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pickLanguage } from '../checkout/i18n.js';
import { DomainError } from '../domain/errors.js';
import { projectPath } from '../infra/projectFiles.js';

const DASHBOARD_ROOT = '/dashboard';
const ASSETS_PATH = `${DASHBOARD_ROOT}/assets`;

/** What scripts/build.mjs bundled for the browser (the tests, from src/, serve it too). */
const ASSETS_DIR = pathToFileURL(`${projectPath('dist', 'dashboard', 'assets')}/`);

/**
 * Strict policy: our own script and stylesheet only (no inline script or style attribute), no
 * framing, forms and fetches to ourselves; images from ourselves or data: (none today, cheap to allow).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';

interface Asset {
  type: string;
  identity: Buffer;
  br: Buffer | null;
  gzip: Buffer | null;
}

interface BuiltClient {
  js: string;
  css: string;
  assets: Map<string, Asset>;
}

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

const readOrNull = (name: string): Promise<Buffer | null> => readFile(new URL(name, ASSETS_DIR)).catch(() => null);

/** The built files, read once (a few tens of kB) on first use; null when the client was not built. */
async function loadClient(): Promise<BuiltClient | null> {
  const manifestText = await readOrNull('manifest.json');
  if (!manifestText) return null;
  const manifest = JSON.parse(manifestText.toString('utf8')) as { js?: string; css?: string };
  if (!manifest.js || !manifest.css) return null;
  const assets = new Map<string, Asset>();
  for (const name of [manifest.js, manifest.css]) {
    const identity = await readOrNull(name);
    if (!identity) return null;
    const [br, gzip] = await Promise.all([readOrNull(`${name}.br`), readOrNull(`${name}.gz`)]);
    assets.set(name, { type: TYPES[name.split('.').pop()!]!, identity, br, gzip });
  }
  return { js: manifest.js, css: manifest.css, assets };
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page every dashboard address answers with: the language picked as the checkout does
 * (Accept-Language, `?lang=`), the stylesheet, the module script; the app renders into #app. A
 * short text shows until it does (and says what to do without JavaScript).
 */
function renderShell(client: Pick<BuiltClient, 'js' | 'css'>, lang: 'fr' | 'en'): string {
  const title = lang === 'fr' ? 'Tableau de bord' : 'Dashboard';
  const loading = lang === 'fr' ? 'Chargement du tableau de bord… Il demande JavaScript.' : 'Loading the dashboard… It needs JavaScript.';
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${ASSETS_PATH}/${escapeHtml(client.css)}">
<script type="module" src="${ASSETS_PATH}/${escapeHtml(client.js)}"></script>
</head>
<body>
<div id="app"><p class="boot">${escapeHtml(loading)}</p></div>
</body>
</html>
`;
}

function withPageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', DASHBOARD_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin');
}

/** The encoding to send: brotli, then gzip, when the client takes it (q=0 refuses). */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').slice(0, 512).split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param))) continue;
    accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return null;
}

export function registerDashboard(app: FastifyInstance): void {
  let client: Promise<BuiltClient | null> | null = null;
  // Read again after a miss: a build may finish after the server started (tests, development).
  const builtClient = async (): Promise<BuiltClient | null> => {
    client ??= loadClient();
    const loaded = await client;
    if (!loaded) client = null;
    return loaded;
  };

  const shell = async (request: FastifyRequest<{ Querystring: { lang?: string } }>, reply: FastifyReply) => {
    // The session endpoints (src/dashboard/auth/) answer JSON; an unknown one is not a page.
    if (request.url.startsWith(`${DASHBOARD_ROOT}/auth/`)) throw new DomainError('route_not_found');
    withPageHeaders(reply).header('cache-control', 'no-store').header('vary', 'accept-language');
    const built = await builtClient();
    if (!built) return reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run `npm run build`.\n');
    const lang = pickLanguage(request.headers['accept-language'], request.query?.lang);
    return reply.type('text/html; charset=utf-8').send(renderShell(built, lang));
  };
  app.get(DASHBOARD_ROOT, shell);
  app.get(`${DASHBOARD_ROOT}/*`, shell);

  app.get<{ Params: { name: string } }>(`${ASSETS_PATH}/:name`, async (request, reply) => {
    withPageHeaders(reply);
    const asset = (await builtClient())?.assets.get(request.params.name);
    if (!asset) return reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Not found\n');
    const encoding = pickEncoding(request.headers['accept-encoding']);
    const body = encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : null;
    reply.header('cache-control', IMMUTABLE).header('vary', 'accept-encoding').type(asset.type);
    if (body) return reply.header('content-encoding', encoding).send(body);
    return reply.send(asset.identity);
  });
}
