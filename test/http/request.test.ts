// The neutral request every adapter hands to handlers.
import { describe, expect, it } from 'vitest';
import { route } from 'svckit';
import { adapters, call, withServer } from './harness.js';

const describeRequest = route({
  method: 'GET',
  url: '/files/:folder/:name',
  handler: ({ request, params, query }) => ({
    method: request.method,
    url: request.url,
    path: request.path,
    routePattern: request.routePattern,
    ip: request.ip,
    header: request.headers['x-custom'],
    query,
    queryPrototype: Object.getPrototypeOf(query) === null ? 'null' : 'object',
    params,
    paramsPrototype: Object.getPrototypeOf(params) === null ? 'null' : 'object',
    polluted: ({} as Record<string, unknown>).polluted ?? null,
  }),
});

describe.each(adapters)('the neutral request on $name', (adapter) => {
  it('carries method, origin-form url, path, route template, ip and lower-case headers', async () => {
    await withServer(adapter, { routes: [describeRequest] }, async (url) => {
      const response = await call(`${url}/files/a%2Fb/c%20d.txt?x=1`, { headers: { 'X-Custom': 'yes' } });
      expect(response.json).toMatchObject({
        method: 'GET',
        url: '/files/a%2Fb/c%20d.txt?x=1',
        path: '/files/a%2Fb/c%20d.txt',
        routePattern: '/files/:folder/:name',
        ip: '127.0.0.1',
        header: 'yes',
        params: { folder: 'a/b', name: 'c d.txt' },
        paramsPrototype: 'null',
      });
    });
  });

  it('parses the query with our rules into a null-prototype object', async () => {
    await withServer(adapter, { routes: [describeRequest] }, async (url) => {
      const response = await call(
        `${url}/files/a/b?tag=1&tag=2&q=caf%C3%A9+au+lait&bad=%E0%A4%A&__proto__[polluted]=1&__proto__=x`,
      );
      expect(response.json).toMatchObject({
        query: { tag: ['1', '2'], q: 'café au lait', bad: '%E0%A4%A', '__proto__[polluted]': '1' },
        queryPrototype: 'null',
        polluted: null,
      });
      const empty = await call(`${url}/files/a/b`);
      expect(empty.json).toMatchObject({ query: {}, queryPrototype: 'null' });
    });
  });
});
