// svckit's default WebAuthn verifier against real ceremonies from a software authenticator: what it accepts,
// what it reports (credential, counter, user verification), and that a bad or foreign response is a refusal,
// never an exception. The counter's verdict is the passkey service's: the verifier only reports it.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { simpleWebauthnVerifier } from '../../runtime/auth/passkeys/simplewebauthn-verifier.js';
import type { RegisteredCredential, WebauthnExpectations } from '../../runtime/auth/passkeys/verifier.js';
import { SoftwareAuthenticator, type AuthenticationResponseJson } from '../helpers/software-authenticator.js';

const ORIGIN = 'https://app.example.com';
const RP_ID = 'example.com';

const verifier = simpleWebauthnVerifier();

function newChallenge(): string {
  return randomBytes(32).toString('base64url');
}

function expectations(
  challenge: string,
  overrides: Partial<WebauthnExpectations> = {},
): WebauthnExpectations {
  return {
    challenge,
    origins: [ORIGIN],
    rpId: RP_ID,
    requireUserVerification: true,
    algorithms: [-7, -257],
    ...overrides,
  };
}

function newAuthenticator(options: { userVerified?: boolean; counterStart?: number } = {}) {
  return new SoftwareAuthenticator({ origin: ORIGIN, rpId: RP_ID, ...options });
}

function registrationOptions(challenge: string) {
  return { challenge, rp: { id: RP_ID }, user: { id: randomBytes(16).toString('base64url') } };
}

/** A registered credential, as the passkey service would store it. */
async function registered(authenticator: SoftwareAuthenticator): Promise<RegisteredCredential> {
  const challenge = newChallenge();
  const result = await verifier.verifyRegistration(
    authenticator.register(registrationOptions(challenge)),
    expectations(challenge),
  );
  if (!result.verified) throw new Error(`registration refused: ${result.reason}`);
  return result.credential;
}

describe('registration', () => {
  it('verifies an attestation and yields the credential the authenticator created', async () => {
    const authenticator = newAuthenticator({ counterStart: 5 });
    const challenge = newChallenge();
    const response = authenticator.register(registrationOptions(challenge));

    const result = await verifier.verifyRegistration(response, expectations(challenge));

    expect(result).toEqual({
      verified: true,
      credential: { id: response.id, publicKey: expect.any(String), counter: 5, transports: ['internal'] },
      userVerified: true,
    });
    if (!result.verified) return;
    expect(authenticator.credentialIds).toEqual([result.credential.id]);
    // The COSE key of an ES256 credential: a CBOR map of 5 entries (kty, alg, crv, and 32-byte x and y).
    const coseKey = Buffer.from(result.credential.publicKey, 'base64url');
    expect(coseKey[0]).toBe(0xa5);
    expect(coseKey).toHaveLength(77);
  });

  it('refuses a credential of an algorithm the options did not offer, and a ceremony run in a cross-origin frame', async () => {
    const challenge = newChallenge();
    const response = newAuthenticator().register(registrationOptions(challenge));
    // The software authenticator makes ES256 (-7) keys: offered RS256 alone, it is refused.
    const rsaOnly = await verifier.verifyRegistration(
      response,
      expectations(challenge, { algorithms: [-257] }),
    );
    expect(rsaOnly.verified).toBe(false);

    const framed = JSON.parse(
      Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8'),
    ) as Record<string, unknown>;
    const inFrame = {
      ...response,
      response: {
        ...response.response,
        // Attestation `none` signs no client data: a frame's browser would write crossOrigin: true here.
        clientDataJSON: Buffer.from(JSON.stringify({ ...framed, crossOrigin: true })).toString('base64url'),
      },
    };
    const refused = await verifier.verifyRegistration(inFrame, expectations(challenge));
    expect(refused).toEqual({ verified: false, reason: 'ceremony run in a cross-origin frame' });
    expect((await verifier.verifyRegistration(response, expectations(challenge))).verified).toBe(true);
  });

  it('reports a registration without user verification when none is required', async () => {
    const challenge = newChallenge();
    const response = newAuthenticator({ userVerified: false }).register(registrationOptions(challenge));

    const result = await verifier.verifyRegistration(
      response,
      expectations(challenge, { requireUserVerification: false }),
    );

    expect(result).toMatchObject({ verified: true, userVerified: false });
  });

  it('takes no transports when the browser reported none or not a list of strings', async () => {
    const challenge = newChallenge();
    const response = newAuthenticator().register(registrationOptions(challenge));
    const withoutTransports = { ...response, response: { ...response.response, transports: [1, 'usb'] } };

    const result = await verifier.verifyRegistration(withoutTransports, expectations(challenge));

    expect(result).toMatchObject({ verified: true, credential: { transports: [] } });
  });

  it('accepts the origin when it is one of several', async () => {
    const challenge = newChallenge();
    const response = newAuthenticator().register(registrationOptions(challenge));

    const result = await verifier.verifyRegistration(
      response,
      expectations(challenge, { origins: ['http://localhost:3000', ORIGIN] }),
    );

    expect(result.verified).toBe(true);
  });

  it.each([
    ['another challenge', { challenge: newChallenge() }],
    ['another origin', { origins: ['https://evil.example.net', 'http://localhost:3000'] }],
    ['another relying party id', { rpId: 'other.example.org' }],
    ['an empty relying party id', { rpId: '' }],
  ])('refuses an attestation made for %s', async (_case, mismatch) => {
    const challenge = newChallenge();
    const response = newAuthenticator().register(registrationOptions(challenge));

    const result = await verifier.verifyRegistration(response, expectations(challenge, mismatch));

    expect(result).toEqual({ verified: false, reason: expect.any(String) });
  });

  it('refuses an attestation without user verification when it is required', async () => {
    const challenge = newChallenge();
    const response = newAuthenticator().register(registrationOptions(challenge), { userVerified: false });

    expect(await verifier.verifyRegistration(response, expectations(challenge))).toMatchObject({
      verified: false,
    });
  });

  it('refuses an attestation whose id is not the one in the authenticator data', async () => {
    const challenge = newChallenge();
    const response = newAuthenticator().register(registrationOptions(challenge));
    const otherId = randomBytes(32).toString('base64url');

    const result = await verifier.verifyRegistration(
      { ...response, id: otherId, rawId: otherId },
      expectations(challenge),
    );

    expect(result).toMatchObject({ verified: false });
  });

  it.each([
    ['null', null],
    ['an empty object', {}],
    ['a string', 'public-key'],
    ['an array', []],
    ['a number', 42],
    [
      'garbage fields',
      {
        id: 'a',
        rawId: 'a',
        type: 'public-key',
        response: { clientDataJSON: '!!', attestationObject: '??' },
      },
    ],
    [
      'client data that is not JSON',
      {
        id: 'a',
        rawId: 'a',
        type: 'public-key',
        response: { clientDataJSON: 'bm90IGpzb24', attestationObject: 'oA' },
      },
    ],
  ])('refuses %s without throwing', async (_case, response) => {
    const challenge = newChallenge();
    expect(await verifier.verifyRegistration(response, expectations(challenge))).toMatchObject({
      verified: false,
    });
  });
});

