// The API-key page runs under its own CSP: the hashes in the policy must be those of the exact script and style
// text the HTML carries (one byte off and the browser runs nothing), the page must hold nothing a hash cannot
// allow, and what the server puts into it (title, apiBase, scopes) must arrive as text, never as markup or
// script. The route serves it with that policy, another one, or none, and refuses options it cannot take.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../runtime/config/option-errors.js';
import { API_KEYS_PAGE_IDS, apiKeysPageCsp, apiKeysPageHtml } from '../../runtime/auth/http/apikeys-page.js';
import { apiKeysUiRoutes } from '../../runtime/auth/http/apikeys-ui-routes.js';
import type { Route } from '../../runtime/http/types.js';

/** The text inside each `<tag>…</tag>` of `html`. */
function elementTexts(html: string, tag: string): string[] {
  return [...html.matchAll(new RegExp(`<${tag}(\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))].map(
    (match) => match[2]!,
  );
}

function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The CSP as directive → sources. */
function directives(policy: string): Map<string, string> {
  return new Map(
    policy.split(';').map((part) => {
      const [name, ...sources] = part.trim().split(/\s+/);
      return [name!, sources.join(' ')];
    }),
  );
}

/** The markup with the script and style contents removed: what the browser parses as tags and attributes. */
const markupOf = (html: string) => html.replace(/<(script|style)>[\s\S]*?<\/\1>/g, '<$1></$1>');

const html = apiKeysPageHtml({ scopes: ['notes:read', 'notes:write'] });
const markup = markupOf(html);

interface Served {
  body: unknown;
  headers: Record<string, string>;
}

/** Calls the page route's handler with a stub reply, as an adapter would. */
async function serve(route: Route): Promise<Served> {
  const headers: Record<string, string> = {};
  const reply = {
    header(name: string, value: string) {
      headers[name.toLowerCase()] = value;
      return reply;
    },
  };
  const handler = route.handler as unknown as (input: { reply: typeof reply }) => unknown;
  return { body: await handler({ reply }), headers };
}

function onlyRoute(routes: Route[]): Route {
  expect(routes).toHaveLength(1);
  return routes[0]!;
}

describe('the API-key page', () => {
  it('has one script and one style, each allowed by the hash of its exact text and nothing else', () => {
    const scripts = elementTexts(html, 'script');
    const styles = elementTexts(html, 'style');
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    const policy = directives(apiKeysPageCsp());
    expect(policy.get('script-src')).toBe(hashSource(scripts[0]!));
    expect(policy.get('style-src')).toBe(hashSource(styles[0]!));
    expect(policy.get('script-src')).not.toBe(hashSource(`${scripts[0]!} `));
    // Options change the markup around the script, never the script: one policy fits every page.
    const other = apiKeysPageHtml({ title: 'Keys & more', apiBase: '/api', scopes: ['*'] });
    expect(elementTexts(other, 'script')).toEqual(scripts);
    expect(directives(apiKeysPageCsp({ apiBase: '/api' })).get('script-src')).toBe(hashSource(scripts[0]!));
  });

  it('answers a locked-down policy: requests to its own origin only, no forms, frames or base', () => {
    const policy = directives(apiKeysPageCsp());
    expect(
      Object.fromEntries(
        [...policy].filter(
          ([name]) => !name.endsWith('-src') || name === 'default-src' || name === 'connect-src',
        ),
      ),
    ).toEqual({
      'default-src': "'none'",
      'connect-src': "'self'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    expect([...policy.keys()].sort()).toEqual([
      'base-uri',
      'connect-src',
      'default-src',
      'form-action',
      'frame-ancestors',
      'script-src',
      'style-src',
    ]);
    expect(apiKeysPageCsp()).not.toMatch(/unsafe-|nonce-|\*|data:|https?:/);
  });

  it('allows the origin of an absolute apiBase to be called, and sends the cookie there', () => {
    const policy = directives(apiKeysPageCsp({ apiBase: 'https://api.example.com/v1/' }));
    expect(policy.get('connect-src')).toBe("'self' https://api.example.com");
    const page = apiKeysPageHtml({ apiBase: 'https://api.example.com/v1/' });
    expect(page).toContain('data-api-base="https://api.example.com/v1"');
    expect(page).toContain('data-credentials="include"');
    expect(html).toContain('data-api-base=""');
    expect(html).toContain('data-credentials="same-origin"');
    // A path stays on the page's origin.
    expect(directives(apiKeysPageCsp({ apiBase: '/api' })).get('connect-src')).toBe("'self'");
  });

  it('has no inline handler, style attribute, javascript: URL or external resource', () => {
    expect(markup).not.toMatch(/\son[a-z]+\s*=/i);
    expect(markup).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
    expect(markup).not.toMatch(/\s(src|href|action)\s*=/i);
    expect(markup.match(/<script\b/g)).toHaveLength(1);
  });

  it('keeps its script valid JavaScript that cannot end its element early, and keeps no token', () => {
    const [script] = elementTexts(html, 'script');
    expect(script).not.toContain('</');
    expect(() => new Function(script!)).not.toThrow();
    expect(script).not.toMatch(/localStorage|sessionStorage|document\.cookie|innerHTML|eval\(/);
    expect(script).not.toMatch(/accessToken|refreshToken/);
  });

  it('gives each control a stable id, once, and a label to every input', () => {
    for (const id of Object.values(API_KEYS_PAGE_IDS)) {
      expect(markup.match(new RegExp(`\\sid="${id}"`, 'g')), id).toHaveLength(1);
    }
    const inputs = [...markup.matchAll(/<input\s[^>]*\bid="([^"]+)"/g)].map((match) => match[1]!);
    expect(inputs.length).toBeGreaterThan(5);
    for (const input of inputs) expect(markup, input).toContain(`<label for="${input}">`);
    expect(markup).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(markup).toMatch(/id="message" role="status" aria-live="polite"/);
  });

  it('offers each scope as a checkbox', () => {
    expect(markup).toContain('value="notes:read"><label for="scope-0">notes:read</label>');
    expect(markup).toContain('value="notes:write"><label for="scope-1">notes:write</label>');
    expect(apiKeysPageHtml()).toContain('value="*"');
  });

  it('escapes the title and apiBase: markup, quotes and & arrive as text', () => {
    const hostile = '</title><script>alert("x")</script> & \'quoted\'';
    const page = apiKeysPageHtml({ title: hostile, apiBase: '/api"><script>alert(1)</script>&x' });
    const escapedTitle =
      '&lt;/title&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;';
    expect(page).toContain(`<title>${escapedTitle}</title>`);
    expect(page).toContain(`<h1>${escapedTitle}</h1>`);
    expect(page).toContain('data-api-base="/api&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;x"');
    expect(markupOf(page).match(/<script\b/g)).toHaveLength(1);
    expect(page).not.toContain('alert("x")');
  });

  it('refuses options it cannot take', () => {
    const refused: unknown[] = [
      { titel: 'Keys' },
      { title: '' },
      { title: 'x'.repeat(201) },
      { title: 7 },
      { apiBase: 'api' },
      { apiBase: '//evil.example' },
      { apiBase: 'javascript:alert(1)' },
      { apiBase: 'ftp://example.com' },
      { apiBase: 'https://user:pw@example.com' },
      { apiBase: '/api?x=1' },
      { apiBase: '/a b' },
      { scopes: [] },
      { scopes: ['<script>'] },
      { scopes: ['a"b'] },
      { scopes: ['a&b'] },
      { scopes: ['notes:read', 'notes:read'] },
      { scopes: 'notes:read' },
      null,
      [],
    ];
    for (const options of refused) {
      expect(() => apiKeysPageHtml(options as never), JSON.stringify(options)).toThrow(OptionError);
    }
    expect(() => apiKeysPageHtml({ titel: 'Keys' } as never)).toThrow(/unknown option "titel".*"title"/);
    expect(() => apiKeysPageCsp({ apiBase: 'api' })).toThrow(/apiBase must be/);
    expect(apiKeysPageHtml({ title: 'x'.repeat(200) })).toContain(`<h1>${'x'.repeat(200)}</h1>`);
  });
});

describe('apiKeysUiRoutes', () => {
  it('serves the page once built at /apikeys/ui, an edge route with document headers and its own CSP', async () => {
    const route = onlyRoute(apiKeysUiRoutes({ scopes: ['notes:read'], title: 'Keys' }));
    expect(route).toMatchObject({
      method: 'GET',
      url: '/apikeys/ui',
      edge: true,
      meta: { documentHeaders: true },
    });
    const first = await serve(route);
    expect(first.body).toBe(apiKeysPageHtml({ scopes: ['notes:read'], title: 'Keys' }));
    expect(first.headers).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': apiKeysPageCsp(),
    });
    // The same string every time: built when the route is, not per request.
    expect((await serve(route)).body).toBe(first.body);
  });

  it('matches the policy to apiBase, and takes another path', async () => {
    const route = onlyRoute(apiKeysUiRoutes({ path: '/keys', apiBase: 'https://api.example.com' }));
    expect(route.url).toBe('/keys');
    const served = await serve(route);
    expect(served.headers['content-security-policy']).toBe(
      apiKeysPageCsp({ apiBase: 'https://api.example.com' }),
    );
    expect(served.headers['content-security-policy']).toContain("connect-src 'self' https://api.example.com");
  });

  it('sends the policy given instead, or none with csp: false', async () => {
    const replaced = await serve(onlyRoute(apiKeysUiRoutes({ csp: "default-src 'self'" })));
    expect(replaced.headers['content-security-policy']).toBe("default-src 'self'");
    const none = await serve(onlyRoute(apiKeysUiRoutes({ csp: false })));
    expect(none.headers).not.toHaveProperty('content-security-policy');
    expect(none.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(none.headers['cache-control']).toBe('no-store');
  });

  it('refuses patterns, unknown options, bad policies and bad page options', () => {
    for (const path of ['/keys/:id', '/keys/*', 'keys', 7]) {
      expect(() => apiKeysUiRoutes({ path } as never)).toThrow(/a literal path starting with "\/"/);
    }
    expect(() => apiKeysUiRoutes({ pth: '/x' } as never)).toThrow(/unknown option "pth"/);
    for (const csp of [true, '', "default-src 'none'\r\nx-evil: 1", 7]) {
      expect(() => apiKeysUiRoutes({ csp } as never), String(csp)).toThrow(/csp must be/);
    }
    expect(() => apiKeysUiRoutes({ apiBase: '//evil.example' })).toThrow(
      /apiKeysUiRoutes\(\): apiBase must be/,
    );
    expect(() => apiKeysUiRoutes({ scopes: [] })).toThrow(OptionError);
    expect(() => apiKeysUiRoutes(null as never)).toThrow(OptionError);
  });
});
