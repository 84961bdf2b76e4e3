// One rule for path templates across the OpenAPI documents and MCP tools: a parameter is a whole segment.
import { describe, expect, it } from 'vitest';
import { openApiPath, templateParameterNames } from '../../shared/path-template.js';

describe('path templates', () => {
  it('reads a parameter as a whole segment, as the routers match it', () => {
    expect(templateParameterNames('/notes/:id/tags/:tag')).toEqual(['id', 'tag']);
    expect(openApiPath('/notes/:id/tags/:tag')).toBe('/notes/{id}/tags/{tag}');
    // A colon inside a segment is literal; a segment that starts with one is a parameter, whatever follows.
    expect(templateParameterNames('/a:b/:file.json')).toEqual(['file.json']);
    expect(openApiPath('/a:b/:file.json')).toBe('/a:b/{file.json}');
    expect(templateParameterNames('/')).toEqual([]);
    expect(openApiPath('/files/*')).toBe('/files/*');
  });
});
