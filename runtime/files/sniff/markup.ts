// Text formats a browser would render or run: HTML, SVG and XML, recognised from how the text starts.

/** Elements whose opening tag at the start of a text makes a browser treat it as HTML. */
const HTML_ELEMENTS = new Set([
  'html',
  'head',
  'body',
  'script',
  'iframe',
  'h1',
  'div',
  'font',
  'table',
  'a',
  'style',
  'title',
  'b',
  'br',
  'p',
]);

/** Whitespace as the browsers' sniffing rules skip it before the first tag. */
const LEADING_SPACE = /^[\t\n\f\r ]*/;

/** Decodes the start of the window: a UTF-16 byte-order mark selects that encoding, else UTF-8 (its BOM dropped). */
function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}

/**
 * `text/html`, `application/xhtml+xml`, `image/svg+xml`, `application/xml` or null. After an optional
 * byte-order mark and whitespace, the prolog (XML declaration, processing instructions, comments, doctype) is
 * walked to the first element: an `svg` root is SVG, an `html` root after an XML declaration is XHTML, an HTML
 * element (or an HTML doctype) is HTML. Otherwise a text that opened with an XML declaration, another
 * processing instruction or a non-HTML doctype is XML, and one that opened with a comment is HTML, as browsers
 * treat it.
 */
export function sniffMarkup(bytes: Uint8Array): string | null {
  const text = decodeText(bytes);
  let at = LEADING_SPACE.exec(text)![0].length;
  if (text[at] !== '<') return null;
  let opening: 'xml' | 'markup' | 'comment' | undefined;
  for (;;) {
    at += LEADING_SPACE.exec(text.slice(at, at + 4096))![0].length;
    if (text.startsWith('<?', at)) {
      opening ??= text.slice(at, at + 5).toLowerCase() === '<?xml' ? 'xml' : 'markup';
      at = skipPast(text, at, '?>');
    } else if (text.startsWith('<!--', at)) {
      opening ??= 'comment';
      at = skipPast(text, at + 4, '-->');
    } else if (text.slice(at, at + 9).toLowerCase() === '<!doctype') {
      const name = /^<!doctype\s+([^\s>[]+)/i.exec(text.slice(at, at + 256))?.[1]?.toLowerCase();
      if (name === 'html') return 'text/html';
      opening ??= 'markup';
      at = skipDoctype(text, at);
    } else {
      break;
    }
    if (at < 0) break;
  }
  const root = at < 0 ? undefined : /^<([a-z][a-z0-9]*)(?:[\s/>]|$)/i.exec(text.slice(at, at + 64));
  const name = root?.[1]?.toLowerCase();
  if (name === 'svg') return 'image/svg+xml';
  if (name === 'html' && opening === 'xml') return 'application/xhtml+xml';
  if (name !== undefined && HTML_ELEMENTS.has(name)) return 'text/html';
  if (opening === 'xml' || opening === 'markup') return 'application/xml';
  if (opening === 'comment') return 'text/html';
  return null;
}

/** The index just past `end` from `from`, or -1 when the window ends first. */
function skipPast(text: string, from: number, end: string): number {
  const found = text.indexOf(end, from);
  return found < 0 ? -1 : found + end.length;
}

/** The index past a doctype, whose internal subset (`[ … ]`) may hold `>` characters; -1 past the window. */
function skipDoctype(text: string, from: number): number {
  const close = text.indexOf('>', from);
  const subset = text.indexOf('[', from);
  if (subset < 0 || (close >= 0 && close < subset)) return close < 0 ? -1 : close + 1;
  const subsetEnd = text.indexOf(']', subset);
  return subsetEnd < 0 ? -1 : skipPast(text, subsetEnd, '>');
}
