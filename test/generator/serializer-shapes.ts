// A spec whose responses reach every kind of serializer plan: closed and open objects, nested objects,
// arrays of resources, nullable types, patternProperties, unions told apart by kind and by validators,
// recursion, allOf, a conditional schema (written whole once valid) and dates. The generator tests import
// the serializers it compiles to; the HTTP tests serve its routes on every adapter.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { build } from 'svckit/generator';
import type { CompiledValidator, ResponseSerializer, Route } from 'svckit';
import { createProject, type TestProject } from './project.js';

export const SHAPES_YAML = `svc: 1
name: shapes-api
version: 1.0.0
resources:
  Note:
    type: object
    properties:
      id: { type: string }
      title: { type: string }
      body: { type: string }
      createdAt: { type: string, format: date-time }
      rating: { type: number }
      pinned: { type: boolean }
    required: [id, title]
    additionalProperties: false
  Owner:
    type: object
    properties:
      name: { type: string }
    required: [name]
    additionalProperties: false
  Page:
    type: object
    properties:
      items: { type: array, items: { $ref: '#/resources/Note' } }
      nextCursor: { type: [string, 'null'] }
      owner: { $ref: '#/resources/Owner' }
    required: [items, nextCursor]
    additionalProperties: false
  Open:
    type: object
    properties:
      name: { type: string }
      owner: { $ref: '#/resources/Owner' }
  Labels:
    type: object
    properties:
      id: { type: string }
    patternProperties:
      '^x-': { type: string }
    additionalProperties: false
  Circle:
    type: object
    properties:
      kind: { type: string, const: circle }
      radius: { type: number }
    required: [kind, radius]
    additionalProperties: false
  Square:
    type: object
    properties:
      kind: { type: string, const: square }
      side: { type: number }
    required: [kind, side]
    additionalProperties: false
  Shape:
    oneOf: [{ $ref: '#/resources/Circle' }, { $ref: '#/resources/Square' }]
  MaybeNote:
    anyOf: [{ $ref: '#/resources/Note' }, { type: 'null' }]
  Tree:
    type: object
    properties:
      name: { type: string }
      children: { type: array, items: { $ref: '#/resources/Tree' } }
    required: [name]
    additionalProperties: false
  Base:
    type: object
    properties:
      id: { type: string }
    required: [id]
  Stamped:
    type: object
    allOf:
      - { $ref: '#/resources/Base' }
      - type: object
        properties:
          stamp: { type: string }
    unevaluatedProperties: false
  Conditional:
    type: object
    properties:
      kind: { type: string }
      detail: { type: string }
    if: { properties: { kind: { const: full } } }
    then: { properties: { detail: { type: string, minLength: 3 } }, required: [detail] }
    additionalProperties: false
  Day:
    type: object
    properties:
      day: { type: string, format: date }
      at: { type: string, format: time }
    additionalProperties: false
routes:
  getNote:
    method: GET
    path: /notes/one
    response: { 200: Note }
    meta: { etag: true }
  createNote:
    method: POST
    path: /notes
    response: { 201: Note }
  listNotes:
    method: GET
    path: /notes
    response: { 200: Page }
  getOpen:
    method: GET
    path: /open
    response: { 200: Open }
  getLabels:
    method: GET
    path: /labels
    response: { 200: Labels }
  getShape:
    method: GET
    path: /shape
    response: { 200: Shape }
  findNote:
    method: GET
    path: /notes/maybe
    response: { 200: MaybeNote }
  getTree:
    method: GET
    path: /tree
    response: { 200: Tree }
  getStamped:
    method: GET
    path: /stamped
    response: { 200: Stamped }
  getConditional:
    method: GET
    path: /conditional
    response: { 200: Conditional }
  getDay:
    method: GET
    path: /day
    response: { 200: Day }
  getAnything:
    method: GET
    path: /anything
    response: { 200: { type: object } }
  deleteNote:
    method: DELETE
    path: /notes/one
    response: { 204: null }
`;

export interface ShapesModules {
  serializers: Record<string, ResponseSerializer | CompiledValidator>;
  routes: {
    routes(handlers: Record<string, unknown>): Route[];
    routeDefinitions: readonly Omit<Route, 'handler'>[];
  };
}

/** Builds SHAPES_YAML with `svc build` into a throwaway project and imports what it wrote. */
export async function buildShapes(): Promise<{ project: TestProject; modules: ShapesModules }> {
  const project = createProject(SHAPES_YAML);
  try {
    await build({ specFile: project.specFile, env: {} });
    const load = (name: string) => import(pathToFileURL(join(project.outDir, name)).href);
    const modules = {
      serializers: (await load('serializers.js')) as ShapesModules['serializers'],
      routes: (await load('routes.ts')) as ShapesModules['routes'],
    };
    return { project, modules };
  } catch (error) {
    project.remove();
    throw error;
  }
}
