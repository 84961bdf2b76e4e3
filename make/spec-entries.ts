// What `svc make:*` declares in svc.config.yaml for a resource: its schemas (the resource, what a create
// sends, what a change sends, one page of a list), the five CRUD routes and their error codes. The spec is
// where the API lives, so `svc build` keeps the types, validators, OpenAPI, MCP tools and client in step
// with every later edit of these entries.
import { capitalize, names, type Names } from './names.js';
import type { SpecEntries } from './spec-edit.js';

export interface ResourceSpecOptions {
  /** Every route needs a signed-in user (`meta.auth: true`). */
  auth: boolean;
  /** Rows belong to the tenant the request names; the routes may answer TENANT_REQUIRED. */
  tenant: boolean;
}

/** The words of a name for people: `blog post`, `blog posts`. */
export function wordsFor(n: Names): { one: string; many: string } {
  return { one: n.kebab.replaceAll('-', ' '), many: n.pluralKebab.replaceAll('-', ' ') };
}

/** The type-name and route-id spelling of the plural: `BlogPosts`. */
export function pluralPascal(n: Names): string {
  return names(n.pluralKebab).pascal;
}

/** The ids of the five routes, in the order the spec lists them. */
export function routeIds(n: Names): {
  list: string;
  create: string;
  get: string;
  update: string;
  delete: string;
} {
  return {
    list: `list${pluralPascal(n)}`,
    create: `create${n.pascal}`,
    get: `get${n.pascal}`,
    update: `update${n.pascal}`,
    delete: `delete${n.pascal}`,
  };
}

/** The error codes the resource declares. */
export function errorCodes(n: Names): { notFound: string; cursorInvalid: string } {
  return { notFound: `${n.constant}_NOT_FOUND`, cursorInvalid: `${n.constant}_CURSOR_INVALID` };
}

const NAME = { type: 'string', minLength: 1, maxLength: 200 };

/** The resource, `<Name>Input`, `<Name>Patch` and `<Name>Page`. */
export function schemaEntries(n: Names): SpecEntries {
  const { one, many } = wordsFor(n);
  return {
    resources: {
      [n.pascal]: {
        type: 'object',
        description: `A ${one}.`,
        properties: {
          id: { type: 'string', format: 'uuid', readOnly: true },
          name: NAME,
          createdAt: { type: 'string', format: 'date-time', readOnly: true },
          updatedAt: { type: 'string', format: 'date-time', readOnly: true },
        },
        required: ['id', 'name', 'createdAt', 'updatedAt'],
        additionalProperties: false,
      },
      [`${n.pascal}Input`]: {
        type: 'object',
        description: `What a client sends to create a ${one}.`,
        properties: { name: NAME },
        required: ['name'],
        additionalProperties: false,
      },
      [`${n.pascal}Patch`]: {
        type: 'object',
        description: 'The fields to change; at least one.',
        properties: { name: NAME },
        minProperties: 1,
        additionalProperties: false,
      },
      [`${n.pascal}Page`]: {
        type: 'object',
        description: `One page of ${many}, newest first.`,
        properties: {
          items: { type: 'array', items: { $ref: `#/resources/${n.pascal}` } },
          nextCursor: {
            type: ['string', 'null'],
            description: 'Pass as `cursor` to read the next page; null on the last page.',
          },
        },
        required: ['items', 'nextCursor'],
        additionalProperties: false,
      },
    },
  };
}

/** The five CRUD routes and the codes they answer. */
export function routeEntries(n: Names, options: ResourceSpecOptions): SpecEntries {
  const { one, many } = wordsFor(n);
  const ids = routeIds(n);
  const codes = errorCodes(n);
  const collection = `/${n.pluralKebab}`;
  const member = `${collection}/:id`;
  const id = { id: { type: 'string', format: 'uuid' } };
  // A tenant-scoped handler refuses a request that names no tenant.
  const scoped = (list: string[]): string[] => (options.tenant ? [...list, 'TENANT_REQUIRED'] : list);
  const meta = (summary: string) => ({
    summary,
    tags: [n.pluralKebab],
    ...(options.auth ? { auth: true } : {}),
    mcp: true,
  });
  return {
    routes: {
      [ids.list]: {
        method: 'GET',
        path: collection,
        query: {
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          cursor: { type: 'string', minLength: 1, maxLength: 500 },
        },
        response: { 200: `${n.pascal}Page` },
        errors: scoped([codes.cursorInvalid]),
        meta: meta(`List ${many}`),
      },
      [ids.create]: {
        method: 'POST',
        path: collection,
        body: `${n.pascal}Input`,
        response: { 201: n.pascal },
        ...(options.tenant ? { errors: ['TENANT_REQUIRED'] } : {}),
        meta: meta(`Create a ${one}`),
      },
      [ids.get]: {
        method: 'GET',
        path: member,
        params: id,
        response: { 200: n.pascal },
        errors: scoped([codes.notFound]),
        meta: meta(`Read a ${one}`),
      },
      [ids.update]: {
        method: 'PATCH',
        path: member,
        params: id,
        body: `${n.pascal}Patch`,
        response: { 200: n.pascal },
        errors: scoped([codes.notFound]),
        meta: meta(`Change a ${one}`),
      },
      [ids.delete]: {
        method: 'DELETE',
        path: member,
        params: id,
        response: { 204: null },
        errors: scoped([codes.notFound]),
        meta: meta(`Delete a ${one}`),
      },
    },
    errors: {
      [codes.notFound]: { status: 404, message: `${capitalize(one)} not found.` },
      [codes.cursorInvalid]: {
        status: 400,
        message: 'The cursor is not valid for this list.',
        description: 'The cursor was not produced by this service or was altered.',
      },
    },
  };
}
