// Plain Hono on @hono/node-server with the bench's two routes: the baseline svc-on-Hono is measured against.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { invalidItemBody, validateItem } from './item-validator.js';
import { GREETING, announce } from './shared.js';

const app = new Hono();
app.get('/hello', (c) => c.json(GREETING));
app.post('/items', async (c) => {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return c.json({ error: { code: 'BAD_REQUEST', message: 'Malformed request body.' } }, 400);
  }
  if (!validateItem(body)) return c.json(invalidItemBody(), 400);
  return c.json(body, 201);
});

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  announce(`http://127.0.0.1:${info.port}`);
});
