// Plain Express 5 with the bench's two routes: the baseline svc-on-Express is measured against.
import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { invalidItemBody, validateItem } from './item-validator.js';
import { GREETING, announce } from './shared.js';

const app = express();
app.use(express.json());
app.get('/hello', (_request, response) => {
  response.json(GREETING);
});
app.post('/items', (request, response) => {
  if (!validateItem(request.body)) {
    response.status(400).json(invalidItemBody());
    return;
  }
  response.status(201).json(request.body);
});

const server = createServer(app);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  announce(`http://127.0.0.1:${port}`);
});
