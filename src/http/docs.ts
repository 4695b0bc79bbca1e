/**
 * GET /docs: the REST v2 contract (openapi/v2.yaml) rendered by Swagger UI, served from the
 * swagger-ui-dist package so it works on a closed network, with "Try it out" against this origin.
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

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>XOF Gateway API v2</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="docs"></div><script src="/docs/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;

// A file rather than an inline script, so the page works under a strict Content-Security-Policy.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v2/openapi.json', dom_id: '#docs', deepLinking: true });`;

export function registerDocs(app: FastifyInstance): void {
  const assetDir = swaggerUiFolder();
  const cache = new Map<string, Buffer>();
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/docs/init.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(INIT));
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
