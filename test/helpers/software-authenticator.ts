// A platform authenticator in software, for tests: real WebAuthn ceremonies signed with node:crypto, so a test
// exercises the same bytes a browser would send (WebAuthn Level 3, §6.1 authenticator data, §6.5 attestation,
// §7 relying party operations). It registers ES256 (ECDSA P-256, SHA-256) credentials with attestation format
// `none`, and answers assertions with a signature counter that grows by one on each. Everything it returns is
// what `PublicKeyCredential.toJSON()` gives: binary fields as unpadded base64url.
// Knobs for refusals: a per-call origin and user verification flag, the relying party id the options name,
// setCounter() to roll a counter back, and clone() for a second device holding the same keys.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCbor, type CborMap, type CborValue } from './cbor.js';

/** Authenticator data flags (§6.1). */
const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_CREDENTIAL_DATA = 0x40;

/** COSE (RFC 9053): key type EC2, algorithm ES256, curve P-256, and the labels of their parameters. */
const COSE_KTY = 1;
const COSE_ALG = 3;
const COSE_EC2_CRV = -1;
const COSE_EC2_X = -2;
const COSE_EC2_Y = -3;
const COSE_KTY_EC2 = 2;
const COSE_ALG_ES256 = -7;
const COSE_CRV_P256 = 1;

const CREDENTIAL_ID_BYTES = 32;
const AAGUID_BYTES = 16;

export interface SoftwareAuthenticatorOptions {
  /** The origin the "browser" reports in the client data, e.g. `http://localhost:3000`. */
  origin: string;
  /** The relying party id used when the ceremony's options name none; the origin's host by default. */
  rpId?: string;
  /** Whether the user verification flag is set (default true); a call may override it. */
  userVerified?: boolean;
  /** The signature counter a new credential starts at (default 0): its first assertion reports one more. */
  counterStart?: number;
  /** The authenticator model's 16-byte AAGUID; zeros by default, as for attestation `none`. */
  aaguid?: Uint8Array;
}

/** What one ceremony may change, to produce a response a relying party must refuse. */
export interface CeremonyOverrides {
  /** The origin written in this ceremony's client data. */
  origin?: string;
  /** The user verification flag of this ceremony. */
  userVerified?: boolean;
}

/** The part of PublicKeyCredentialCreationOptionsJSON an authenticator reads. */
export interface RegistrationOptions {
  /** base64url. */
  challenge: string;
  rp: { id?: string };
  /** The user handle, base64url. */
  user: { id: string };
}

/** The part of PublicKeyCredentialRequestOptionsJSON an authenticator reads. */
export interface AuthenticationOptions {
  /** base64url. */
  challenge: string;
  rpId?: string;
}

export interface RegistrationResponseJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
}

export interface AuthenticationResponseJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
}

interface StoredCredential {
  privateKey: KeyObject;
  /** base64url. */
  userHandle: string;
  counter: number;
}

export class SoftwareAuthenticator {
  readonly origin: string;
  readonly rpId: string;
  readonly userVerified: boolean;
  readonly counterStart: number;
  readonly aaguid: Uint8Array;
  /** By credential id (base64url), in registration order. */
  readonly #credentials = new Map<string, StoredCredential>();

  constructor(options: SoftwareAuthenticatorOptions) {
    this.origin = options.origin;
    this.rpId = options.rpId ?? new URL(options.origin).hostname;
    this.userVerified = options.userVerified ?? true;
    this.counterStart = options.counterStart ?? 0;
    this.aaguid = options.aaguid ?? new Uint8Array(AAGUID_BYTES);
    if (this.aaguid.length !== AAGUID_BYTES) throw new Error('an AAGUID is 16 bytes');
  }

