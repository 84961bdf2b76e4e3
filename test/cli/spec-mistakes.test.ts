// Spec mistakes as a user makes them: `svc build` must exit 1 and point at file:line:column with a hint.
import { describe, expect, test } from 'vitest';
import { runSvc, tempProject } from './run-svc.js';

const VALID = `svc: 1
name: demo
version: 1.0.0
resources:
  Item:
    type: object
    properties:
      id: { type: string }
      name: { type: string, maxLength: 50 }
    required: [id]
routes:
  getItem:
    method: GET
    path: /items/:id
    params:
      id: { type: string }
    response: { 200: Item }
    errors: [ITEM_NOT_FOUND]
    meta: { auth: false, summary: Read one item }
errors:
  ITEM_NOT_FOUND: { status: 404, message: Item not found. }
`;

interface Mistake {
  name: string;
  /** The spec with the mistake. */
  spec: string;
  /** Text at the reported position: its first occurrence (after `after`, if given) gives line and column. */
  at: string;
  after?: string;
  message: RegExp;
  hint: RegExp;
}

function replace(from: string, to: string): string {
  if (!VALID.includes(from)) throw new Error(`fixture does not contain ${from}`);
  return VALID.replace(from, to);
}

const MISTAKES: Mistake[] = [
  {
    name: 'misspelt route key',
    spec: replace('    method: GET', '    methd: GET'),
    at: 'methd',
    message: /unknown key 'methd'/,
    hint: /method/,
  },
  {
    name: 'HTTP method outside the enum',
    spec: replace('method: GET', 'method: GETS'),
    at: 'GETS',
    message: /GET, POST/,
    hint: /.+/,
  },
  {
    name: 'misspelt meta key (would silently drop protection)',
    spec: replace('meta: { auth: false', 'meta: { atuh: false'),
    at: 'atuh',
    message: /unknown key 'atuh'/,
    hint: /auth/,
  },
  {
    name: 'undeclared error code',
    spec: replace('errors: [ITEM_NOT_FOUND]', 'errors: [ITEM_NOT_FUOND]'),
    at: 'ITEM_NOT_FUOND',
    message: /ITEM_NOT_FUOND/,
    hint: /ITEM_NOT_FOUND/,
  },
  {
    name: 'path parameter not declared',
    spec: replace('    params:\n      id: { type: string }\n', ''),
    at: ':id',
    message: /id/,
    hint: /params/,
  },
  {
    name: 'same method and path twice (parameter names differ)',
    spec: VALID.replace(
      'errors:\n  ITEM_NOT_FOUND',
      `  readItem:\n    method: GET\n    path: /items/:itemId\n    params:\n      itemId: { type: string }\nerrors:\n  ITEM_NOT_FOUND`,
    ),
    at: '/items/:itemId',
    message: /GET \/items/,
    hint: /.+/,
  },
  {
    name: 'response refers to a resource that does not exist',
    spec: replace('response: { 200: Item }', 'response: { 200: Itme }'),
    at: 'Itme',
    message: /Itme/,
    hint: /Item/,
  },
  {
    name: 'non-local $ref',
    spec: replace(
      '      id: { type: string }\n      name',
      "      id: { $ref: 'https://example.com/id.json' }\n      name",
    ),
    at: "'https://example.com/id.json'",
    message: /\$ref/,
    hint: /#\/resources\//,
  },
  {
    name: 'environment variable without a default is unset',
    spec: replace('name: demo', 'name: ${SVC_TEST_UNSET_NAME}'),
    at: '${SVC_TEST_UNSET_NAME}',
    message: /SVC_TEST_UNSET_NAME/,
    hint: /SVC_TEST_UNSET_NAME:-/,
  },
  {
    name: 'misspelt JSON Schema keyword',
    spec: replace('maxLength: 50', 'maxLenght: 50'),
    at: 'maxLenght',
    message: /maxLenght/,
    hint: /maxLength/,
  },
  {
    name: 'error status of the wrong type',
    spec: replace('status: 404', 'status: not-found'),
    at: 'not-found',
    message: /integer/,
    hint: /.+/,
  },
  {
    name: 'YAML syntax error',
    spec: replace('    path: /items/:id', '    path: "/items/:id'),
    at: '"/items/:id',
    message: /.+/,
    hint: /.+/,
  },
];

function position(text: string, needle: string, after?: string): { line: number; column: number } {
  const start = after === undefined ? 0 : text.indexOf(after);
  const index = text.indexOf(needle, start);
  if (index < 0) throw new Error(`fixture does not contain ${needle}`);
  const before = text.slice(0, index);
  return { line: before.split('\n').length, column: index - before.lastIndexOf('\n') };
}

describe('svc build reports spec mistakes with position and hint', () => {
  test('the valid fixture builds', async () => {
    const dir = await tempProject({ 'svc.config.yaml': VALID });
    const result = await runSvc(['build', `--dir=${dir}`]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  test.each(MISTAKES)('$name', async (mistake) => {
    const dir = await tempProject({ 'svc.config.yaml': mistake.spec });
    const result = await runSvc(['build', `--dir=${dir}`], { env: { SVC_TEST_UNSET_NAME: undefined } });
    expect(result.code).toBe(1);
    const { line, column } = position(mistake.spec, mistake.at, mistake.after);
    const block = result.stderr.split(/\n(?=\S)/).find((part) => part.includes(`svc.config.yaml:${line}:`));
    expect(block, result.stderr).toBeDefined();
    expect(block).toContain(`svc.config.yaml:${line}:${column}`);
    expect(block).toMatch(mistake.message);
    const hint = /hint: (.*)/.exec(block ?? '');
    expect(hint?.[1]).toMatch(mistake.hint);
  });
});
