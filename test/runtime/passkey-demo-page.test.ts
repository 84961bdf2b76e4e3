// The passkey demo page runs under its own CSP: the hashes in the policy must be those of the exact script and
// style text the HTML carries (one byte off and the browser runs nothing), and the page must hold nothing a
// hash cannot allow (inline handlers, style attributes, javascript: URLs) or that loads from elsewhere.
import { passkeyDemoPlugin } from '../../runtime/auth/http/passkey-demo-plugin.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  PASSKEY_DEMO_CSP,
  PASSKEY_DEMO_IDS,
  passkeyDemoPage,
} from '../../runtime/auth/http/passkey-demo-page.js';

const html = passkeyDemoPage();

/** The text inside each `<tag>…</tag>` of the page. */
function elementTexts(tag: string): string[] {
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
const markup = html.replace(/<(script|style)>[\s\S]*?<\/\1>/g, '<$1></$1>');

describe('the passkey demo page', () => {
  it('has one script and one style, each allowed by the hash of its exact text and nothing else', () => {
    const scripts = elementTexts('script');
    const styles = elementTexts('style');
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);

    const policy = directives(PASSKEY_DEMO_CSP);
    expect(policy.get('script-src')).toBe(hashSource(scripts[0]!));
    expect(policy.get('style-src')).toBe(hashSource(styles[0]!));
    // A change to the text changes the hash: the policy is not a hash of something else that happens to match.
    expect(policy.get('script-src')).not.toBe(hashSource(`${scripts[0]!} `));
  });

  it('answers the whole policy: nothing by default, requests to its own origin, no forms, frames or base', () => {
    const policy = directives(PASSKEY_DEMO_CSP);
    expect([...policy.keys()]).toEqual([
      'default-src',
      'script-src',
      'style-src',
      'connect-src',
      'img-src',
      'form-action',
      'frame-ancestors',
      'base-uri',
    ]);
    expect(
      Object.fromEntries(
        [...policy].filter(([name]) => !name.endsWith('script-src') && name !== 'style-src'),
      ),
    ).toEqual({
      'default-src': "'none'",
      'connect-src': "'self'",
      'img-src': "'self'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
    });
    expect(PASSKEY_DEMO_CSP).not.toMatch(/unsafe-|nonce-|\*|data:|https?:/);
  });

  it('has no inline handler, style attribute, javascript: URL or external resource', () => {
    expect(markup).not.toMatch(/\son[a-z]+\s*=/i);
    expect(markup).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
    expect(markup).not.toMatch(/\s(src|href|action)\s*=/i);
    expect(markup.match(/<script\b/g)).toHaveLength(1);
  });

  it('keeps its script valid JavaScript that cannot end its element early', () => {
    const [script] = elementTexts('script');
    expect(script).not.toContain('</');
    // Parses without running: a syntax error would leave the page dead in the browser with no test noticing.
    expect(() => new Function(script!)).not.toThrow();
  });

  it('gives each control a stable id, once', () => {
    for (const id of Object.values(PASSKEY_DEMO_IDS)) {
      expect(markup.match(new RegExp(`\\sid="${id}"`, 'g')), id).toHaveLength(1);
    }
  });

  it('drives the auth routes the demo needs, and only through them', () => {
    const [script] = elementTexts('script');
    const paths = [...script!.matchAll(/'(\/auth\/[^']*)'/g)].map((match) => match[1]);
    expect(new Set(paths)).toEqual(
      new Set([
        '/auth/me',
        '/auth/register',
        '/auth/login',
        '/auth/logout',
        '/auth/passkeys/register/options',
        '/auth/passkeys/register/verify',
        '/auth/passkeys/login/options',
        '/auth/passkeys/login/verify',
      ]),
    );
  });
});

describe('passkeyDemoPlugin', () => {
  it('serves one literal path and refuses patterns and unknown options', () => {
    expect(passkeyDemoPlugin().name).toBe('svc:passkey-demo');
    expect(passkeyDemoPlugin({ path: '/demo' }).name).toBe('svc:passkey-demo');
    for (const path of ['/demo/:id', '/demo/*', 'demo', 7]) {
      expect(() => passkeyDemoPlugin({ path } as never)).toThrow(/a literal path starting with "\/"/);
    }
    expect(() => passkeyDemoPlugin({ paht: '/demo' } as never)).toThrow(/paht/);
  });
});
