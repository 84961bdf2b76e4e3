// Just enough MIME to read what a mail server received: the top-level headers, and the body of each part of a
// multipart message decoded from quoted-printable or base64. Encoded words in headers are left as they are.

export interface ReceivedMail {
  headers: Map<string, string>;
  /** Decoded bodies by content type (`text/plain`, `text/html`). */
  parts: Map<string, string>;
}

export function parseMail(raw: string): ReceivedMail {
  const { headers, body } = split(raw);
  const parts = new Map<string, string>();
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (boundary === undefined) {
    parts.set(mediaType(type), decode(body, headers.get('content-transfer-encoding')));
  } else {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = split(chunk.replace(/^\r\n/, ''));
      const partType = part.headers.get('content-type') ?? 'text/plain';
      parts.set(mediaType(partType), decode(part.body, part.headers.get('content-transfer-encoding')));
    }
  }
  return { headers, parts };
}

function split(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(end + 4) };
}

function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function decode(body: string, encoding = '7bit'): string {
  const trimmed = body.replace(/\r\n$/, '');
  switch (encoding.toLowerCase()) {
    case 'quoted-printable': {
      const bytes = trimmed
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return Buffer.from(bytes, 'latin1').toString('utf8');
    }
    case 'base64':
      return Buffer.from(trimmed, 'base64').toString('utf8');
    default:
      return trimmed;
  }
}
