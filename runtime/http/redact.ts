// The default redactor for public details (used by MCP tool results; HTTP adapters apply none by default).
// A key is secret-named when its normalised form — lower-cased, with everything but letters and digits
// removed, so `api_key`, `API-Key` and `apiKey` all read `apikey` — contains one of SENSITIVE_KEY_PARTS.
// Values under such keys become '[REDACTED]' at any depth, except booleans and null, which say only whether
// something is set.

export const REDACTED = '[REDACTED]';

/** Substrings that make a key secret-named (compared against the normalised key). */
export const SENSITIVE_KEY_PARTS: readonly string[] = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'accesskey',
  'privatekey',
  'authorization',
  'cookie',
  'session',
  'credential',
  'recoverycode',
  'otp',
];

/** Turns `API_Key` into `apikey`. */
export function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export function isSensitiveKey(key: string): boolean {
  const normalised = normaliseKey(key);
  for (const part of SENSITIVE_KEY_PARTS) {
    // 'otp' is short enough to hide inside ordinary words (footprint), so it counts only at either end.
    if (
      part === 'otp' ? normalised.startsWith('otp') || normalised.endsWith('otp') : normalised.includes(part)
    ) {
      return true;
    }
  }
  return false;
}

function redact(value: unknown, seen: Set<object>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return undefined;
  seen.add(value);
  let result: unknown;
  if (Array.isArray(value)) {
    result = value.map((item) => redact(item, seen));
  } else {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') continue;
      copy[key] =
        isSensitiveKey(key) && item !== null && typeof item !== 'boolean' ? REDACTED : redact(item, seen);
    }
    result = copy;
  }
  seen.delete(value);
  return result;
}

/** A copy of `details` with every value under a secret-named key replaced by '[REDACTED]' (booleans and null kept). */
export function redactSensitiveDetails(details: unknown): unknown {
  return redact(details, new Set());
}
