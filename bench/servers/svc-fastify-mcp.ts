// svc on Fastify with the bench's two routes, both also agent tools (`meta.mcp: true`: get_hello and
// post_items, tools derived at boot), and the MCP endpoint twice: stateless at /mcp (every POST stands alone)
// and with sessions at /mcp-session (initialize once, then `mcp-session-id` on every request). The mcp bench
// sends the same route to one process of this server over HTTP and to another as a tools/call, so both sides
// carry the same plugins and routes and differ only in how the route is reached. bench/mcp.ts has the requests.
import { mcpPlugin, mcpRoutes, type AdapterOptions } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { startSvcBenchServer } from './svc-server.js';

const endpoints = [
  ...mcpRoutes({ sessions: false }),
  // A second endpoint needs route ids of its own; the path alone tells the two apart over HTTP.
  ...mcpRoutes({ path: '/mcp-session' }).map((route) => ({ ...route, id: `${route.id}Session` })),
];

await startSvcBenchServer({
  adapter: (options: AdapterOptions) =>
    fastifyPlugin({ ...options, routes: [...(options.routes ?? []), ...endpoints] }),
  plugins: [mcpPlugin()],
  meta: { mcp: true },
});
