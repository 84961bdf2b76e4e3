// The little of CBOR (RFC 8949) a WebAuthn authenticator writes: integers (negative ones included), byte
// strings, text strings and maps keyed by integers or text. Definite lengths only, shortest form, which is
// what authenticators emit (CTAP2 canonical encoding, apart from map key order, which no decoder here needs).

export type CborValue = number | string | Uint8Array | CborMap;
export type CborMap = Map<number | string, CborValue>;

const MAJOR_UNSIGNED = 0;
const MAJOR_NEGATIVE = 1;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_MAP = 5;

/** The encoding of `value`. Throws on a number that is not a safe integer (floats are never needed here). */
export function encodeCbor(value: CborValue): Buffer {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`CBOR: ${value} is not a safe integer`);
    // A negative integer n is written as major type 1 with argument -1 - n.
    return value >= 0 ? head(MAJOR_UNSIGNED, value) : head(MAJOR_NEGATIVE, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(MAJOR_TEXT, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(MAJOR_BYTES, value.length), value]);
  const parts = [head(MAJOR_MAP, value.size)];
  for (const [key, entry] of value) parts.push(encodeCbor(key), encodeCbor(entry));
  return Buffer.concat(parts);
}

/** The initial byte (major type, additional information) and the argument in its shortest form. */
function head(major: number, argument: number): Buffer {
  const type = major << 5;
  if (argument < 24) return Buffer.from([type | argument]);
  if (argument < 0x100) return Buffer.from([type | 24, argument]);
  if (argument < 0x10000) {
    const bytes = Buffer.alloc(3);
    bytes[0] = type | 25;
    bytes.writeUInt16BE(argument, 1);
    return bytes;
  }
  if (argument < 0x1_0000_0000) {
    const bytes = Buffer.alloc(5);
    bytes[0] = type | 26;
    bytes.writeUInt32BE(argument, 1);
    return bytes;
  }
  const bytes = Buffer.alloc(9);
  bytes[0] = type | 27;
  bytes.writeBigUInt64BE(BigInt(argument), 1);
  return bytes;
}
