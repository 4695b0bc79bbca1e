/**
 * GET /docs: the REST v2 contract (openapi/v2.yaml) rendered by Swagger UI, served from the
 * swagger-ui-dist package so it works on a closed network, with "Try it out" against this origin.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import swaggerUi from 'swagger-ui-dist';

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
  const assetDir = swaggerUi.getAbsoluteFSPath();
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
