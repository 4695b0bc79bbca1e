/**
 * The API reference: GET /docs renders the REST v2 contract (openapi/v2.yaml) and GET /docs/v1 the
 * deprecated REST v1 contract (openapi/v1.yaml), both with Swagger UI served from the
 * swagger-ui-dist package (no CDN, nothing sent elsewhere: the page works on a closed network),
 * with "Try it out" against this origin.
 *
 * One page per version rather than Swagger UI's definition selector: each version has its own
 * address (a v1 merchant bookmarks /docs/v1, the v1 deprecation notices can link to it), v2 opens
 * with nothing to choose, and v1's deprecation is a banner on its page rather than a word in a
 * drop-down. A bar on top of both pages links each to the other.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * swagger-ui-dist's folder, found from its package.json. Not `import 'swagger-ui-dist'`: its index
 * evaluates the whole browser bundle (about 47 MB of resident memory for the life of the process)
 * only to hand back this path. The assets are read from the folder on the first page view.
 */
const swaggerUiFolder = (): string => path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
} as const;

interface DocsPage {
  path: string;
  /** The contract Swagger UI renders. */
  definition: string;
  title: string;
  /** Shown under the version bar (v1's deprecation). */
  notice?: string;
}

const V2_PAGE: DocsPage = { path: '/docs', definition: '/api/v2/openapi.json', title: 'REST v2' };
const V1_PAGE: DocsPage = {
  path: '/docs/v1',
  definition: '/api/v1/openapi.json',
  title: 'REST v1 (deprecated)',
  notice: 'REST v1 is deprecated and receives no new features or fixes. New integrations use <a href="/docs">REST v2</a>.',
};

/** Our own markup only: Swagger UI draws into #docs. The contract to render is read by init.js from data-definition. */
function page(current: DocsPage): string {
  const link = (target: DocsPage, label: string) =>
    target === current ? `<a href="${target.path}" aria-current="page">${label}</a>` : `<a href="${target.path}">${label}</a>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>XOF Gateway API reference: ${current.title}</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css"><link rel="stylesheet" href="/docs/docs.css"></head>
<body><header class="docs-versions"><span>XOF Gateway API reference</span>
<nav aria-label="API versions">${link(V2_PAGE, 'REST v2 (current)')}${link(V1_PAGE, 'REST v1 (deprecated)')}</nav></header>
${current.notice ? `<p class="docs-notice" role="note">${current.notice}</p>` : ''}
<main id="docs" data-definition="${current.definition}"></main>
<script src="/docs/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;
}

/**
 * A file rather than an inline script, so the page works under its strict Content-Security-Policy.
 * validatorUrl null: by default Swagger UI asks validator.swagger.io about the contract (its badge).
 */
const INIT = `window.ui = SwaggerUIBundle({
  url: document.getElementById('docs').dataset.definition,
  dom_id: '#docs',
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
});`;

const CSS = `body{margin:0}
.docs-versions{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;justify-content:space-between;
padding:.75rem 1.25rem;background:#1b1b1b;color:#fff;font-family:sans-serif}
.docs-versions span{font-weight:bold}
.docs-versions nav{display:flex;gap:1rem}
.docs-versions a{color:#fff;padding:.25rem .5rem;border-radius:4px}
.docs-versions a[aria-current=page]{background:#fff;color:#1b1b1b;text-decoration:none}
.docs-notice{margin:0;padding:.75rem 1.25rem;background:#fff4e5;border-bottom:1px solid #f0b46b;font-family:sans-serif}`;

/**
 * Everything the page needs comes from this origin; Swagger UI sets element styles from script
 * (allowed) and shows data: images from its stylesheet. No eval: the bundle's one
 * `new Function("return this")` is in a try block with a fallback.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function registerDocs(app: FastifyInstance): void {
  const assetDir = swaggerUiFolder();
  const cache = new Map<string, Buffer>();
  for (const docs of [V2_PAGE, V1_PAGE]) {
    const html = page(docs);
    app.get(docs.path, async (_request, reply) => reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(html));
  }
  app.get('/docs/init.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(INIT));
  app.get('/docs/docs.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(CSS));
  for (const [file, type] of Object.entries(ASSETS)) {
    app.get(`/docs/${file}`, async (_request, reply) => {
      let content = cache.get(file);
      if (!content) {
        content = await readFile(path.join(assetDir, file));
        cache.set(file, content);
      }
      return reply.type(type).header('cache-control', 'public, max-age=86400').send(content);
    });
  }
}
