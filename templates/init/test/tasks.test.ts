// Runs the app on a free port and drives it through the generated client.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from '../generated/client.js';
import { buildApp } from '../src/app.js';

// `svc test` runs with NODE_ENV=test and its own in-memory database, so tests never touch .svc/data.
const app = await buildApp();
let client: ReturnType<typeof createClient>;

before(async () => {
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  client = createClient({ baseUrl: url });
});
after(() => app.close());

test('a created task can be read back', async () => {
  const created = await client.createTask({ body: { title: 'Write the spec' } });
  assert.equal(created.status, 201);
  assert.ok(created.ok);
  const read = await client.getTask({ params: { id: created.data.id } });
  assert.ok(read.ok);
  assert.deepEqual(read.data, created.data);
});

test('an unknown task answers TASK_NOT_FOUND', async () => {
  const result = await client.getTask({ params: { id: '00000000-0000-4000-8000-000000000000' } });
  assert.equal(result.ok, false);
  assert.equal(result.status, 404);
  if (!result.ok) assert.equal(result.error.code, 'TASK_NOT_FOUND');
});

test('an empty title answers HTTP_VALIDATION', async () => {
  const result = await client.createTask({ body: { title: '' } });
  assert.equal(result.status, 400);
  if (!result.ok && result.error.code === 'HTTP_VALIDATION') assert.equal(result.error.part, 'body');
  else assert.fail('expected HTTP_VALIDATION');
});
