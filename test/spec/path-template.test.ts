// One rule for path templates everywhere (shared/path-template.ts): a parameter is a whole segment, `*` the
// whole last segment; every reading (names, shape, regex, OpenAPI path, filled path, order) derives from
// parsePathTemplate. test/http/path-template-owners.test.ts feeds the same templates to every call site.
import { describe, expect, it } from 'vitest';
import {
  compareTemplateSpecificity,
  fillPathTemplate,
  openApiPath,
  parsePathTemplate,
  pathShape,
  pathTemplatePattern,
  pathTemplateProblem,
  templateParameterNames,
  toolNamePieces,
} from '../../shared/path-template.js';

describe('path templates', () => {
  it('parses segments with the offset of their first character', () => {
    expect(parsePathTemplate('/notes/:id/*')).toEqual([
      { kind: 'literal', text: 'notes', offset: 1 },
      { kind: 'param', name: 'id', offset: 7 },
      { kind: 'wildcard', offset: 11 },
    ]);
    expect(parsePathTemplate('/')).toEqual([{ kind: 'literal', text: '', offset: 1 }]);
  });

  it('reads a parameter as a whole segment, as the routers match it', () => {
    expect(templateParameterNames('/notes/:id/tags/:tag')).toEqual(['id', 'tag']);
    expect(openApiPath('/notes/:id/tags/:tag')).toBe('/notes/{id}/tags/{tag}');
    // A colon inside a segment is literal; a segment that starts with one is a parameter, whatever follows.
    expect(templateParameterNames('/a:b/:file.json')).toEqual(['file.json']);
    expect(openApiPath('/a:b/:file.json')).toBe('/a:b/{file.json}');
    expect(templateParameterNames('/')).toEqual([]);
    expect(openApiPath('/files/*')).toBe('/files/*');
    expect(pathShape('/notes/:id/x')).toBe(pathShape('/notes/:noteId/x'));
    expect(toolNamePieces('/notes/:id')).toEqual(['notes', 'by_id']);
  });

  it('fills parameters URL-encoded, a missing one empty', () => {
    expect(fillPathTemplate('/notes/:id/tags/:tag', { id: 'a b/c', tag: 'x' })).toBe(
      '/notes/a%20b%2Fc/tags/x',
    );
    expect(fillPathTemplate('/notes/:id', {})).toBe('/notes/');
  });

  it('matches one non-empty segment per parameter and the rest for `*`, literally otherwise', () => {
    const note = pathTemplatePattern('/notes/:id');
    expect(['/notes/1', '/notes/', '/notes/1/2'].map((path) => note.test(path))).toEqual([
      true,
      false,
      false,
    ]);
    expect(pathTemplatePattern('/files/*').test('/files/a/b.txt')).toBe(true);
    expect(pathTemplatePattern('/a.b/(x)').test('/aXb/(x)')).toBe(false);
  });

  it('orders literal before parameter before wildcard at the first differing segment', () => {
    const sorted = ['/a/*', '/a/:id', '/a/x'].sort(compareTemplateSpecificity);
    expect(sorted).toEqual(['/a/x', '/a/:id', '/a/*']);
  });

  it('names the templates the routers would read differently', () => {
    expect(pathTemplateProblem('/files/*')).toBeUndefined();
    expect(pathTemplateProblem('/notes/:id')).toBeUndefined();
    expect(pathTemplateProblem('/files/*/x')).toMatch(/last segment/);
    expect(pathTemplateProblem('/x/:')).toMatch(/names no parameter/);
    expect(pathTemplateProblem('/a:b')).toMatch(/whole segment/);
    expect(pathTemplateProblem('/a*')).toMatch(/whole segment/);
  });
});
