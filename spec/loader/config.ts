// Runtime settings (server, stores, modules) as the IR keeps them: `${VAR}` references stay templates so
// the generated config resolves them when the service starts, with server defaults filled in.
import type { ConfigValue } from '../../shared/ir.js';
import { entry, type LoadContext } from './context.js';
import { setOwn, type MapNode, type Node } from './yaml-tree.js';

export const SERVER_DEFAULTS = {
  adapter: 'fastify',
  port: 3000,
  host: '127.0.0.1',
  entry: 'src/server.ts',
} as const;

export function loadConfig(_ctx: LoadContext, root: MapNode): { [key: string]: ConfigValue } {
  const server: { [key: string]: ConfigValue } = { ...SERVER_DEFAULTS };
  const serverNode = entry(root, 'server');
  if (serverNode?.kind === 'map')
    for (const item of serverNode.entries) setOwn(server, item.key, toConfig(item.value));
  return {
    server,
    stores: sectionOf(entry(root, 'stores')),
    modules: sectionOf(entry(root, 'modules')),
  };
}

function sectionOf(node: Node | undefined): { [key: string]: ConfigValue } {
  const value = node?.kind === 'map' ? toConfig(node) : {};
  return value as { [key: string]: ConfigValue };
}

export function toConfig(node: Node): ConfigValue {
  if (node.kind === 'seq') return node.items.map(toConfig);
  if (node.kind === 'map') {
    const out: { [key: string]: ConfigValue } = {};
    for (const item of node.entries) setOwn(out, item.key, toConfig(item.value));
    return out;
  }
  if (node.template)
    return node.reread ? { $template: node.template, reread: true } : { $template: node.template };
  return node.value;
}
