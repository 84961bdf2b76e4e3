// Idempotency keys are scoped by the caller's credential, and a renamed API-key header is a credential: two
// holders of different keys sending the same Idempotency-Key never get each other's answer.
import { describe, expect, it } from 'vitest';
import { ApiKeys, Auth, apiKeyPlugin, authPlugin, idempotencyPlugin, route } from 'svckit';
import { FAST_HASH, post, SECRET } from './auth-harness.js';
import { adapters, withServer } from './harness.js';

describe.each(adapters)('idempotency with a renamed API-key header on $name', (adapter) => {
  it("does not replay one key holder's answer to another", async () => {
    const auth = new Auth({
      secret: SECRET,
      passwordHash: FAST_HASH,
      apiKeys: new ApiKeys({ scopes: ['things:write'] }),
    });
    const [first, second] = await Promise.all([
      auth.apiKeys!.issue({ scopes: ['things:write'] }),
      auth.apiKeys!.issue({ scopes: ['things:write'] }),
    ]);
    let made = 0;
    const things = route({
      method: 'POST',
      url: '/things',
      meta: { scopes: ['things:write'] },
      handler: ({ context }) => ({ n: ++made, key: (context.apiKey as { id: string }).id }),
    });
    await withServer(
      adapter,
      {
        routes: [things],
        plugins: [authPlugin({ auth }), apiKeyPlugin({ auth, header: 'x-service-key' }), idempotencyPlugin()],
      },
      async (url) => {
        const asFirst = { 'x-service-key': first!.key, 'idempotency-key': 'same' };
        const asSecond = { 'x-service-key': second!.key, 'idempotency-key': 'same' };
        const a = await post(url, '/things', {}, asFirst);
        const replay = await post(url, '/things', {}, asFirst);
        const b = await post(url, '/things', {}, asSecond);
        expect(a.json).toEqual({ n: 1, key: first!.record.id });
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.json).toEqual(a.json);
        expect(b.headers.get('idempotent-replayed')).toBeNull();
        expect(b.json).toEqual({ n: 2, key: second!.record.id });
      },
    );
  });
});