  /** The ids of the credentials it holds, oldest first. */
  get credentialIds(): string[] {
    return [...this.#credentials.keys()];
  }

  /** `navigator.credentials.create()`: a new ES256 credential, attested with format `none`. */
  register(options: RegistrationOptions, overrides: CeremonyOverrides = {}): RegistrationResponseJson {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credentialId = randomBytes(CREDENTIAL_ID_BYTES);
    const id = credentialId.toString('base64url');
    this.#credentials.set(id, { privateKey, userHandle: options.user.id, counter: this.counterStart });

    // attestedCredentialData (§6.5.1): aaguid | credentialIdLength (2 bytes) | credentialId | COSE public key.
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const attestedCredentialData = Buffer.concat([this.aaguid, idLength, credentialId, coseKeyOf(publicKey)]);
    const authenticatorData = Buffer.concat([
      this.#authenticatorDataHead(options.rp.id, overrides, FLAG_ATTESTED_CREDENTIAL_DATA, this.counterStart),
      attestedCredentialData,
    ]);
    const attestationObject: CborMap = new Map<string, CborValue>([
      ['fmt', 'none'],
      ['attStmt', new Map<string, CborValue>()],
      ['authData', authenticatorData],
    ]);
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: this.#clientData('webauthn.create', options.challenge, overrides).toString(
          'base64url',
        ),
        attestationObject: encodeCbor(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * `navigator.credentials.get()`: an assertion by `credentialId` (by default the first one registered). The
   * counter grows by one first, and the signature covers authenticatorData || SHA-256(clientDataJSON).
   */
  authenticate(
    options: AuthenticationOptions,
    credentialId: string | undefined = this.credentialIds[0],
    overrides: CeremonyOverrides = {},
  ): AuthenticationResponseJson {
    const credential = credentialId === undefined ? undefined : this.#credentials.get(credentialId);
    if (credentialId === undefined || credential === undefined) throw new Error('no such credential');
    credential.counter += 1;
    const authenticatorData = this.#authenticatorDataHead(options.rpId, overrides, 0, credential.counter);
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge, overrides);
    const clientDataHash = createHash('sha256').update(clientDataJSON).digest();
    // node:crypto writes an EC signature DER-encoded, the form WebAuthn uses for ES256.
    const signature = sign(
      'sha256',
      Buffer.concat([authenticatorData, clientDataHash]),
      credential.privateKey,
    );
    return {
      id: credentialId,
      rawId: credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Sets a credential's counter: the next assertion reports `counter + 1` (a rollback, or a clone's drift). */
  setCounter(credentialId: string, counter: number): void {
    const credential = this.#credentials.get(credentialId);
    if (credential === undefined) throw new Error('no such credential');
    credential.counter = counter;
  }

  /** A second device holding the same keys and counters, each counting on its own from now on. */
  clone(): SoftwareAuthenticator {
    const copy = new SoftwareAuthenticator({
      origin: this.origin,
      rpId: this.rpId,
      userVerified: this.userVerified,
      counterStart: this.counterStart,
      aaguid: this.aaguid,
    });
    for (const [id, credential] of this.#credentials) copy.#credentials.set(id, { ...credential });
    return copy;
  }

  /** rpIdHash (32) | flags (1) | signCount (4, big-endian): the fixed start of authenticator data (§6.1). */
  #authenticatorDataHead(
    rpId: string | undefined,
    overrides: CeremonyOverrides,
    extraFlags: number,
    signCount: number,
  ): Buffer {
    const userVerified = overrides.userVerified ?? this.userVerified;
    const flags = FLAG_USER_PRESENT | (userVerified ? FLAG_USER_VERIFIED : 0) | extraFlags;
    const head = Buffer.alloc(37);
    createHash('sha256')
      .update(rpId ?? this.rpId, 'utf8')
      .digest()
      .copy(head, 0);
    head[32] = flags;
    head.writeUInt32BE(signCount, 33);
    return head;
  }

  /** The client data the browser would write (§5.8.1), as its UTF-8 JSON bytes. */
  #clientData(
    type: 'webauthn.create' | 'webauthn.get',
    challenge: string,
    overrides: CeremonyOverrides,
  ): Buffer {
    const origin = overrides.origin ?? this.origin;
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }
}

/** The COSE_Key of an EC P-256 public key: {1: 2, 3: -7, -1: 1, -2: x, -3: y}, x and y 32 bytes each. */
function coseKeyOf(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.x === undefined || jwk.y === undefined) throw new Error('not an EC public key');
  const key: CborMap = new Map<number, number | Uint8Array>([
    [COSE_KTY, COSE_KTY_EC2],
    [COSE_ALG, COSE_ALG_ES256],
    [COSE_EC2_CRV, COSE_CRV_P256],
    [COSE_EC2_X, Buffer.from(jwk.x, 'base64url')],
    [COSE_EC2_Y, Buffer.from(jwk.y, 'base64url')],
  ]);
  return encodeCbor(key);
}