describe('authentication', () => {
  it('verifies an assertion and reports the counter the authenticator signed', async () => {
    const authenticator = newAuthenticator();
    const credential = await registered(authenticator);
    const challenge = newChallenge();

    const first = await verifier.verifyAuthentication(
      authenticator.authenticate({ challenge, rpId: RP_ID }),
      expectations(challenge),
      credential,
    );
    const next = newChallenge();
    const second = await verifier.verifyAuthentication(
      authenticator.authenticate({ challenge: next, rpId: RP_ID }),
      expectations(next),
      { ...credential, counter: 1 },
    );

    expect(first).toEqual({ verified: true, newCounter: 1, userVerified: true });
    expect(second).toEqual({ verified: true, newCounter: 2, userVerified: true });
  });

  it('reports a rolled-back counter as it is, for the service to judge', async () => {
    const authenticator = newAuthenticator();
    const credential = await registered(authenticator);
    authenticator.setCounter(credential.id, 2);
    const challenge = newChallenge();

    const result = await verifier.verifyAuthentication(
      authenticator.authenticate({ challenge, rpId: RP_ID }),
      expectations(challenge),
      { ...credential, counter: 10 },
    );

    expect(result).toEqual({ verified: true, newCounter: 3, userVerified: true });
  });

  it('reports the same counter from a clone, for the service to judge', async () => {
    const authenticator = newAuthenticator();
    const credential = await registered(authenticator);
    const clone = authenticator.clone();
    const challenge = newChallenge();
    await verifier.verifyAuthentication(
      authenticator.authenticate({ challenge, rpId: RP_ID }),
      expectations(challenge),
      credential,
    );
    const next = newChallenge();

    const result = await verifier.verifyAuthentication(
      clone.authenticate({ challenge: next, rpId: RP_ID }),
      expectations(next),
      { ...credential, counter: 1 },
    );

    expect(result).toEqual({ verified: true, newCounter: 1, userVerified: true });
  });

  it('accepts the origin when it is one of several', async () => {
    const authenticator = newAuthenticator();
    const credential = await registered(authenticator);
    const challenge = newChallenge();
    const response = authenticator.authenticate({ challenge, rpId: RP_ID }, credential.id, {
      origin: 'http://localhost:3000',
    });

    const result = await verifier.verifyAuthentication(
      response,
      expectations(challenge, { origins: [ORIGIN, 'http://localhost:3000'] }),
      credential,
    );

    expect(result.verified).toBe(true);
  });

  it('reports an assertion without user verification when none is required', async () => {
    const authenticator = newAuthenticator();
    const credential = await registered(authenticator);
    const challenge = newChallenge();
    const response = authenticator.authenticate({ challenge, rpId: RP_ID }, credential.id, {
      userVerified: false,
    });

    const result = await verifier.verifyAuthentication(
      response,
      expectations(challenge, { requireUserVerification: false }),
      credential,
    );

    expect(result).toEqual({ verified: true, newCounter: 1, userVerified: false });
  });

  describe('refuses, without throwing,', () => {
    it('an assertion for another challenge', async () => {
      const authenticator = newAuthenticator();
      const credential = await registered(authenticator);
      const response = authenticator.authenticate({ challenge: newChallenge(), rpId: RP_ID });

      const result = await verifier.verifyAuthentication(response, expectations(newChallenge()), credential);

      expect(result).toEqual({ verified: false, reason: expect.any(String) });
    });

    it('an assertion from another origin', async () => {
      const authenticator = newAuthenticator();
      const credential = await registered(authenticator);
      const challenge = newChallenge();
      const response = authenticator.authenticate({ challenge, rpId: RP_ID }, credential.id, {
        origin: 'https://app.example.com.evil.net',
      });

      const result = await verifier.verifyAuthentication(response, expectations(challenge), credential);

      expect(result).toMatchObject({ verified: false });
    });

    it('an assertion for another relying party id', async () => {
      const authenticator = newAuthenticator();
      const credential = await registered(authenticator);
      const challenge = newChallenge();
      const response = authenticator.authenticate({ challenge, rpId: 'evil.example.net' });

      const result = await verifier.verifyAuthentication(response, expectations(challenge), credential);

      expect(result).toMatchObject({ verified: false });
    });

    it('an assertion without user verification when it is required', async () => {
      const authenticator = newAuthenticator();
      const credential = await registered(authenticator);
      const challenge = newChallenge();
      const response = authenticator.authenticate({ challenge, rpId: RP_ID }, credential.id, {
        userVerified: false,
      });

      const result = await verifier.verifyAuthentication(response, expectations(challenge), credential);

      expect(result).toMatchObject({ verified: false });
    });

    it('an assertion signed by another key under the credential id', async () => {
      const authenticator = newAuthenticator();
      const credential = await registered(authenticator);
      const impostor = newAuthenticator();
      await registered(impostor);
      const challenge = newChallenge();
      const response = impostor.authenticate({ challenge, rpId: RP_ID });

      const result = await verifier.verifyAuthentication(
        { ...response, id: credential.id, rawId: credential.id },
        expectations(challenge),
        credential,
      );

      expect(result).toEqual({ verified: false, reason: expect.any(String) });
    });

    it('an assertion whose authenticator data was changed after signing', async () => {
      const authenticator = newAuthenticator();
      const credential = await registered(authenticator);
      const challenge = newChallenge();
      const response = authenticator.authenticate({ challenge, rpId: RP_ID });
      const authenticatorData = Buffer.from(response.response.authenticatorData, 'base64url');
      authenticatorData.writeUInt32BE(1000, 33);
      const tampered = {
        ...response,
        response: { ...response.response, authenticatorData: authenticatorData.toString('base64url') },
      };

      const result = await verifier.verifyAuthentication(tampered, expectations(challenge), credential);

      expect(result).toMatchObject({ verified: false });
    });

    it('an assertion that names another credential than the one given', async () => {
      const authenticator = newAuthenticator();
      const credential = await registered(authenticator);
      const other = await registered(authenticator);
      const challenge = newChallenge();
      const response = authenticator.authenticate({ challenge, rpId: RP_ID }, other.id);

      const result = await verifier.verifyAuthentication(response, expectations(challenge), credential);

      expect(result).toMatchObject({ verified: false });
    });

    it.each<[string, (real: AuthenticationResponseJson) => unknown]>([
      ['null', () => null],
      ['an empty object', () => ({})],
      ['a string', () => 'public-key'],
      ['an array', (real) => [real]],
      [
        'an assertion without a signature',
        (real) => ({ ...real, response: { ...real.response, signature: 7 } }),
      ],
      ['an assertion of another type', (real) => ({ ...real, type: 'password' })],
      [
        'undecodable fields',
        (real) => ({ ...real, response: { clientDataJSON: '%%', authenticatorData: 'AA', signature: '' } }),
      ],
    ])('%s', async (_case, tamper) => {
      const authenticator = newAuthenticator();
      const credential = await registered(authenticator);
      const challenge = newChallenge();
      const response = tamper(authenticator.authenticate({ challenge, rpId: RP_ID }));

      const result = await verifier.verifyAuthentication(response, expectations(challenge), credential);

      expect(result).toMatchObject({ verified: false });
    });
  });
});

describe('the software authenticator', () => {
  it('hashes the relying party id into the authenticator data and counts from counterStart', () => {
    const authenticator = newAuthenticator({ counterStart: 7 });
    const { id } = authenticator.register(registrationOptions(newChallenge()));
    const response = authenticator.authenticate({ challenge: newChallenge() }, id);
    const authenticatorData = Buffer.from(response.response.authenticatorData, 'base64url');

    expect(authenticatorData.subarray(0, 32)).toEqual(createHash('sha256').update(RP_ID).digest());
    expect(authenticatorData[32]).toBe(0x05);
    expect(authenticatorData.readUInt32BE(33)).toBe(8);
  });
});
